"""Faults around reading and writing (issue 8), without the compare engine: files truncated at
random offsets (before and while they are read), a file removed between listing a directory and
reading it, and an unwritable or full output directory for `opdiff convert` and `opdiff demo`.

Expected everywhere: a clear error or a per-file reason, the rest completes, and every output is
whole or absent (no half-written file, no temporary left behind).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List

import numpy as np
import pytest

import opdiff
from opdiff.cli import main
from opdiff.commands import convert as convert_command
from opdiff.commands.convert import input_files
from opdiff.commands.exit_codes import ExitCode
from opdiff.dumps.conversion import ConvertOptions, convert
from opdiff.graph import GraphFormatError, read_graph
from tests.support import paths

ROOT = paths.ROOT
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "fuzz"))
import fuzz_dumps  # noqa: E402
import targets as fuzz_targets  # noqa: E402

RANDOM_CUTS = 24


def cut_points(length: int, rng: random.Random) -> List[int]:
    """Every boundary a reader cares about (empty, inside the length prefix, right after it,
    one byte short) plus random offsets."""
    fixed = {0, 1, 7, 8, 9, length - 1}
    return sorted({c for c in fixed if 0 <= c < length} | {rng.randrange(length) for _ in range(RANDOM_CUTS)})


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> List[Path]:
    return fuzz_dumps.make_seeds(tmp_path_factory.mktemp("seeds"))


def test_dump_and_npy_files_truncated_anywhere_are_refused(seeds, tmp_path):
    rng = random.Random(8)
    for seed in seeds:
        data = seed.read_bytes()
        form = opdiff.read_dump(seed).form
        for cut in cut_points(len(data), rng):
            path = tmp_path / seed.name
            path.write_bytes(data[:cut])
            outcome = fuzz_dumps.exercise(path)  # any exception but DumpFormatError propagates
            # A v1 dump is one protobuf message: cut at a field boundary it is a shorter valid one.
            if form != "dump-v1":
                assert outcome == "rejected", (seed.name, cut)


@pytest.mark.slow
def test_models_truncated_anywhere_are_refused(tmp_path):
    rng = random.Random(9)
    for index, data in enumerate(fuzz_targets.om_seeds(tmp_path)):
        read_graph(fuzz_targets.Scratch.write("whole.om", data))
        for cut in cut_points(len(data), rng):
            path = tmp_path / f"model{index}.om"
            path.write_bytes(data[:cut])
            with pytest.raises(GraphFormatError):
                read_graph(path)


# Opens a dump, cuts the file, then reads every tensor every way: once the file has shrunk every
# read raises DumpFormatError (a file changed under us is not trusted, whichever bytes a tensor
# had). Without the truncation guard the first access past the new end is SIGBUS, which kills
# the process: hence a child.
READ_AFTER_CUT = textwrap.dedent(
    """
    import json, os, sys
    import opdiff
    from opdiff.dumps import tensor_stats

    path, cut = sys.argv[1], int(sys.argv[2])
    dump = opdiff.read_dump(path)
    views = [t.view() for t in dump.tensors if t.dtype]
    os.truncate(path, cut)
    outcomes = []
    for tensor in dump.tensors:
        for name, read in (("stored", lambda: (bytes(tensor.stored_bytes()), tensor.check_intact())),
                           ("logical", tensor.to_numpy), ("stats", lambda: tensor_stats(tensor, threads=2))):
            try:
                read()
                outcomes.append("ok")
            except opdiff.DumpFormatError as error:
                assert "shrank" in str(error) or "cannot be decoded" in str(error), str(error)
                outcomes.append("shrank" if "shrank" in str(error) else "undecodable")
    print(json.dumps(outcomes))
    """
)


def assert_cuts_are_reported(path: Path, rng: random.Random) -> None:
    """Cut `path` while a child has it open, at no byte, half, a random byte and all of it: every
    read after a real cut says the file shrank (a file read whole or mapped alike)."""
    data = path.read_bytes()
    for cut in (0, len(data) // 2, rng.randrange(len(data)), len(data)):
        path.write_bytes(data)
        result = subprocess.run([sys.executable, "-c", READ_AFTER_CUT, str(path), str(cut)], capture_output=True,
                                text=True, timeout=120, env=dict(os.environ))
        assert result.returncode == 0, (path.name, cut, result.returncode, result.stderr[-2000:])
        outcomes = set(json.loads(result.stdout)) - {"undecodable"}
        assert outcomes == ({"ok"} if cut == len(data) else {"shrank"}), (path.name, cut, outcomes)


@pytest.mark.slow
def test_files_truncated_while_open_are_reported_not_fatal(seeds, tmp_path):
    rng = random.Random(10)
    for seed in seeds:
        path = tmp_path / seed.name
        path.write_bytes(seed.read_bytes())
        assert_cuts_are_reported(path, rng)


# Files up to 1 MiB are read whole when opened, larger ones mapped (cpp/include/opdiff/file_bytes.hpp):
# both must report a file that shrank under them.
READ_WHOLE, MAPPED = 1 << 16, 1 << 21  # float32 elements: 256 KiB and 8 MiB


@pytest.mark.slow
def test_mapped_files_truncated_while_open_are_reported_not_fatal(tmp_path):
    big = tmp_path / "Big.big.1.1.1700000000000000"
    opdiff.write_dump(big, "big", inputs=[np.ones(MAPPED, np.float32)], outputs=[np.ones(MAPPED, np.float16)])
    npy = tmp_path / "big.0.1700000000000000.npy"
    np.save(npy, np.ones(MAPPED, np.float32))
    rng = random.Random(11)
    for path in (big, npy):
        assert_cuts_are_reported(path, rng)


@pytest.mark.parametrize("elements", [READ_WHOLE, MAPPED], ids=["read-whole", "mapped"])
def test_a_big_tensor_cut_mid_page_is_reported(tmp_path, elements):
    """The tail of the last page past the new end reads as zeros without a fault (a mapping), or
    was read before the cut (a file read whole): either way the size on disk tells."""
    path = opdiff.write_dump(tmp_path / "Big.big.1.1.1700000000000000", "big", outputs=[np.ones(elements, np.float32)])
    dump = opdiff.read_dump(path)
    os.truncate(path, path.stat().st_size - 100)  # same page count, last 100 bytes gone
    with pytest.raises(opdiff.DumpFormatError, match="shrank"):
        dump.outputs[0].to_numpy()


def test_a_file_replaced_under_its_name_is_still_read_whole(tmp_path):
    path = opdiff.write_dump(tmp_path / "R.r.1.1.1700000000000000", "r", outputs=[np.arange(1000, dtype=np.float32)])
    dump = opdiff.read_dump(path)
    opdiff.write_dump(path, "r", outputs=[np.zeros(3, np.float32)])  # new inode: the mapping keeps the old
    assert (dump.outputs[0].to_numpy() == np.arange(1000)).all()


# --- a file removed between listing and reading -------------------------------------------------

def make_dump_dir(folder: Path, count: int = 4, elements: int = 16) -> List[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return [opdiff.write_dump(folder / f"Add.add_{i}.{i}.1.17000000000000{i:02d}", f"add_{i}",
                              outputs=[np.full(elements, i, np.float32)]) for i in range(count)]


def assert_outputs_whole(out_dir: Path, expected_elements: int) -> List[Path]:
    """Every .npy present loads completely; no temporary or partial file is left."""
    leftovers = [p.name for p in out_dir.iterdir() if p.name.startswith(".opdiff-") or p.name.endswith((".tmp", ".partial"))]
    assert not leftovers, leftovers
    written = sorted(out_dir.glob("*.npy"))
    for path in written:
        array = np.load(path)
        assert array.size == expected_elements, path
    return written


def test_convert_api_reports_a_file_removed_after_listing(tmp_path):
    make_dump_dir(tmp_path / "dumps")
    files = input_files(str(tmp_path / "dumps"))
    files[1].unlink()
    results = convert(files, ConvertOptions(tmp_path / "out"))
    assert [bool(r.error) for r in results] == [False, True, False, False]
    assert "cannot open" in results[1].error and files[1].name in results[1].error
    assert len(assert_outputs_whole(tmp_path / "out", 16)) == 3


@pytest.mark.cli_output
def test_convert_cli_lists_a_file_removed_after_listing(tmp_path, monkeypatch, capsys):
    files = make_dump_dir(tmp_path / "dumps")
    real_listing = convert_command.input_files

    def listing_then_removal(spec: str) -> List[Path]:
        listed = real_listing(spec)
        listed[2].unlink()  # gone after the directory was read, before the file is
        return listed

    monkeypatch.setattr(convert_command, "input_files", listing_then_removal)
    status = main(["convert", "-d", str(tmp_path / "dumps"), "-out", str(tmp_path / "out"), "-j", "2"])
    assert status == ExitCode.INVALID_DUMP_DATA
    failed = (tmp_path / "out" / "convert_failed_file_list.txt").read_text().splitlines()
    assert failed == [str(files[2])]
    assert "cannot open" in capsys.readouterr().err
    assert len(assert_outputs_whole(tmp_path / "out", 16)) == 3


# --- unwritable and full output directories ------------------------------------------------------

def unwrapped(text: str) -> str:
    """Console text with rich's line wrapping undone."""
    return " ".join(text.split())


