"""The inputs of a model run: their specs from the graph, seeded random values, or .npy files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from opdiff.producers.onnx.support import OnnxModel


@dataclass(frozen=True)
class InputSpec:
    """One graph input: name, numpy dtype and shape (dynamic dims already replaced by 1).

    ``dynamic`` names the dims that were symbolic or unknown (for the run's notes).
    """

    name: str
    dtype: np.dtype
    shape: Tuple[int, ...]
    dynamic: Tuple[str, ...] = ()


def input_specs(model: OnnxModel) -> List[InputSpec]:
    """The real inputs of `model` (graph inputs that are not initializers), in graph order.

    >>> from onnx import helper, TensorProto
    >>> g = helper.make_graph([], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])], [])
    >>> input_specs(helper.make_model(g))
    [InputSpec(name='x', dtype=dtype('float32'), shape=(1, 3), dynamic=('batch',))]
    """
    from onnx import helper

    initializers = {init.name for init in model.graph.initializer}
    specs = []
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor_type = value.type.tensor_type
        dtype = np.dtype(helper.tensor_dtype_to_np_dtype(tensor_type.elem_type))
        shape: List[int] = []
        dynamic: List[str] = []
        for position, dim in enumerate(tensor_type.shape.dim):
            if dim.HasField("dim_value") and dim.dim_value > 0:
                shape.append(int(dim.dim_value))
            else:
                shape.append(1)  # a symbolic or unknown dim: the smallest real size
                dynamic.append(dim.dim_param or f"dim {position}")
        specs.append(InputSpec(value.name, dtype, tuple(shape), tuple(dynamic)))
    return specs


def random_inputs(specs: Sequence[InputSpec], seed: int) -> Dict[str, np.ndarray]:
    """Seeded values for every input: standard normal floats, small non-negative integers, random bools.

    >>> x = random_inputs([InputSpec("x", np.dtype(np.float32), (2, 3))], seed=0)["x"]
    >>> x.shape, x.dtype
    ((2, 3), dtype('float32'))
    """
    rng = np.random.default_rng(seed)
    feeds: Dict[str, np.ndarray] = {}
    for spec in specs:
        if spec.dtype.kind == "f":
            feeds[spec.name] = rng.standard_normal(spec.shape).astype(spec.dtype)
        elif spec.dtype.kind in "iu":
            feeds[spec.name] = rng.integers(0, 8, spec.shape).astype(spec.dtype)  # small: indices stay valid
        elif spec.dtype.kind == "b":
            feeds[spec.name] = rng.random(spec.shape) < 0.5
        else:
            raise ValueError(f"input {spec.name}: no random values for dtype {spec.dtype}")
    return feeds


def parse_input_args(pairs: Sequence[str]) -> Dict[str, Path]:
    """``["NAME=FILE.npy", ...]`` as a name -> path mapping; ValueError on a malformed pair.

    >>> parse_input_args(["x=a.npy"])
    {'x': PosixPath('a.npy')}
    """
    result: Dict[str, Path] = {}
    for pair in pairs:
        name, sep, path = pair.partition("=")
        if not sep or not name or not path:
            raise ValueError(f"--input {pair!r} is not NAME=FILE.npy")
        result[name] = Path(path)
    return result


def load_inputs(specs: Sequence[InputSpec], files: Mapping[str, Path], seed: Optional[int]) -> Tuple[Dict[str, np.ndarray], List[str]]:
    """Feeds for a run: the given .npy files, random values (with `seed`) for the rest, and notes.

    ValueError when an input has neither a file nor a seed, when a file names no input, or when a
    file's shape or dtype does not fit the model (the dtype is converted when only the width differs).
    """
    known = {spec.name for spec in specs}
    unknown = sorted(set(files) - known)
    if unknown:
        raise ValueError(f"--input names no model input: {', '.join(unknown)} (inputs: {', '.join(sorted(known))})")
    missing = [spec for spec in specs if spec.name not in files]
    feeds: Dict[str, np.ndarray] = {}
    if missing:
        if seed is None:
            raise ValueError(f"no value for input(s) {', '.join(s.name for s in missing)}: give --input NAME=FILE.npy or --random-inputs SEED")
        feeds = random_inputs(missing, seed)
    notes = [f"input {spec.name}: dynamic dims {', '.join(spec.dynamic)} set to 1" for spec in missing if spec.dynamic]
    for spec in specs:
        if spec.name not in files:
            continue
        array = np.load(files[spec.name], allow_pickle=False)
        if array.dtype != spec.dtype:
            if array.dtype.kind != spec.dtype.kind:
                raise ValueError(f"input {spec.name}: {files[spec.name]} holds {array.dtype}, the model wants {spec.dtype}")
            notes.append(f"input {spec.name}: {array.dtype} converted to {spec.dtype}")
            array = array.astype(spec.dtype)
        feeds[spec.name] = array
    return {spec.name: feeds[spec.name] for spec in specs}, notes
