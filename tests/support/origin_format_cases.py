"""Blocked dumps whose output desc names their axes only in GE's `origin_format` (no
`_datadump_origin_format`), against a golden of another rank, written with the project's writers:
the rule is a GE graph dump (ge_proto text), the dumps are device files, the golden `.npy`.

Each case is a framework op whose desc says ND in the golden's shape (its dump not kept) and the
TransData after it, whose output desc carries `origin_format` and `origin_shape` and whose dump
stores the tensor blocked, its original shape the logical one: the TensorFlow-converted .om of
docs/compare-differences.md (NC1HWC0 [100,2,7,7,16] of NHWC [100,7,7,32] against the [100,1568]
MatMul it was reshaped from). `expected` holds what each compared tensor must give: the golden and
the device values, both flat in the golden's order; `declined` the TensorIndex of each tensor whose
element order does not allow a comparison.

>>> import tempfile
>>> case = origin_format_case(Path(tempfile.mkdtemp()))
>>> sorted(case.expected)[0], case.declined
('conv3d_trans:output:0', ('nhwc_as_nchw_trans:output:0',))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import numpy as np

from opdiff.conventions.dump_names import device_file_name, golden_file_name
from opdiff.dumps import Tensor, write_dump
from opdiff.graph.ge.writer import write_ge_graph_dumps
from opdiff.graph.model_def_builder import model_def, op_def, output_desc
from opdiff.graph.proto import ge_ir_pb2 as ge

TS = 1700000000000000
FAULT = 8.0  # the error put on one element of the faulty tensor


@dataclass(frozen=True)
class OriginCase:
    """One TransData: its stored layout, origin format and logical array (axes in that format),
    and the golden's shape (the logical array reshaped, or `golden` itself where given)."""

    name: str
    layout: str
    origin: str
    logical: np.ndarray
    golden_shape: Tuple[int, ...]
    fault_at: int = -1  # flat index, in the golden's order, of a faulty element (-1: none)


@dataclass
class OriginFormatCase:
    """The folders and rule, and the values each compared tensor must give (golden, device)."""

    my: Path
    golden: Path
    rule: Path
    expected: Dict[str, Tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    declined: Tuple[str, ...] = ()


def _values(rng: np.random.Generator, shape: Sequence[int]) -> np.ndarray:
    # float16-exact values: the device side holds them unrounded, so a right decode gives cosine 1.
    return rng.standard_normal(tuple(shape)).astype(np.float16).astype(np.float32)


def cases(rng: np.random.Generator) -> List[OriginCase]:
    """NHWC, NCHW, HWCN and NCDHW origins, each against a golden of another rank, one faulty; and
    an NHWC tensor against a golden in NCHW order, which the element order does not allow."""
    nhwc = _values(rng, (100, 7, 7, 32))
    return [
        OriginCase("dense_trans", "NC1HWC0", "NHWC", nhwc, (100, 1568)),
        OriginCase("dense_faulty_trans", "NC1HWC0", "NHWC", nhwc, (100, 1568), fault_at=4321),
        OriginCase("nchw_trans", "NC1HWC0", "NCHW", _values(rng, (4, 32, 7, 7)), (4, 32, 49)),
        OriginCase("weights_trans", "FRACTAL_Z", "HWCN", _values(rng, (3, 3, 16, 32)), (144, 32)),
        OriginCase("conv3d_trans", "NDC1HWC0", "NCDHW", _values(rng, (2, 16, 3, 4, 4)), (2, 768)),
        OriginCase("nhwc_as_nchw_trans", "NC1HWC0", "NHWC", _values(rng, (4, 7, 7, 32)), (4, 32, 49)),
    ]


def _ops_of(case: OriginCase, position: int) -> List[ge.OpDef]:
    producer = case.name[: -len("_trans")]
    golden_desc = output_desc(producer, 0, origin_format="ND", origin_shape=list(case.golden_shape), layout="ND")
    trans_desc = output_desc(ge_origin_format=case.origin, origin_shape=list(case.logical.shape), layout=case.layout)
    return [op_def(producer, "MatMulV2", id_=2 * position, original_names=[producer], output_descs=[golden_desc]),
            op_def(case.name, "TransData", id_=2 * position + 1, inputs=[f"{producer}:0"], output_descs=[trans_desc])]


def origin_format_case(root: Path, seed: int = 33) -> OriginFormatCase:
    """Write every case of `cases` under `root` (npu/, golden/, ge/)."""
    rng = np.random.default_rng(seed)
    my, golden = root / "npu", root / "golden"
    my.mkdir(parents=True, exist_ok=True)
    golden.mkdir(parents=True, exist_ok=True)
    ops: List[ge.OpDef] = []
    result = OriginFormatCase(my, golden, root)
    declined: List[str] = []
    for task, case in enumerate(cases(rng), start=1):
        ops += _ops_of(case, task - 1)
        device = case.logical.copy()
        if case.fault_at >= 0:
            device.reshape(-1)[case.fault_at] += FAULT
        write_dump(my / device_file_name("TransData", case.name, task, 1, TS + task), case.name,
                   outputs=[Tensor(device, layout=case.layout, logical_format=case.origin, dtype="float16")])
        flat = case.logical.reshape(-1)
        if case.name == "nhwc_as_nchw_trans":
            flat = case.logical.transpose(0, 3, 1, 2).reshape(-1)  # the golden holds NCHW order
            declined.append(f"{case.name}:output:0")
        else:
            result.expected[f"{case.name}:output:0"] = (flat, device.astype(np.float16).astype(np.float32).reshape(-1))
        np.save(golden / golden_file_name(case.name[: -len("_trans")], 0, TS), flat.reshape(case.golden_shape))
    (rule,) = [path for path in write_ge_graph_dumps(root / "ge", model_def("ge_default", [("ge_default_1", ops)]),
                                                     stages=("Build",)) if path.name.startswith("ge_proto")]
    result.rule, result.declined = rule, tuple(declined)
    return result


__all__ = ["FAULT", "OriginCase", "OriginFormatCase", "cases", "origin_format_case"]
