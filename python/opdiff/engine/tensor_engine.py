"""The batch engine: turns op plans into rows. Each plan's NPU dump is read once; its tensors go to
the core in one call (``_core.compare_pairs``: partner files from a shared cache, layouts decoded on
the fly, the GIL released), plans run on a thread pool with dynamic scheduling and rows come out in
plan (Index) order."""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import Enum
from typing import Callable, Iterator, List, Optional, Sequence, Tuple

from opdiff._frozen import build_frozen
from opdiff._metrics import ALGORITHMS, Metrics, Note, SideStats, compute_metrics, is_scalar_shape, metrics_from_core
import opdiff._core as _core
from opdiff.conventions.reference_messages import all_zero_in
from opdiff.dumps import DumpFile, DumpFormatError, DumpTensor, read_dump, tensor_stats
from opdiff.dumps.formats import data_type_name, format_number
from opdiff.dumps.reader import dump_of
from opdiff.dumps.ffts import SliceInfo, merged_output
from opdiff.numerics.overflow import reference_overflow_flag
from opdiff.match.op_matching import GoldenTarget, OpPlan
from opdiff.report.rows import CompareRow

NZ_LIKE = ("FRACTAL_NZ", "NDC1HWC0")  # the reference converts these even against an ND golden


class PairStatus(str, Enum):
    """How a pair sent to ``_core.compare_pairs`` came out (cpp/include/opdiff/pair_batch.hpp)."""

    COMPARED = "compared"
    GOLDEN_UNREADABLE = "golden_unreadable"
    MY_TYPE_UNSUPPORTED = "my_type_unsupported"
    GOLDEN_TYPE_UNSUPPORTED = "golden_type_unsupported"
    COUNTS_DIFFER = "counts_differ"
    FAILED = "failed"


@dataclass(frozen=True)
class EngineOptions:
    algorithms: Sequence[str] = ALGORITHMS
    rtol: float = 1e-3
    atol: float = 1e-5
    overflow_detection: bool = False
    threads: Optional[int] = None  # pairs compared at once; None = every core
    max_elements: int = 0  # -max N: compare only the first N elements against a golden (0 = all)


class FileCache:
    """Recently opened partner files, so a golden output feeding several consumers is opened once:
    the core's ``TensorFileCache`` (thread-safe; a file that cannot be read is remembered with its
    error), which the batched comparisons (``_core.compare_pairs``) read directly.

    An open file keeps its mapping, and every page a comparison touched stays resident until the
    file is dropped: the cache therefore holds at most `budget_bytes` of files (default 64 MiB) and
    never a file larger than that. Reopening a big file costs a header parse; the bytes come back
    from the page cache."""

    def __init__(self, capacity: int = 256, budget_bytes: int = 64 << 20) -> None:
        self.core = _core.TensorFileCache(capacity, budget_bytes)

    def get(self, path: str) -> DumpFile:
        return dump_of(self.core.get(path), path)


def _dtype_name(tensor: DumpTensor) -> str:
    return tensor.dtype or tensor.data_type_name


def _overflow(tensor: DumpTensor, stats: SideStats) -> Optional[bool]:
    """The OverFlow column: the reference's fp16 test (numerics.overflow)."""
    return reference_overflow_flag(tensor.dtype, stats)


def _reasons(metrics: Metrics, algorithms: Sequence[str], my_path: str, golden_path: str) -> Tuple[str, ...]:
    """The notes of a compared pair in the reference's words: cosine and KL messages only when
    those metrics were asked for, the all-zero side named by its file; two all-zero sides need no
    message (the cosine cell's literal 1.0 says it)."""
    reasons = []
    for note in metrics.notes:
        if note in (Note.BOTH_ZERO, Note.KL_SKIPPED):
            continue
        if note in (Note.SCALAR, Note.MY_ZERO, Note.GOLDEN_ZERO) and "CosineSimilarity" not in algorithms:
            continue
        if note is Note.KL_GOLDEN_ZERO and "KullbackLeiblerDivergence" not in algorithms:
            continue
        if note is Note.MY_ZERO:
            reasons.append(all_zero_in(my_path))
        elif note is Note.GOLDEN_ZERO:
            reasons.append(all_zero_in(golden_path))
        else:
            reasons.append(note.value)
    return tuple(reasons)