@contextmanager
def tmpfs(folder: Path, options: str) -> Iterator[Path]:
    """A small tmpfs at `folder`; skips when this process may not mount one."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        result = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True, text=True)
    except FileNotFoundError:
        pytest.skip("no mount command: the full/read-only output tests need a tmpfs")
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): {result.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


@pytest.mark.cli_output
def test_convert_into_a_read_only_directory_is_a_clear_error(tmp_path, capsys):
    make_dump_dir(tmp_path / "dumps")
    with tmpfs(tmp_path / "ro", "ro,size=1m") as read_only:
        for out in (read_only, read_only / "sub"):
            status = main(["convert", "-d", str(tmp_path / "dumps"), "-out", str(out)])
            err = unwrapped(capsys.readouterr().err)
            assert status == 2 and "cannot write to" in err and "Read-only file system" in err, err
        assert not list(read_only.iterdir())


@pytest.mark.cli_output
def test_demo_into_a_read_only_directory_is_a_clear_error(tmp_path, capsys):
    with tmpfs(tmp_path / "ro", "ro,size=1m") as read_only:
        assert main(["demo", "--dir", str(read_only / "demo")]) == 2
        assert "cannot write the demo data" in unwrapped(capsys.readouterr().out)


@pytest.mark.cli_output
def test_convert_into_a_full_directory_keeps_every_output_whole(tmp_path, capsys):
    elements = 30_000  # 120 KB per output: a 512 KB tmpfs holds a few of ten
    make_dump_dir(tmp_path / "dumps", count=10, elements=elements)
    with tmpfs(tmp_path / "full", "size=512k") as full:
        status = main(["convert", "-d", str(tmp_path / "dumps"), "-out", str(full), "-j", "1"])
        err = unwrapped(capsys.readouterr().err)
        assert status == ExitCode.INVALID_DUMP_DATA
        assert "No space left on device" in err
        written = assert_outputs_whole(full, elements)
        assert 0 < len(written) < 10
        listing = full / "convert_failed_file_list.txt"
        if listing.exists():  # written whole when it fit, else its failure was reported
            assert len(listing.read_text().splitlines()) == 10 - len(written)
        else:
            assert "convert_failed_file_list.txt" in err


@pytest.mark.cli_output
def test_demo_into_a_full_directory_stops_cleanly(tmp_path, capsys):
    with tmpfs(tmp_path / "full", "size=128k") as full:
        assert main(["demo", "--dir", str(full)]) == 2
        assert "No space left on device" in unwrapped(capsys.readouterr().out)
        leftovers = [p for p in full.rglob("*") if p.name.endswith(".partial")]
        assert not leftovers
        for path in full.rglob("*.npy"):
            np.load(path)  # whole
