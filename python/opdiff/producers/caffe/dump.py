"""`dump_caffe`: one run of a Caffe net on the CPU without Caffe, written as golden .npy files. The
net is read with protobuf (reader.py), converted to ONNX (convert.py) and run by ONNX Runtime
through dump-onnx's runner; the CLI `opdiff dump-caffe` is a thin layer over it.

Output folder layout (dump-onnx's golden run)::

    DIR/golden/            {escaped layer}.{top index}.{timestamp}.npy (+ mapping.csv), every
                           layer's every top, in-place layers included; an input blob is output
                           0 of its Input layer
    DIR/model.onnx         the converted graph that ran (``--isolate`` runs the same conversion)
    DIR/inputs/{input}.npy the input values, for --input in another run
    DIR/manifest.json      what ran, timings and notes
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Union

import numpy as np

from opdiff.fileio.atomic import write_bytes
from opdiff.producers.caffe.builder import Shape
from opdiff.producers.caffe.convert import ConvertedNet, convert_net
from opdiff.producers.caffe.reader import read_net
from opdiff.producers.file_names import file_safe_name, timestamp_now
from opdiff.producers.golden_writer import write_golden
from opdiff.producers.onnx.dump import GOLDEN_FOLDER, DumpResult, OutputKind
from opdiff.producers.onnx.runner import run_exposing_all
from opdiff.producers.run_record import save_inputs, write_manifest

PathLike = Union[str, "os.PathLike[str]"]
MODEL_FILE = "model.onnx"


@dataclass(frozen=True)
class CaffeModel:
    """A loaded Caffe net: its name, the files it came from, and its ONNX conversion."""

    name: str
    prototxt: Path
    caffemodel: Optional[Path]
    converted: ConvertedNet


def load_caffe(prototxt: PathLike, caffemodel: Optional[PathLike] = None, input_shapes: Optional[Mapping[str, Shape]] = None) -> CaffeModel:
    """Read and convert a net; CaffeFileError naming the file it cannot read, CaffeLayerError
    naming the layer it cannot run (both ValueError: exit 2).

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d) / "tiny.prototxt"
    ...     _ = p.write_text('input: "x" input_shape { dim: 2 } layer { name: "r" type: "ReLU" bottom: "x" top: "x" }')
    ...     [node.name for node in load_caffe(p).converted.model.graph.node]
    ['r']
    """
    prototxt = Path(prototxt)
    weights = Path(caffemodel) if caffemodel is not None else None
    net = read_net(prototxt, weights)
    return CaffeModel(file_safe_name(net.name or prototxt.stem), prototxt, weights, convert_net(net, dict(input_shapes or {})))


def weights_beside(prototxt: Path) -> Optional[Path]:
    """The ``.caffemodel`` of the same stem beside `prototxt`, if there is one."""
    candidate = prototxt.with_suffix(".caffemodel")
    return candidate if candidate.is_file() else None


def dump_caffe(model: CaffeModel, folder: PathLike, feeds: Mapping[str, np.ndarray], *, threads: int = 0) -> DumpResult:
    """Run `model` with `feeds` (input blob -> array) and write every layer's tops under `folder`.

    >>> import tempfile, pathlib, numpy as np
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d) / "tiny.prototxt"
    ...     _ = p.write_text('input: "x" input_shape { dim: 2 } layer { name: "r" type: "ReLU" bottom: "x" top: "x" }')
    ...     result = dump_caffe(load_caffe(p), pathlib.Path(d) / "out", {"x": np.array([-1, 1], np.float32)})
    ...     sorted(f.name.split(".")[0] for f in result.tensor_folder.glob("*.npy"))
    ['r', 'x']
    """
    started = time.perf_counter()
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    converted = model.converted
    seconds: Dict[str, float] = {}
    run = run_exposing_all(converted.model, feeds, threads=threads)
    seconds["session"], seconds["run"] = run.session_seconds, run.run_seconds
    timestamp = timestamp_now()
    t = time.perf_counter()
    tensor_folder = out / GOLDEN_FOLDER
    files, notes = write_golden(tensor_folder, run.tensors, converted.origins, timestamp)
    seconds["write"] = time.perf_counter() - t
    model_path = write_bytes(out / MODEL_FILE, converted.model.SerializeToString())
    save_inputs(out / "inputs", feeds)
    notes = _in_place_notes(converted) + notes
    layers = sum(1 for kind in converted.layer_types.values() if kind not in ("Input", "Data"))
    result = DumpResult(out, OutputKind.GOLDEN, tensor_folder, len(files), None, model_path, timestamp, layers, None, seconds, notes)
    seconds["total"] = time.perf_counter() - started
    write_manifest(out / "manifest.json", model=model.name, kind=result.kind.value, tensors=tensor_folder, files=len(files),
                   fusion_rule=None, timestamp=timestamp, ops=layers, mapped_share=None,
                   options={"prototxt": os.fspath(model.prototxt), "caffemodel": os.fspath(model.caffemodel) if model.caffemodel else None,
                            "threads": threads},
                   seconds=seconds, notes=notes)
    return result


def _in_place_notes(converted: ConvertedNet) -> List[str]:
    if not converted.in_place:
        return []
    listed = ", ".join(f"{layer} ({blob})" for layer, blob in converted.in_place[:10])
    return [f"{len(converted.in_place)} in-place top(s) kept under their own layer's name: {listed}"]