def _shape_note(positional: bool, my_shape: Tuple[int, ...], golden_shape: Tuple[int, ...]) -> Tuple[str, ...]:
    """NPU against NPU, equal element counts in different shapes are compared flat; the row says so
    (the reference drops such tensors without a row)."""
    if positional and my_shape != golden_shape:
        return (f"The shapes differ ({list(my_shape)} vs {list(golden_shape)}): compared element by element in flat order.",)
    return ()


def _golden_is_nd(target: GoldenTarget) -> bool:
    return target.format in (None, "", "ND")


def my_layout(positional: bool, target: GoldenTarget) -> Optional[str]:
    """The format my tensor is laid out in to meet its partner: the golden file's (with the
    golden's shape, padding removed), or None for each side in its own logical layout (NPU against
    NPU, or against an ND golden)."""
    return None if positional or _golden_is_nd(target) else target.format


def _reference_shape(positional: bool, mine: DumpTensor, target: GoldenTarget, count: int) -> Optional[Tuple[int, ...]]:
    """The Shape the reference prints, when it is not the compared logical shape: NPU vs NPU the
    stored dump shape; against a golden in ND (or for a scalar-shaped tensor) the flat length,
    since it then compares without converting the layout (§4.4), except from FRACTAL_NZ/NDC1HWC0."""
    if positional:
        return tuple(mine.shape)
    golden_nd = _golden_is_nd(target) and mine.format_name not in NZ_LIKE
    if golden_nd or is_scalar_shape(mine.shape):
        return (count,)
    return None


def layout_views(plan_is_positional: bool, mine: DumpTensor, theirs: DumpTensor, target: GoldenTarget):
    """The two layout views to compare. Against a golden file, my tensor is laid out in the golden's
    format and shape (padding removed); NPU against NPU, each side in its own logical layout."""
    golden_view = theirs.view()
    layout = my_layout(plan_is_positional, target)
    if layout is None:
        return mine.view(), golden_view
    return mine.view(layout, tuple(golden_view.shape)), golden_view


