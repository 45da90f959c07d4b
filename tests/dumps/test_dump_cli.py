"""`opdiff convert` and `opdiff info` end to end (run through the CLI entry point)."""

from __future__ import annotations

import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import opdiff
from opdiff.cli import main
from opdiff.dumps import Tensor
from tests.support.child_env import child_env

NAME = "Conv2D.conv1.3.2.1700000000000000"


@pytest.fixture()
def dump_dir(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 21, 3, 3)).astype(np.float32)
    folder = tmp_path / "dumps"
    folder.mkdir()
    opdiff.write_dump(folder / NAME, "conv1", inputs=[Tensor(x, layout="NC1HWC0", dtype="float16")],
                      outputs=[Tensor(x, layout="NC1HWC0", dtype="bfloat16"), Tensor(rng.integers(-8, 8, size=(5, 7)), dtype="int4")],
                      buffers=[b"\x01\x02\x03"], workspaces=[b"ws"])
    opdiff.write_dump(folder / "MatMul.mm.1.1.1700000000000001", "mm", outputs=[Tensor(x.reshape(42, 9), layout="FRACTAL_NZ")])
    (folder / "broken.1.1.1.1700000000000002").write_bytes(b"\xff" * 20)
    return folder, x


@pytest.mark.cli_output
def test_convert_directory_writes_reference_names_and_reports_bad_files(dump_dir, tmp_path, capsys):
    folder, x = dump_dir
    out = tmp_path / "out"
    assert main(["convert", "-d", str(folder), "-out", str(out)]) == 11
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted([
        f"{NAME}.input.0.npy", f"{NAME}.output.0.npy", f"{NAME}.output.1.npy", f"{NAME}.l1buffer.0.bin", f"{NAME}.space.0.bin",
        "MatMul.mm.1.1.1700000000000001.output.0.npy", "convert_failed_file_list.txt",
    ])  # fmt: skip
    assert "broken" in (out / "convert_failed_file_list.txt").read_text()
    assert "broken" in capsys.readouterr().err
    stored = np.load(out / f"{NAME}.input.0.npy")  # without -f: the stored array
    assert stored.shape == (2, 2, 3, 3, 16) and stored.dtype == np.float16
    assert np.array_equal(stored[:, 0].transpose(0, 3, 1, 2), x[:, :16].astype(np.float16))
    bf16 = np.load(out / f"{NAME}.output.0.npy")  # bfloat16 is written as float32, loadable by numpy
    assert bf16.dtype == np.float32
    assert np.array_equal(bf16, opdiff.read_dump(folder / NAME).outputs[0].to_numpy(logical=False).astype(np.float32))
    assert np.load(out / f"{NAME}.output.1.npy").dtype == np.int8
    assert (out / f"{NAME}.l1buffer.0.bin").read_bytes() == b"\x01\x02\x03"
    assert not list(out.glob(".opdiff-*"))


def test_convert_to_a_format_with_shape(dump_dir, tmp_path):
    folder, x = dump_dir
    out = tmp_path / "out"
    assert main(["convert", "-d", str(folder / NAME), "-out", str(out), "-f", "NHWC", "-s", "2,3,3,21", "-i", "0"]) == 0
    converted = np.load(out / f"{NAME}.input.0.2x3x3x21.npy")
    assert np.array_equal(converted, x.astype(np.float16).transpose(0, 2, 3, 1))
    assert not (out / f"{NAME}.output.0.2x3x3x21.npy").exists()  # -i selects one input


def test_convert_list_of_files_to_nd_and_bin(dump_dir, tmp_path):
    folder, x = dump_dir
    out = tmp_path / "out"
    files = f"{folder / NAME},{folder / 'MatMul.mm.1.1.1700000000000001'}"
    assert main(["convert", "-d", files, "-out", str(out), "-f", "ND"]) == 0
    assert np.array_equal(np.load(out / "MatMul.mm.1.1.1700000000000001.output.0.42x9.npy"), x.reshape(42, 9))
    assert main(["convert", "-d", str(folder / NAME), "-out", str(tmp_path / "bin"), "-t", "bin"]) == 0
    raw = (tmp_path / "bin" / f"{NAME}.input.0.2_2_3_3_16.float16.NC1HWC0.bin").read_bytes()
    assert raw == opdiff.read_dump(folder / NAME).inputs[0].stored_bytes().tobytes()


def test_convert_long_names_are_mapped(tmp_path):
    long_name = "Op." + "n" * 230 + ".1.1.1700000000000000"  # fits; its outputs would not
    folder = tmp_path / "d"
    folder.mkdir()
    opdiff.write_dump(folder / long_name, "n", outputs=[np.ones(3, np.float32)])
    out = tmp_path / "out"
    assert main(["convert", "-d", str(folder), "-out", str(out)]) == 0
    mapping = (out / "mapping.csv").read_text().strip().split(",")
    assert mapping[1] == long_name + ".output.0.npy"
    assert np.array_equal(np.load(out / mapping[0]), np.ones(3, np.float32))


