"""Benchmark: `opdiff dump-caffe` beside `opdiff dump-onnx` on the same network.

    python bench/bench_dump_caffe.py [--repeat 3] [--size 224]

A ResNet-50-sized Caffe net (tests/support/caffe_models.py: 53 convolutions with in-place
BatchNorm, Scale and ReLU, random weights, 102 MB of caffemodel) is written once; dump-caffe runs
it (reading prototxt and caffemodel, converting, running, writing every layer's golden), then
dump-onnx runs the ONNX graph dump-caffe converted (DIR/model.onnx) with the same input. Each is a
whole `opdiff` process (best of `--repeat`, alternating), so both pay their imports and their
model reading. Target: dump-caffe within 1.5x of dump-onnx. Needs the onnx extra.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.support.caffe_models import ResNetShape, resnet_net  # noqa: E402

TARGET_RATIO = 1.5


def timed(command: List[str], output: Path) -> float:
    """Seconds `command` takes as a whole process, writing into a fresh `output`."""
    shutil.rmtree(output, ignore_errors=True)
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command (best kept; default 3)")
    parser.add_argument("--size", type=int, default=224, help="input height and width (default 224)")
    args = parser.parse_args()
    opdiff = [sys.executable, "-m", "opdiff"]
    with tempfile.TemporaryDirectory(prefix="opdiff-bench-caffe-") as scratch:
        folder = Path(scratch)
        writer = resnet_net(ResNetShape(size=args.size))
        prototxt, caffemodel = writer.write(folder / "model", "resnet50")
        caffe = [*opdiff, "dump-caffe", str(prototxt), str(caffemodel), "--random-inputs", "0", "-o", str(folder / "caffe")]
        subprocess.run(caffe, check=True, stdout=subprocess.DEVNULL)  # the converted model and the input, for dump-onnx
        shutil.copytree(folder / "caffe", folder / "converted")
        onnx = [*opdiff, "dump-onnx", str(folder / "converted" / "model.onnx"), "--input", f"data={folder / 'converted' / 'inputs' / 'data.npy'}",
                "-o", str(folder / "onnx")]
        times: Dict[str, List[float]] = {"dump-caffe": [], "dump-onnx": []}
        for _ in range(args.repeat):
            times["dump-caffe"].append(timed(caffe, folder / "caffe"))
            times["dump-onnx"].append(timed(onnx, folder / "onnx"))
        goldens = {name: len(list((folder / sub / "golden").glob("*.npy"))) for name, sub in (("dump-caffe", "caffe"), ("dump-onnx", "onnx"))}
        layers = sum(1 for layer in writer.net.layer if layer.type != "Input")
        weights_mb = caffemodel.stat().st_size / 1e6
    best = {name: min(values) for name, values in times.items()}
    ratio = best["dump-caffe"] / best["dump-onnx"]
    table = Table(title=f"ResNet-50 ({layers} layers, {weights_mb:.0f} MB caffemodel, input {args.size}x{args.size}), best of {args.repeat}")
    for column in ("command", "seconds", "golden files"):
        table.add_column(column)
    for name in times:
        table.add_row(name, f"{best[name]:.2f}", str(goldens[name]))
    Console().print(table)
    verdict = "within" if ratio <= TARGET_RATIO else "OVER"
    print(f"dump-caffe / dump-onnx = {ratio:.2f} ({verdict} the {TARGET_RATIO}x target)")
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