class Engine:
    """Runs plans; one instance per comparison (it holds the partner-file cache)."""

    def __init__(self, options: EngineOptions) -> None:
        self.options = options
        self.files = FileCache()
        self._kl = "KullbackLeiblerDivergence" in options.algorithms
        self._pair_threads = 1  # threads inside one pair; more when there are fewer plans than cores

    def rows(self, plans: Sequence[OpPlan], on_plan_done: Optional[Callable[[OpPlan, List[CompareRow]], None]] = None) -> Iterator[CompareRow]:
        """Rows of every plan, in plan order, computed concurrently."""
        workers = self.options.threads or os.cpu_count() or 1
        # Plans run side by side, one thread each; with fewer plans than threads (one huge pair),
        # each pair splits its chunks over all of them instead.
        self._pair_threads = 1 if len(plans) >= workers else workers
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="opdiff")
        try:
            for plan, rows in zip(plans, pool.map(self.plan_rows, plans)):
                if on_plan_done is not None:
                    on_plan_done(plan, rows)
                yield from rows
        finally:
            # On Ctrl-C (or a consumer that stops early) drop the queued ops instead of finishing them.
            pool.shutdown(wait=True, cancel_futures=True)

    def plan_rows(self, plan: OpPlan) -> List[CompareRow]:
        """The rows of one op: one per tensor of its dump (or one saying why there are none)."""
        if plan.my_path is None:
            return [self._row(plan, "NaN", reasons=(plan.missing_reason or "no dump file",))]
        if plan.my_slices:
            return self._sliced_rows(plan)
        try:
            mine = read_dump(plan.my_path)
        except (DumpFormatError, OSError) as error:
            return [self._row(plan, "NaN", reasons=(f"[{plan.op_name}] {error}",))]
        rows: List[Optional[CompareRow]] = []
        pending: List[Tuple[int, str, DumpTensor, GoldenTarget]] = []  # rows the core fills in
        requests = []
        positional = plan.positional_partner is not None
        for role, tensors, target_of in (("input", mine.inputs, plan.input_target), ("output", mine.outputs, plan.output_target)):
            for k, tensor in enumerate(tensors):
                target = target_of(k)
                if target.skip:
                    continue
                tensor_index = f"{plan.op_name}:{role}:{k}"
                if target.path is None:
                    rows.append(self._row(plan, tensor_index, reasons=(target.reason or "no partner",), **self._lone_fields(tensor)))
                    continue
                pending.append((len(rows), tensor_index, tensor, target))
                rows.append(None)
                layout = my_layout(positional, target)
                # The reference applies -max against golden files only, not NPU against NPU.
                requests.append((role, k, target.path, target.role, target.index, None if layout is None else format_number(layout),
                                 0 if positional else self.options.max_elements))
        if requests:
            outcomes = _core.compare_pairs(mine.tensors[0]._file, requests, self.files.core, rtol=self.options.rtol,
                                           atol=self.options.atol, kl=self._kl, threads=self._pair_threads)
            for (slot, tensor_index, tensor, target), outcome in zip(pending, outcomes):
                rows[slot] = self._pair_row(plan, tensor_index, tensor, target, outcome)
        if not rows:
            return [self._row(plan, "NaN", reasons=(f"[{plan.op_name}] the dump holds no tensor to compare",))]
        return rows  # type: ignore[return-value]  # every slot is filled

    def _sliced_rows(self, plan: OpPlan) -> List[CompareRow]:
        """An FFTS+ op: its outputs joined from every slice, compared as arrays (inputs are not joined)."""
        try:
            slices = [read_dump(path) for path in plan.my_slices]
            info = SliceInfo.from_dump(slices[0])
        except (DumpFormatError, OSError) as error:
            return [self._row(plan, "NaN", reasons=(f"[{plan.op_name}] {error}",))]
        rows = [self._row(plan, f"{plan.op_name}:input:{k}", reasons=(f"[{plan.op_name}] input of an FFTS+ sliced op: slices are not joined for inputs",))
                for k in range(len(slices[0].inputs))]
        for k, first in enumerate(slices[0].outputs):
            target = plan.output_target(k)
            tensor_index = f"{plan.op_name}:output:{k}"
            if target.skip:
                continue
            if target.path is None:
                rows.append(self._row(plan, tensor_index, reasons=(target.reason or "no partner",)))
                continue
            notes: List[str] = []
            try:
                mine = merged_output(slices, k, info, notes)
                theirs = self.files.get(target.path).tensor(target.role, target.index)
                golden = theirs.to_numpy()
                if mine.size != golden.size:
                    raise ValueError(f"[{plan.op_name}] joined slices hold {list(mine.shape)}, the golden {list(golden.shape)}")
                limit = self.options.max_elements or mine.size
                metrics = compute_metrics(mine.reshape(-1)[:limit], golden.reshape(-1)[:limit], algorithms=self.options.algorithms, rtol=self.options.rtol,
                                          atol=self.options.atol, threads=1)
            except (DumpFormatError, ValueError, OSError) as error:
                rows.append(self._row(plan, tensor_index, reasons=(str(error),)))
                continue
            rows.append(CompareRow(
                index=plan.index, op_type=plan.op_type, npu_dump=plan.npu_dump, ground_truth=plan.ground_truth,
                tensor_index=tensor_index, my_dtype=_dtype_name(first), my_address=str(first.address),
                golden_dtype=_dtype_name(theirs), golden_address=str(theirs.address), shape=tuple(mine.shape),
                op_sequence=plan.op_sequence,
                overflow=_overflow(first, metrics.x) if self.options.overflow_detection else None,
                metrics=metrics, reasons=tuple(notes) + _reasons(metrics, self.options.algorithms, plan.my_slices[0], target.path),
            ))
        return rows

    def _lone_fields(self, mine: DumpTensor) -> dict:
        """The fields a row of my tensor has before (or without) a comparison."""
        return dict(my_dtype=None, my_address=str(mine.address), shape=mine.shape, overflow=self._lone_overflow(mine))

    def _pair_row(self, plan: OpPlan, tensor_index: str, mine: DumpTensor, target: GoldenTarget, outcome: dict) -> CompareRow:
        """The row of one pair from the core's outcome (``_core.compare_pairs``), with the reasons in
        the reference's words when it could not be compared."""
        status = PairStatus(outcome["status"])
        if status is not PairStatus.COMPARED:
            if status is PairStatus.GOLDEN_UNREADABLE:
                reason = f"[{plan.op_name}] {outcome['message']}"
            elif status in (PairStatus.MY_TYPE_UNSUPPORTED, PairStatus.GOLDEN_TYPE_UNSUPPORTED):
                name = mine.data_type_name if status is PairStatus.MY_TYPE_UNSUPPORTED else data_type_name(outcome["golden_data_type"])
                reason = f"[{plan.op_name}] The data type {name} is not supported."
            elif status is PairStatus.COUNTS_DIFFER:
                reason = (f"[{plan.op_name}] Due to the different shapes on the left and right, the left dump data"
                          f"({outcome['my_shape']}) can not be compared to the right dump data({outcome['golden_shape']}).")
            else:
                reason = outcome["message"]
            return self._row(plan, tensor_index, reasons=(reason,), **self._lone_fields(mine))
        metrics = metrics_from_core(outcome["metrics"])
        positional = plan.positional_partner is not None
        my_shape, golden_shape = tuple(outcome["my_shape"]), tuple(outcome["golden_shape"])
        # One row per compared pair: built from its field dict (opdiff._frozen), every field given.
        return build_frozen(CompareRow, {
            "index": plan.index,
            "op_type": plan.op_type,
            "npu_dump": plan.npu_dump,
            "ground_truth": plan.ground_truth,
            "tensor_index": tensor_index,
            "my_dtype": _dtype_name(mine),
            "my_address": str(mine.address),
            "golden_dtype": outcome["golden_dtype"] or data_type_name(outcome["golden_data_type"]),
            "golden_address": str(outcome["golden_address"]),
            "shape": my_shape,
            "reference_shape": _reference_shape(positional, mine, target, math.prod(my_shape)),
            "op_sequence": plan.op_sequence,
            "overflow": _overflow(mine, metrics.x) if self.options.overflow_detection else None,
            "metrics": metrics,
            "reasons": _shape_note(positional, my_shape, golden_shape) + _reasons(metrics, self.options.algorithms, plan.my_path or "", target.path or ""),
        })

    def _lone_overflow(self, mine: DumpTensor) -> Optional[bool]:
        """Overflow of a tensor that has no partner: the reference still checks my side."""
        if not self.options.overflow_detection or mine.dtype != "float16":
            return None
        try:
            return _overflow(mine, tensor_stats(mine.view(as_stored=True), threads=1))
        except (DumpFormatError, ValueError, OSError):
            return None

    @staticmethod
    def _row(plan: OpPlan, tensor_index: str, reasons: Tuple[str, ...], **fields: object) -> CompareRow:
        return CompareRow(
            index=plan.index,
            op_type=plan.op_type,
            npu_dump=plan.npu_dump,
            ground_truth=plan.ground_truth,
            tensor_index=tensor_index,
            op_sequence=plan.op_sequence,
            reasons=reasons,
            **fields,  # type: ignore[arg-type]
        )
