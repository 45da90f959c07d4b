"""Single-op detail (docs/reference/reference-tool.md §6.2): for one tensor of one op, the worst elements by
absolute and by relative error with their logical coordinates and both values, and an error
histogram. The pair is found exactly as the network comparison finds it (same matching, same
layouts); errors are computed in blocks of the logical arrays, so temporaries stay small.

Definitions, as the reference: AbsoluteError = |x - y|, RelativeError = |x - y| / |y| (NaN or Inf
where y is 0); for ranking, NaN and Inf errors count as 0 (their number is reported beside), ties go
to the larger flat index. Unlike the reference, a tensor with fewer than N elements lists them all.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Iterator, List, Optional, Sequence, Tuple

import numpy as np

from opdiff.conventions.dump_names import escape_op_name
from opdiff.dumps import DumpTensor, read_dump, tensor_metrics
from opdiff.dumps.core_files import TensorView
from opdiff.dumps.reader import view_to_numpy
from opdiff.engine.options import CompareOptions
from opdiff.engine.tensor_engine import layout_views
from opdiff.match.op_matching import OpPlan
from opdiff.match.planning import plan as plan_ops
from opdiff.numerics.values import Metrics
from opdiff.results.rows import TensorId
from opdiff.results.single_op import BLOCK, ElementError, Histogram, SingleOpDetail, axes_of, coords_of

# Histogram bins: exact zero, then decades 1e-10 .. 1e10 (the ends open), then NaN/Inf.
DECADES = tuple(range(-10, 11))


def _read(view: TensorView) -> np.ndarray:
    return view_to_numpy(view)


def _as_float(array: np.ndarray) -> np.ndarray:
    if array.dtype.kind == "c":  # complex: compared as interleaved real and imaginary parts
        return array.view(array.real.dtype)
    return array


def _blocks(x: np.ndarray, y: np.ndarray) -> Iterator[Tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """(start, x, y, |x-y|, |x-y|/|y|) per block, in float64."""
    for start in range(0, x.size, BLOCK):
        xb = x[start:start + BLOCK].astype(np.float64)
        yb = y[start:start + BLOCK].astype(np.float64)
        absolute = np.abs(xb - yb)
        with np.errstate(divide="ignore", invalid="ignore"):
            relative = absolute / np.abs(yb)
        yield start, xb, yb, absolute, relative


def _top_candidates(error: np.ndarray, n: int) -> np.ndarray:
    """Positions of the n largest errors (NaN/Inf as 0), ties to the larger index, exactly."""
    ranked = np.where(np.isfinite(error), error, 0.0)
    if ranked.size <= n:
        return np.arange(ranked.size)
    cut = np.partition(ranked, ranked.size - n)[ranked.size - n]
    above = np.flatnonzero(ranked > cut)
    at = np.flatnonzero(ranked == cut)
    return np.concatenate([above, at[len(at) - (n - len(above)):]])


def _histogram(error: np.ndarray) -> np.ndarray:
    counts = np.zeros(len(DECADES) + 3, dtype=np.int64)
    finite = error[np.isfinite(error)]
    counts[-1] = error.size - finite.size
    counts[0] = np.count_nonzero(finite == 0)
    positive = finite[finite > 0]
    edges = np.array([10.0 ** d for d in DECADES])
    counts[1:-1] += np.bincount(np.searchsorted(edges, positive, side="right"), minlength=len(DECADES) + 1)
    return counts


def _labels() -> Tuple[str, ...]:
    inner = [f"[1e{a},1e{b})" for a, b in itertools.pairwise(DECADES)]
    return ("0", f"<1e{DECADES[0]}", *inner, f">=1e{DECADES[-1]}", "nan/inf")


def _trim(counts: np.ndarray) -> Histogram:
    """Drop empty decades at both ends (keep the zero and nan/inf bins)."""
    labels = _labels()
    used = [k for k in range(1, len(counts) - 1) if counts[k]]
    keep = [0] + (list(range(used[0], used[-1] + 1)) if used else []) + [len(counts) - 1]
    return Histogram(tuple(labels[k] for k in keep), tuple(int(counts[k]) for k in keep))


def detail_of_arrays(my: np.ndarray, golden: np.ndarray, *, top: int = 20, npu_dump: str = "my", ground_truth: str = "golden",
                     tensor: TensorId = TensorId("tensor", "output", 0), metrics: Optional[Metrics] = None) -> SingleOpDetail:
    """The detail of two logical arrays of equal size (my side's shape is used for coordinates).

    >>> import numpy as np
    >>> y = np.arange(1, 9, dtype=np.float32).reshape(2, 4); x = y.copy(); x[1, 2] += 0.5
    >>> d = detail_of_arrays(x, y, top=2)
    >>> d.top_absolute[0].coords, d.top_absolute[0].my, d.top_absolute[0].golden, d.axes
    ((1, 2, 0, 0), 7.5, 7.0, 'N C H W')
    >>> import tempfile, pathlib
    >>> from opdiff.report.single_op.files import write_single_op_files
    >>> d = detail_of_arrays(np.array([1.0, 2.5]), np.array([1.0, 2.0]), tensor=TensorId("a/b", "output", 0))
    >>> [p.name for p in write_single_op_files(d, pathlib.Path(tempfile.mkdtemp()))][:2]
    ['a_b_output_0.npy', 'a_b_output_0_summary.txt']
    """
    if top < 1:
        raise ValueError("top N must be at least 1")
    if my.size != golden.size:
        raise ValueError(f"the two sides differ in size: {my.size} vs {golden.size} elements")
    from opdiff.numerics.core_adapter import metrics as compute_metrics

    shape = tuple(my.shape)
    x, y = _as_float(my).reshape(-1), _as_float(golden).reshape(-1)
    # (ranked error, flat index, my, golden, absolute, relative), best first
    best_abs: List[Tuple[float, int, float, float, float, float]] = []
    best_rel: List[Tuple[float, int, float, float, float, float]] = []
    abs_counts = np.zeros(len(DECADES) + 3, dtype=np.int64)
    rel_counts = np.zeros(len(DECADES) + 3, dtype=np.int64)
    extremes = [math.inf, -math.inf, math.inf, -math.inf]
    nonfinite = 0
    for start, xb, yb, absolute, relative in _blocks(x, y):
        abs_counts += _histogram(absolute)
        rel_counts += _histogram(relative)
        nonfinite += int(relative.size - np.count_nonzero(np.isfinite(relative)))
        for values, at in ((np.where(np.isfinite(absolute), absolute, 0.0), 0), (np.where(np.isfinite(relative), relative, 0.0), 2)):
            if values.size:
                extremes[at] = min(extremes[at], float(values.min()))
                extremes[at + 1] = max(extremes[at + 1], float(values.max()))
        for error, best in ((absolute, best_abs), (relative, best_rel)):
            for k in _top_candidates(error, top):
                ranked = float(error[k]) if math.isfinite(error[k]) else 0.0
                best.append((ranked, start + int(k), float(xb[k]), float(yb[k]), float(absolute[k]), float(relative[k])))
            best.sort(key=lambda item: (item[0], item[1]), reverse=True)
            del best[top:]

    def elements(best: List[Tuple[float, int, float, float, float, float]]) -> Tuple[ElementError, ...]:
        return tuple(ElementError(flat, coords_of(flat, shape), mv, gv, a, r) for _, flat, mv, gv, a, r in best)

    extremes = [0.0 if math.isinf(v) else v for v in extremes]  # empty tensor
    return SingleOpDetail(
        npu_dump, ground_truth, tensor, shape, axes_of(shape), int(x.size),
        metrics if metrics is not None else compute_metrics(my.reshape(-1), golden.reshape(-1)),
        elements(best_abs), elements(best_rel), _trim(abs_counts), _trim(rel_counts),
        extremes[0], extremes[1], extremes[2], extremes[3], nonfinite, my, golden,
    )


# ---------------------------------------------------------------- finding the pair, as compare does


def _matches(plan: OpPlan, name: str) -> bool:
    return name in (plan.op_name, plan.npu_dump) or escape_op_name(name) == escape_op_name(plan.op_name)


def single_op_detail(my: Path, golden: Path, op: str, *, role: str = "output", index: int = 0, top: int = 20,
                     options: Optional[CompareOptions] = None) -> SingleOpDetail:
    """The detail of tensor `role` `index` of NPU op `op`, paired with its golden as `opdiff.compare`
    pairs it (its rules and step from `options`, as there). ValueError when the op, the tensor or its
    partner is missing.

    >>> import numpy as np, opdiff, tempfile, os
    >>> d = tempfile.mkdtemp(); a, b = os.path.join(d, "a"), os.path.join(d, "b"); os.mkdir(a); os.mkdir(b)
    >>> golden = np.arange(6.0).reshape(2, 3); mine = golden.copy(); mine[1, 1] += 2
    >>> _ = opdiff.write_dump(os.path.join(a, "Op.op.1.1.1700000000000001"), "op", outputs=[mine])
    >>> _ = opdiff.write_dump(os.path.join(b, "Op.op.1.1.1700000000000001"), "op", outputs=[golden])
    >>> detail = single_op_detail(a, b, "op", top=1)
    >>> detail.top_absolute[0].coords, detail.top_absolute[0].absolute
    ((1, 1, 0, 0), 2.0)
    """
    if role not in ("input", "output"):
        raise ValueError(f"role must be input or output, got {role!r}")
    options = options or CompareOptions()
    rules = options.read_rules()
    _, plans, my_index, _ = plan_ops(my, golden, fusion_rule=rules.fusion, close_fusion_rule=rules.close,
                                     quant_fusion_rule=rules.quant, step=options.step)
    plan = next((p for p in plans if _matches(p, op)), None)
    if plan is None:
        raise ValueError(f"no op {op!r} in the comparison (looked at {len(plans)} ops of {my_index.folder})")
    if plan.my_path is None:
        raise ValueError(",".join(plan.missing_reasons) or f"{op}: no dump file")
    for path in (plan.my_path, plan.input_target(index).path if role == "input" else plan.output_target(index).path):
        if path is not None and path.endswith(".csv"):  # a statistics dump holds no elements to detail
            raise ValueError(f"{path}: a statistics dump; -op needs the op's full dump (dump_data 'tensor')")
    mine = read_dump(plan.my_path)
    tensors: Sequence[DumpTensor] = mine.inputs if role == "input" else mine.outputs
    if not 0 <= index < len(tensors):
        raise ValueError(f"{op} has {len(tensors)} {role}(s); there is no {role} {index}")
    target = plan.input_target(index) if role == "input" else plan.output_target(index)
    if target.path is None or target.skip:
        raise ValueError(target.reason or f"{op}:{role}:{index} has no golden partner")
    theirs = read_dump(target.path).tensor(target.role, target.index)
    if tensors[index].dtype is None or theirs.dtype is None:
        raise ValueError(f"{op}:{role}:{index}: a data type opdiff cannot decode")
    my_view, golden_view = layout_views(plan.positional_partner is not None, tensors[index], theirs, target, plan.label)
    if my_view.count != golden_view.count:
        raise ValueError(f"{op}:{role}:{index}: shapes differ ({list(my_view.shape)} vs {list(golden_view.shape)})")
    metrics = tensor_metrics(my_view, golden_view)
    return detail_of_arrays(_read(my_view), _read(golden_view), top=top, npu_dump=plan.npu_dump, ground_truth=plan.ground_truth,
                            tensor=plan.tensor(role, index), metrics=metrics)
