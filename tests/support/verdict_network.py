"""A unit-scale generated network and a device run of it in a chosen precision, with an optional fault:
the cases that the default verdict (opdiff.results.verdict) must judge right.

The golden run is a chain of `ops` ops (channel mixing by a random orthogonal matrix, a leaky ReLU,
re-standardised to unit spread) computed in float64 and stored as float32. The device run holds the
golden values rounded to its precision (fp16, bf16, fp32, or int8 quantised with a calibrated scale
and dequantised), so a correct device differs from the golden by rounding alone; a :class:`Fault`
then breaks it in one known way from one op on. A side branch of tiny values hangs off op 1.

Both forms of golden side are written: ``golden/`` (.npy files, compared through ``model.json``,
the fusion rule) and ``reference_npu/`` (float32 Ascend dumps, compared NPU vs NPU by op name).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import ml_dtypes
import numpy as np

from opdiff.conventions.dump_names import device_file_name, golden_file_name
from opdiff.dumps import Tensor, write_dump
from opdiff.dumps.writer import save_npy
from opdiff.graph import OutputDesc
from opdiff.graph.grouping import build_fusion_map
from opdiff.graph.json_export import write_atc_json
from opdiff.graph.provenance import make_op

TIMESTAMP = 1700000000000000
SHAPE = (1, 16, 8, 8)  # N C H W: 16 channels, one C0 group in NC1HWC0
TINY_BRANCH = "tiny_branch"


class Precision(str, Enum):
    FP16 = "fp16"
    BF16 = "bf16"
    FP32 = "fp32"
    INT8 = "int8"  # quantised with a calibrated scale, dequantised to fp16


class FaultKind(str, Enum):
    SCALE = "scale"            # every output from op k on times `value`
    SIGN_FLIP = "sign_flip"    # one channel of 16 negated at op k (cosine ~0.875)
    BIAS = "bias"              # op k's output shifted by `value` times its spread
    SKIPPED = "skipped"        # op k's output all zero (the op did not run)


@dataclass(frozen=True)
class Fault:
    kind: FaultKind
    op: int
    value: float = 0.0


@dataclass(frozen=True)
class VerdictCase:
    npu: Path
    golden: Path
    reference_npu: Path
    rule: Path
    op_names: Tuple[str, ...]  # in execution order; op k is op_names[k]


def op_name(k: int, precision: Precision) -> str:
    # A quantized model's dequantised outputs carry the Ascend marker in their names, as on the device.
    return f"op{k}_dequant" if precision is Precision.INT8 else f"op{k}"


def golden_outputs(ops: int, seed: int) -> List[np.ndarray]:
    """The golden output of every op in float64 (op 0 is the model input)."""
    rng = np.random.default_rng(seed)
    values = [rng.standard_normal(SHAPE)]
    channels = SHAPE[1]
    for _ in range(1, ops):
        mix, _ = np.linalg.qr(rng.standard_normal((channels, channels)))
        y = np.einsum("oc,nchw->nohw", mix, values[-1])
        y = np.where(y > 0, y, 0.2 * y)
        values.append((y - y.mean()) / y.std())
    return values


def _rounded(value: np.ndarray, precision: Precision) -> np.ndarray:
    if precision is Precision.FP16:
        return value.astype(np.float16)
    if precision is Precision.BF16:
        return value.astype(ml_dtypes.bfloat16)
    if precision is Precision.FP32:
        return value.astype(np.float32)
    scale = float(np.max(np.abs(value))) / 127  # calibrated on the tensor itself: its peak is code 127
    codes = np.clip(np.rint(value / scale), -127, 127)
    return (codes * scale).astype(np.float16)


def _faulty(values: List[np.ndarray], fault: Optional[Fault]) -> List[np.ndarray]:
    out = [v.copy() for v in values]
    if fault is None:
        return out
    k = fault.op
    if fault.kind is FaultKind.SCALE:
        for j in range(k, len(out)):
            out[j] = out[j] * fault.value
    elif fault.kind is FaultKind.SIGN_FLIP:
        out[k][:, 0] = -out[k][:, 0]
    elif fault.kind is FaultKind.BIAS:
        out[k] = out[k] + fault.value * out[k].std()
    elif fault.kind is FaultKind.SKIPPED:
        out[k] = np.zeros_like(out[k])
    return out


def _tensor(value: np.ndarray, precision: Precision) -> Tensor:
    layout = "NC1HWC0" if precision in (Precision.FP16, Precision.INT8) and value.ndim == 4 else "ND"
    dtype = {Precision.FP16: "float16", Precision.INT8: "float16", Precision.BF16: "bfloat16"}.get(precision, "float32")
    return Tensor(np.asarray(value, np.float32), layout=layout, dtype=dtype)


def write_verdict_case(folder: Path, precision: Precision, fault: Optional[Fault] = None, *, ops: int = 30,
                       seed: int = 0) -> VerdictCase:
    """Write ``folder/{npu,golden,reference_npu}`` and ``folder/model.json`` for one case."""
    names = tuple(op_name(k, precision) for k in range(ops))
    golden = golden_outputs(ops, seed)
    tiny_golden = golden[1] * (1e-41 if precision in (Precision.FP16, Precision.INT8, Precision.FP32) else 1e-20)
    device = _faulty([_rounded(v, precision) for v in golden], fault)
    tiny_device = _rounded(tiny_golden, precision)  # fp16 (and int8's fp16) flush 1e-41 to 0
    if precision is Precision.BF16:
        tiny_device = np.zeros_like(tiny_device)  # bf16 could hold 1e-20: a device that flushes it (denormals off)
    npu, golden_dir, reference = folder / "npu", folder / "golden", folder / "reference_npu"
    for path in (npu, golden_dir, reference):
        path.mkdir(parents=True, exist_ok=True)

    descs: Dict[str, OutputDesc] = {}
    for name in names + (TINY_BRANCH,):
        descs[name] = OutputDesc(name, 0, "NCHW", SHAPE, "DT_FLOAT")
    graph = [make_op(names[0], "Data", id_=0, output_descs=[descs[names[0]]])]
    for k in range(1, ops):
        graph.append(make_op(names[k], "Conv2D", id_=k, inputs=[f"{names[k - 1]}:0"], original_names=[names[k]],
                             output_descs=[descs[names[k]]]))
    graph.append(make_op(TINY_BRANCH, "Mul", id_=ops, inputs=[f"{names[1]}:0"], original_names=[TINY_BRANCH],
                         output_descs=[descs[TINY_BRANCH]]))
    rule = write_atc_json(build_fusion_map("verdict_case", [("verdict_case_graph", graph)]), folder / "model.json")

    def dump(side: Path, task: int, name: str, op_type: str, inputs: List[Tensor], outputs: List[Tensor]) -> None:
        write_dump(side / device_file_name(op_type, name, task, 1, TIMESTAMP + task), name, inputs=inputs,
                   outputs=outputs)

    for k in range(ops):
        save_npy(golden_dir / golden_file_name(names[k], 0, TIMESTAMP), golden[k].astype(np.float32))
    save_npy(golden_dir / golden_file_name(TINY_BRANCH, 0, TIMESTAMP), tiny_golden.astype(np.float32))
    for k in range(1, ops):
        dump(npu, k, names[k], "Conv2D", [_tensor(device[k - 1], precision)], [_tensor(device[k], precision)])
        dump(reference, k, names[k], "Conv2D", [_tensor(golden[k - 1], Precision.FP32)], [_tensor(golden[k], Precision.FP32)])
    dump(npu, ops, TINY_BRANCH, "Mul", [_tensor(device[1], precision)], [_tensor(tiny_device, precision)])
    dump(reference, ops, TINY_BRANCH, "Mul", [_tensor(golden[1], Precision.FP32)], [_tensor(tiny_golden, Precision.FP32)])
    return VerdictCase(npu, golden_dir, reference, rule, names)
