"""The weight check of ``--isolate``: a dumped weight against the model's initializer, where the
comparison is sound.

Only for an NPU op with exactly one original op (a fused op may have changed its weights: a
BatchNorm folded into a Conv), for a dumped input that a Const op feeds and that is an initializer
of that node at the same input position, with the same element count. A float weight must equal the
model's within the rounding of the dumped dtype (one unit in the last place of the dumped value); an
int8 weight, dequantised with its own scale (a least-squares scale per output channel), within half
a step.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence, Tuple

import numpy as np

from opdiff.dumps.reader import DumpTensor
from opdiff.graph import FusionMap, Op
from opdiff.isolate.decode import logical_array
from opdiff.isolate.tensor_map import producer_desc

# A dequantised int8 weight may sit this far beyond half a step (the scale is fitted, not stored).
STEP_SLACK = 1.01


def weight_mismatches(op: Op, node_inputs: Sequence[str], fusion_map: FusionMap, dumped: Sequence[DumpTensor],
                      weight_of: Callable[[str], Optional[np.ndarray]]) -> Tuple[str, ...]:
    """What differs between the dumped weights of `op` (its one original node, whose data inputs
    are `node_inputs`) and the model's, one text per mismatching input; `weight_of` gives a
    weight's values (None: not one)."""
    if len([name for name in op.original_names if name]) != 1:
        return ()
    node_inputs = [t for t in node_inputs if t]
    found = []
    for k, ref in enumerate(op.inputs):
        producer = fusion_map.producer(ref)
        if producer is None or producer.type != "Const" or k >= len(node_inputs) or k >= len(dumped):
            continue
        expected = weight_of(node_inputs[k])
        if expected is None or expected.size != _elements(dumped[k]):
            continue
        text = _mismatch(logical_array(dumped[k], producer_desc(fusion_map, ref)), expected)
        if text:
            found.append(f"weight mismatch: input {k} ({node_inputs[k]}) {text}")
    return tuple(found)


def _elements(tensor: DumpTensor) -> int:
    count = 1
    for dim in tensor.original_shape or tensor.shape:
        count *= dim
    return count


def _mismatch(dumped: np.ndarray, expected: np.ndarray) -> str:
    """"" when `dumped` is `expected` within its dtype's rounding (one unit in the last place of the
    dumped value, whichever way the converter rounds), else what is beyond it."""
    if dumped.dtype.kind in "iu" and dumped.dtype.itemsize == 1:
        rows = dumped.shape[0] if dumped.ndim else 1
        return _int8_mismatch(dumped.astype(np.float64).reshape(rows, -1), expected.astype(np.float64).reshape(-1))
    if dumped.dtype.kind != "f" and not str(dumped.dtype).startswith(("bfloat", "float8")):
        return ""
    want = expected.reshape(-1).astype(np.float32, copy=False)
    stored = dumped.reshape(-1)
    got = stored.astype(np.float32)
    ulp = _ulp(stored)
    with np.errstate(invalid="ignore", over="ignore"):
        beyond = np.abs(got - want) > ulp
    if not beyond.any():
        return ""
    return (f"{int(beyond.sum())} of {want.size} values beyond {dumped.dtype} rounding "
            f"(max |dumped - model| {float(np.abs(got - want).max()):.4g})")


def _ulp(stored: np.ndarray) -> np.ndarray:
    """One unit in the last place of each stored value, as float32 (ml_dtypes' formats included)."""
    if stored.dtype in (np.float16, np.float32, np.float64):
        spacing: np.ndarray = np.spacing(np.abs(stored)).astype(np.float32)
        return spacing
    import ml_dtypes

    info = ml_dtypes.finfo(stored.dtype)  # type: ignore[no-untyped-call]
    magnitude = np.abs(stored.astype(np.float32))
    exponent = np.floor(np.log2(np.maximum(magnitude, float(info.tiny))))
    ulp: np.ndarray = np.maximum(np.exp2(exponent) * float(info.eps), float(info.smallest_subnormal)).astype(np.float32)
    return ulp


def _int8_mismatch(codes: np.ndarray, want: np.ndarray) -> str:
    rows = codes.shape[0]
    target = want.reshape(rows, -1)
    power = (codes * codes).sum(axis=1)
    scale = np.where(power > 0, (codes * target).sum(axis=1) / np.where(power > 0, power, 1), 0.0)
    step = np.abs(scale)[:, None]
    beyond = np.abs(codes * scale[:, None] - target) > STEP_SLACK * step / 2 + 1e-30
    if not beyond.any():
        return ""
    return f"{int(beyond.sum())} of {want.size} int8 values beyond half a step of their channel's scale"
