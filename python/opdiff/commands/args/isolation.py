"""``--isolate MODEL``: each op re-run alone on the device's own inputs (docs/isolating-an-op.md)."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_isolation(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--isolate", metavar="MODEL",
                        help="re-run each op alone on the device's own inputs through MODEL, the source model the device "
                        "model was converted from: an .onnx file or a Caffe .prototxt (pip install \"opdiff[onnx]\"), or a "
                        "frozen TensorFlow .pb (pip install \"opdiff[tf]\"); needs -f. Writes isolation_<timestamp>.csv, and the advisor "
                        "tells a culprit from what it inherited (docs/isolating-an-op.md)")
    parser.add_argument("--isolate-weights", type=Path, metavar="FILE",
                        help="the .caffemodel of a Caffe --isolate MODEL.prototxt (default: the one of the same stem beside it)")