def test_convert_rejects_bad_arguments(dump_dir, tmp_path):
    folder, _ = dump_dir
    assert main(["convert", "-d", str(folder), "-out", str(tmp_path / "o"), "-f", "NOPE"]) == 2
    assert main(["convert", "-d", str(folder), "-out", str(tmp_path / "o"), "-s", "1,2"]) == 2


def test_info_lists_every_tensor_with_stats(dump_dir):
    folder, x = dump_dir
    result = subprocess.run([sys.executable, "-m", "opdiff", "info", "--stats", str(folder / NAME)],
                            capture_output=True, text=True, env=child_env(COLUMNS="200", PATH=""), check=True)
    lines = result.stdout.splitlines()
    assert "dump-v2" in result.stdout and "conv1" in result.stdout
    row, stats_row = [line for line in lines if line.lstrip().startswith("input")]  # the tensor table, then the stats
    assert "float16" in row and "NC1HWC0" in row and "[2,2,3,3,16]" in row and "[2,21,3,3]" in row
    assert f"{x.astype(np.float16).max():.6g}" in stats_row
    assert any(line.lstrip().startswith("workspace") for line in lines)


def test_info_stays_readable_on_an_80_column_terminal(dump_dir):
    folder, _ = dump_dir
    result = subprocess.run([sys.executable, "-m", "opdiff", "info", "--stats", str(folder / NAME)],
                            capture_output=True, text=True, env=child_env(COLUMNS="80", PATH=""), check=True)
    row = next(line for line in result.stdout.splitlines() if line.lstrip().startswith("input"))
    assert "float16" in row and "NC1HWC0" in row and "…" not in result.stdout
    assert "[2,2,3,3,16]" in row and "[2,21,3,3]" in row  # shapes whole, not folded character by character


def test_info_wraps_a_shape_between_dimensions_on_a_narrow_terminal(dump_dir):
    folder, _ = dump_dir
    result = subprocess.run([sys.executable, "-m", "opdiff", "info", str(folder / NAME)],
                            capture_output=True, text=True, env=child_env(COLUMNS="60", PATH=""), check=True)
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("input"))
    column = lines[start].index("[")
    end = lines[start].index("[", column + 1)  # where the original shape's column starts
    # the shape cell's lines, read down its column until the next row starts
    cell = [lines[start][column:end].strip()]
    for line in lines[start + 1:]:
        if line[:column].strip() or not line[column:end].strip():
            break
        cell.append(line[column:end].strip())
    assert len(cell) > 1 and "".join(cell).replace(" ", "") == "[2,2,3,3,16]", cell
    assert all(part.endswith((",", "]")) for part in cell), cell  # broken after a comma, never inside a number


@pytest.mark.cli_output
def test_info_reports_a_bad_file(dump_dir, capsys):
    folder, _ = dump_dir
    assert main(["info", str(folder / "broken.1.1.1.1700000000000002")]) == 11
    assert "broken" in capsys.readouterr().err


def test_convert_npy_input_with_ml_dtype(tmp_path):
    from opdiff.dumps import save_npy

    save_npy(tmp_path / "g.0.1700000000000000.npy", np.arange(6, dtype=np.float32).astype(ml_dtypes.bfloat16))
    assert main(["convert", "-d", str(tmp_path / "g.0.1700000000000000.npy"), "-out", str(tmp_path / "o")]) == 0
    assert np.load(tmp_path / "o" / "g.0.1700000000000000.npy.output.0.npy").tolist() == [0, 1, 2, 3, 4, 5]


def test_convert_skips_one_bad_tensor_and_writes_the_others(tmp_path):
    from opdiff.dumps import dump_data_pb2 as pb

    folder = tmp_path / "d"
    folder.mkdir()
    name = "Conv2D.w.1.1.1700000000000000"
    # Output 1 is FRACTAL_Z without an original shape: its H and W are unknown, so -f fails for it.
    path = opdiff.write_dump(folder / name, "w", outputs=[np.ones((2, 3), np.float32), Tensor(np.ones((16, 16, 1, 1), np.float16), layout="FRACTAL_Z")])
    dump = pb.DumpData.FromString(path.read_bytes()[8 : 8 + int.from_bytes(path.read_bytes()[:8], "little")])
    dump.output[1].ClearField("original_shape")
    header = dump.SerializeToString()
    payload = path.read_bytes()[8 + int.from_bytes(path.read_bytes()[:8], "little") :]
    path.write_bytes(len(header).to_bytes(8, "little") + header + payload)
    out = tmp_path / "out"
    assert main(["convert", "-d", str(folder), "-out", str(out), "-f", "NCHW"]) == 11
    assert (out / f"{name}.output.0.2x3.npy").exists()
    assert name in (out / "convert_failed_file_list.txt").read_text()
