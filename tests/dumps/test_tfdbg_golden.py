"""A tfdbg root as the golden side (``-g ROOT``): rows equal those against the same tensors as golden
.npy files; --step and many-run mode pick the golden step of each run's number; a damaged tensor
file keeps its row, naming the file and why; convert and info read roots."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List

import numpy as np
import pytest

import opdiff
from opdiff.dumps.tfdbg.roots import read_tfdbg_root
from tests.support.dump_tree import Fault, write_dump_tree
from tests.support.many_runs import by_run, opdiff_cli
from tests.support.tfdbg_roots import write_tfdbg_roots


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPDIFF_TFDBG_CACHE", str(tmp_path / "cache"))


def _cells(report: opdiff.Report) -> List[tuple]:  # type: ignore[type-arg]
    return [(row.npu_dump, row.tensor, row.shape, row.metrics) for row in report.rows]


def test_rows_equal_those_against_the_npy_golden(tmp_path: Path) -> None:
    tree = write_dump_tree(tmp_path, devices=(0,), steps=(0,), fault=Fault(0, 0), image_size=16)
    v1, v2 = write_tfdbg_roots(tree, tmp_path)
    run = tree.run_folder(0, 0)
    expected = _cells(opdiff.compare(run, tree.golden, fusion_rule=tree.rule))
    assert len(expected) > 10
    for root in (v1, v2):
        assert _cells(opdiff.compare(run, root, fusion_rule=tree.rule)) == expected


def test_step_picks_the_golden_step_and_defaults_to_the_last(tmp_path: Path) -> None:
    tree = write_dump_tree(tmp_path, devices=(0,), steps=(0,), image_size=16)
    v1, v2 = write_tfdbg_roots(tree, tmp_path, scales=(-1.0, 1.0))
    run = tree.run_folder(0, 0)
    expected = _cells(opdiff.compare(run, tree.golden, fusion_rule=tree.rule))
    for root in (v1, v2):
        assert _cells(opdiff.compare(run, root, fusion_rule=tree.rule)) == expected
        assert _cells(opdiff.compare(run, root, fusion_rule=tree.rule, step=1)) == expected
        assert _cells(opdiff.compare(run, root, fusion_rule=tree.rule, step=0)) != expected


def test_many_runs_meet_the_golden_step_of_their_number(tmp_path: Path) -> None:
    tree = write_dump_tree(tmp_path, devices=(0,), steps=(0, 1), image_size=16)
    v1, v2 = write_tfdbg_roots(tree, tmp_path, scales=(1.0, -1.0))
    done = opdiff_cli(tmp_path, "compare", "-m", str(tree.root), "-g", str(tree.golden), "-f", str(tree.rule), "-out", "npy")
    assert done.returncode == 0, done.stderr
    with_npy = by_run(tmp_path / "npy")
    for root in (v1, v2):
        out = tmp_path / f"out_{root.name}"
        done = opdiff_cli(tmp_path, "compare", "-m", str(tree.root), "-g", str(root), "-f", str(tree.rule), "-out", str(out))
        assert done.returncode == 0, done.stderr
        with_tfdbg = by_run(out)
        assert sorted(with_tfdbg) == sorted(with_npy) == ["0_demo_net_0", "0_demo_net_1"]
        assert with_tfdbg["0_demo_net_0"] == with_npy["0_demo_net_0"]
        assert with_tfdbg["0_demo_net_1"] != with_npy["0_demo_net_1"]  # golden step 1 is negated


def _damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    path.write_bytes({"truncated": data[: len(data) // 2], "wrong proto": b"\xff\xff\xff\xff" + data[4:]}[how])


@pytest.mark.parametrize("how", ["truncated", "wrong proto"])
def test_a_damaged_v1_file_names_itself_in_its_row(tmp_path: Path, how: str) -> None:
    tree = write_dump_tree(tmp_path, devices=(0,), steps=(0,), image_size=16)
    v1, _ = write_tfdbg_roots(tree, tmp_path)
    (victim,) = [ref for ref in read_tfdbg_root(v1).step(None).tensors if ref.op_name == "block1/relu1"]
    _damage(Path(victim.path), how)
    report = opdiff.compare(tree.run_folder(0, 0), v1, fusion_rule=tree.rule)
    named = [row for row in report.rows if os.path.basename(victim.path) in " ".join(row.reasons)]
    assert named and all(row.metrics is None for row in named)
    assert sum(row.metrics is not None for row in report.rows) > 10  # the others are compared


def test_a_bad_crc_in_v2_names_the_stream_and_offset(tmp_path: Path) -> None:
    tree = write_dump_tree(tmp_path, devices=(0,), steps=(0,), image_size=16)
    _, v2 = write_tfdbg_roots(tree, tmp_path)
    (victim,) = [ref for ref in read_tfdbg_root(v2).step(None).tensors if ref.op_name == "block1/relu1"]
    with open(victim.path, "r+b") as handle:  # a byte of the tensor's data, the record's last
        handle.seek(victim.offset)
        last = victim.offset + 12 + int.from_bytes(handle.read(8), "little") - 1
        handle.seek(last)
        byte = handle.read(1)
        handle.seek(last)
        handle.write(bytes([byte[0] ^ 0xFF]))
    report = opdiff.compare(tree.run_folder(0, 0), v2, fusion_rule=tree.rule)
    named = [row for row in report.rows if f"@{victim.offset}" in " ".join(row.reasons)]
    assert named and "CRC does not match" in " ".join(named[0].reasons)
    assert sum(row.metrics is not None for row in report.rows) > 10


def test_a_root_with_no_readable_run_exits_2(tmp_path: Path) -> None:
    (tmp_path / "bad" / "run_1_0").mkdir(parents=True)
    tree = write_dump_tree(tmp_path, devices=(0,), steps=(0,), image_size=16)
    done = opdiff_cli(tmp_path, "compare", "-m", str(tree.run_folder(0, 0)), "-g", str(tmp_path / "bad"), "-f", str(tree.rule),
                      "-out", "out")
    assert done.returncode == 2, done.stderr


def test_convert_writes_the_reference_names_and_info_lists_runs(tmp_path: Path) -> None:
    tree = write_dump_tree(tmp_path, devices=(0,), steps=(0,), image_size=16)
    v1, v2 = write_tfdbg_roots(tree, tmp_path)
    for root in (v1, v2):
        done = opdiff_cli(tmp_path, "convert", "-d", str(root), "-out", f"npy_{root.name}", "--step", "1")
        assert done.returncode == 0, done.stderr
        written = sorted(p.name.rsplit(".", 2)[0] for p in (tmp_path / f"npy_{root.name}").glob("*.npy"))
        assert written == sorted(p.name.rsplit(".", 2)[0] for p in tree.golden.glob("*.npy"))
        for path in (tmp_path / f"npy_{root.name}").glob("*.npy"):
            (golden,) = tree.golden.glob(path.name.rsplit(".", 2)[0] + ".*.npy")
            assert np.load(path).tobytes() == np.load(golden).tobytes()
        done = opdiff_cli(tmp_path, "info", str(root))
        assert done.returncode == 0, done.stderr
        assert "block1/conv1" in done.stdout and "step" in done.stdout
    done = opdiff_cli(tmp_path, "convert", "-d", str(v1), "-out", "all")
    assert sorted(p.name for p in (tmp_path / "all").iterdir()) == ["step_0", "step_1"]
