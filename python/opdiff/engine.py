"""The batch engine: turns op plans into rows. Each plan's NPU dump is read once; its tensors are
compared with their partners through the core (layouts decoded on the fly, GIL released), plans run
on a thread pool with dynamic scheduling and rows come out in plan (Index) order."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterator, List, Optional, Sequence, Tuple

from opdiff._metrics import ALGORITHMS, Metrics, Note, SideStats, compute_metrics
from opdiff.dumps import DumpFile, DumpFormatError, DumpTensor, read_dump, tensor_metrics, tensor_stats
from opdiff.dumps.ffts import SliceInfo, merged_output
from opdiff.match import GoldenTarget, OpPlan
from opdiff.report.rows import CompareRow

FP16_OVERFLOW = 65504.0
NZ_LIKE = ("FRACTAL_NZ", "NDC1HWC0")  # the reference converts these even against an ND golden


@dataclass(frozen=True)
class EngineOptions:
    algorithms: Sequence[str] = ALGORITHMS
    rtol: float = 1e-3
    atol: float = 1e-5
    overflow_detection: bool = False
    threads: Optional[int] = None  # pairs compared at once; None = every core
    max_elements: int = 0  # -max N: compare only the first N elements against a golden (0 = all)


class FileCache:
    """Recently opened partner files, so a golden output feeding several consumers is opened once.
    Thread-safe; a file that cannot be read is remembered with its error.

    An open file keeps its mapping, and every page a comparison touched stays resident until the
    file is closed: the cache therefore holds at most `budget_bytes` of files (default 64 MiB) and
    never a file larger than that. Reopening a big file costs a header parse; the bytes come back
    from the page cache."""

    def __init__(self, capacity: int = 256, budget_bytes: int = 64 << 20) -> None:
        self._capacity = capacity
        self._budget = budget_bytes
        self._files: "OrderedDict[str, Tuple[object, int]]" = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, path: str) -> DumpFile:
        with self._lock:
            if path in self._files:
                self._files.move_to_end(path)
                found = self._files[path][0]
                if isinstance(found, Exception):
                    raise found
                return found  # type: ignore[return-value]
        try:
            opened: object = read_dump(path)
            size = os.path.getsize(path)
        except (DumpFormatError, OSError) as error:
            opened, size = error, 0
        if size <= self._budget:
            with self._lock:
                if path not in self._files:
                    self._files[path] = (opened, size)
                    self._bytes += size
                while len(self._files) > self._capacity or self._bytes > self._budget:
                    _, (_, dropped) = self._files.popitem(last=False)
                    self._bytes -= dropped
        if isinstance(opened, Exception):
            raise opened
        return opened  # type: ignore[return-value]


def _dtype_name(tensor: DumpTensor) -> str:
    return tensor.dtype or tensor.data_type_name


def _overflow(tensor: DumpTensor, stats: SideStats) -> Optional[bool]:
    """fp16 overflow as the reference detects it: max |x| >= 65504 (Inf counts, NaN alone does not)."""
    if tensor.dtype != "float16":
        return None
    return bool(stats.pos_inf or stats.neg_inf or max(abs(stats.min), abs(stats.max)) >= FP16_OVERFLOW)


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
            reasons.append(f"Cannot compare by Cosine Similarity. All the data is zero in {my_path}.")
        elif note is Note.GOLDEN_ZERO:
            reasons.append(f"Cannot compare by Cosine Similarity. All the data is zero in {golden_path}.")
        else:
            reasons.append(note.value)
    return tuple(reasons)


def _shape_note(positional: bool, my_view, golden_view) -> Tuple[str, ...]:
    """NPU against NPU, equal element counts in different shapes are compared flat; the row says so
    (the reference drops such tensors without a row)."""
    if positional and tuple(my_view.shape) != tuple(golden_view.shape):
        return (f"The shapes differ ({list(my_view.shape)} vs {list(golden_view.shape)}): compared element by element in flat order.",)
    return ()


def _is_scalar_shape(shape: Sequence[int]) -> bool:
    """The reference's "scalar" shape type: the dims sum to their count ([], [1], [1, 1], also [2, 0])."""
    return sum(shape) == len(shape)


def _reference_shape(positional: bool, mine: DumpTensor, target: GoldenTarget, count: int) -> Optional[Tuple[int, ...]]:
    """The Shape the reference prints, when it is not the compared logical shape: NPU vs NPU the
    stored dump shape; against a golden in ND (or for a scalar-shaped tensor) the flat length,
    since it then compares without converting the layout (§4.4), except from FRACTAL_NZ/NDC1HWC0."""
    if positional:
        return tuple(mine.shape)
    golden_nd = target.format in (None, "", "ND") and mine.format_name not in NZ_LIKE
    if golden_nd or _is_scalar_shape(mine.shape):
        return (count,)
    return None


def layout_views(plan_is_positional: bool, mine: DumpTensor, theirs: DumpTensor, target: GoldenTarget):
    """The two layout views to compare. Against a golden file, my tensor is laid out in the golden's
    format and shape (padding removed); NPU against NPU, each side in its own logical layout."""
    golden_view = theirs.view()
    if plan_is_positional or target.format in (None, "", "ND"):
        return mine.view(), golden_view
    return mine.view(target.format, tuple(golden_view.shape)), golden_view


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
        rows: List[CompareRow] = []
        for role, tensors, target_of in (("input", mine.inputs, plan.input_target), ("output", mine.outputs, plan.output_target)):
            for k, tensor in enumerate(tensors):
                target = target_of(k)
                if not target.skip:
                    rows.append(self._tensor_row(plan, f"{plan.op_name}:{role}:{k}", tensor, target))
        if not rows:
            rows.append(self._row(plan, "NaN", reasons=(f"[{plan.op_name}] the dump holds no tensor to compare",)))
        return rows

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

    def _tensor_row(self, plan: OpPlan, tensor_index: str, mine: DumpTensor, target: GoldenTarget) -> CompareRow:
        base = dict(my_dtype=None, my_address=str(mine.address), shape=mine.shape, overflow=self._lone_overflow(mine))
        if target.path is None:
            return self._row(plan, tensor_index, reasons=(target.reason or "no partner",), **base)
        try:
            theirs = self.files.get(target.path).tensor(target.role, target.index)
        except (DumpFormatError, OSError) as error:
            return self._row(plan, tensor_index, reasons=(f"[{plan.op_name}] {error}",), **base)
        if mine.dtype is None or theirs.dtype is None:
            unsupported = mine if mine.dtype is None else theirs
            return self._row(
                plan, tensor_index, reasons=(f"[{plan.op_name}] The data type {unsupported.data_type_name} is not supported.",), **base
            )
        positional = plan.positional_partner is not None
        try:
            my_view, golden_view = layout_views(positional, mine, theirs, target)
            if my_view.count != golden_view.count:
                raise ValueError(
                    f"[{plan.op_name}] Due to the different shapes on the left and right, the left dump data"
                    f"({list(my_view.shape)}) can not be compared to the right dump data({list(golden_view.shape)})."
                )
            # The reference applies -max against golden files only, not NPU against NPU.
            metrics = tensor_metrics(my_view, golden_view, rtol=self.options.rtol, atol=self.options.atol, kl=self._kl,
                                     threads=self._pair_threads, max_elements=0 if positional else self.options.max_elements)
        except (DumpFormatError, ValueError, OSError) as error:
            return self._row(plan, tensor_index, reasons=(str(error),), **base)
        return CompareRow(
            index=plan.index,
            op_type=plan.op_type,
            npu_dump=plan.npu_dump,
            ground_truth=plan.ground_truth,
            tensor_index=tensor_index,
            my_dtype=_dtype_name(mine),
            my_address=str(mine.address),
            golden_dtype=_dtype_name(theirs),
            golden_address=str(theirs.address),
            shape=tuple(my_view.shape),
            reference_shape=_reference_shape(positional, mine, target, my_view.count),
            op_sequence=plan.op_sequence,
            overflow=_overflow(mine, metrics.x) if self.options.overflow_detection else None,
            metrics=metrics,
            reasons=_shape_note(positional, my_view, golden_view) + _reasons(metrics, self.options.algorithms, plan.my_path or "", target.path),
        )

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
