"""The batch engine: turns op plans into rows. Each plan's NPU dump is opened once, on the core's pool
ahead of time (``_core.FileOpening``); the tensor pairs of many plans go to the core in one batch
(``_core.PairBatch``: partner files from a shared cache, layouts decoded on the fly, run on the
core's thread pool without the GIL). While the core opens and compares the next batches, the engine
turns the last one's outcomes into rows, which come out in plan (Index) order whatever the thread
count. The interpreter's thread reads no tensor bytes: it works from the core's TensorEntry
headers."""

from __future__ import annotations

import dataclasses
import math
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Deque, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import opdiff._core as _core
from opdiff.conventions.reference_messages import all_zero_in, shapes_differ, unsupported_data_type
from opdiff.dumps import DumpFile, DumpFormatError, DumpTensor, read_dump, tensor_stats
from opdiff.dumps.formats import data_type_name, format_name, format_number
from opdiff.dumps.reader import dump_of, view_to_numpy
from opdiff.engine.layout_choice import NZ_LIKE, decoded_form, golden_is_nd
from opdiff.engine.options import CompareOptions
from opdiff.fileio.phase_marks import mark_phase
from opdiff.match.op_matching import GoldenTarget, OpPlan
from opdiff.numerics.core_results import is_scalar_shape, metrics_from_fields
from opdiff.numerics.overflow import reference_overflow_flag
from opdiff.numerics.schema import COSINE_SIMILARITY, KULLBACK_LEIBLER_DIVERGENCE
from opdiff.numerics.values import Metrics, Note, SideStats
from opdiff.results.rows import CompareRow, TensorId

if TYPE_CHECKING:
    import numpy as np

    from opdiff.plugins.algorithms import AlgorithmRunner
    from opdiff.plugins.converters import ConverterSet

# A batch of pairs closes at this many pairs or this many bytes of my tensors: big enough that the
# core's threads stay busy and the per-call cost vanishes, small enough that rows (and progress)
# come out steadily and Ctrl-C is handled within a batch's time.
PAIRS_PER_BATCH = 32
BYTES_PER_BATCH = 4 << 20
# NPU dumps are opened this many plans at a time, two such chunks ahead of the plans being prepared,
# so their bytes are read on the core's workers while this thread builds rows. What that holds ahead
# is bounded: a dump is read whole only up to 1 MiB (cpp/include/opdiff/file_bytes.hpp), larger
# ones are mapped, so about 32 MiB at most.
PLANS_PER_OPENING = 16
OPENINGS_AHEAD = 2

_ROLES = {"input": _core.TensorRole.input, "output": _core.TensorRole.output, "buffer": _core.TensorRole.buffer,
          "workspace": _core.TensorRole.workspace}
_INPUT, _OUTPUT = _core.TensorRole.input, _core.TensorRole.output


class FileCache:
    """Recently opened partner files, so a golden output feeding several consumers is opened once:
    the core's ``TensorFileCache`` (thread-safe; a file that cannot be read is remembered with its
    error), which the batched comparisons (``_core.PairBatch``) read directly.

    An open file keeps its bytes in memory (a small file is read whole, a big one mapped, and every
    page a comparison touched stays resident) until it is dropped: the cache therefore holds at
    most the core's default budget of files (16 MiB, cpp/include/opdiff/tensor_file_cache.hpp says
    why) and never a file larger than that. Reopening a file costs a header parse and, for a small
    one, a copy out of the page cache."""

    def __init__(self) -> None:
        self.core = _core.TensorFileCache()

    def get(self, path: str) -> DumpFile:
        return dump_of(self.core.get(path), path)


def _dtype_name(tensor: Union[_core.TensorEntry, DumpTensor]) -> str:
    return tensor.dtype or data_type_name(tensor.data_type)


def _overflow(tensor: Union[_core.TensorEntry, DumpTensor], stats: SideStats) -> Optional[bool]:
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
        if note in (Note.SCALAR, Note.MY_ZERO, Note.GOLDEN_ZERO) and COSINE_SIMILARITY not in algorithms:
            continue
        if note is Note.KL_GOLDEN_ZERO and KULLBACK_LEIBLER_DIVERGENCE not in algorithms:
            continue
        if note is Note.MY_ZERO:
            reasons.append(all_zero_in(my_path))
        elif note is Note.GOLDEN_ZERO:
            reasons.append(all_zero_in(golden_path))
        else:
            reasons.append(note.value)
    return tuple(reasons)


def element_order_differs(label: str, my_shape: Sequence[int], golden_shape: Sequence[int]) -> str:
    """My tensor's original shape and the golden's hold as many elements, but neither is the other
    with axes merged or split (nor NCHW against NHWC): flat, they may not be in the same order."""
    return (f"[{label}] The original shape {list(my_shape)} and the golden's {list(golden_shape)} hold as many elements "
            "but are not one reshape of the other: their element orders may differ, so they are not compared.")


def _shape_note(positional: bool, my_shape: Tuple[int, ...], golden_shape: Tuple[int, ...]) -> Tuple[str, ...]:
    """NPU against NPU, equal element counts in different shapes are compared flat; the row says so
    (the reference drops such tensors without a row)."""
    if positional and my_shape != golden_shape:
        return (f"The shapes differ ({list(my_shape)} vs {list(golden_shape)}): compared element by element in flat order.",)
    return ()


def _reference_shape(positional: bool, mine: _core.TensorEntry, target: GoldenTarget, count: int) -> Optional[Tuple[int, ...]]:
    """The Shape the reference prints, when it is not the compared logical shape: NPU vs NPU the
    stored dump shape; against a golden in ND (or for a scalar-shaped tensor) the flat length,
    since it then compares without converting the layout (docs/reference/reference-tool.md §4.4), except from FRACTAL_NZ/NDC1HWC0."""
    if positional:
        return tuple(mine.shape)
    golden_nd = golden_is_nd(target) and format_name(mine.format) not in NZ_LIKE
    if golden_nd or is_scalar_shape(mine.shape):
        return (count,)
    return None


def layout_views(plan_is_positional: bool, mine: DumpTensor, theirs: DumpTensor, target: GoldenTarget,
                 label: str) -> Tuple[_core.TensorView, _core.TensorView]:
    """The two layout views to compare, as the batch engine lays them out: against a golden file,
    my tensor in its own original shape and origin format where it states them (reconciled with
    the golden's shape by the core), else in the golden's format and shape (padding removed); NPU
    against NPU, each side in its own logical layout. ValueError when the element orders may differ."""
    golden_view = theirs.view()
    layout, own_shape = decoded_form(plan_is_positional, mine.format, mine.shape, mine.original_shape, mine.origin_format, target)
    if layout is None:
        return mine.view(), golden_view
    golden_shape = tuple(golden_view.shape)
    if own_shape is None:
        return mine.view(layout, golden_shape), golden_view
    laid_out = _core.reconcile_layout(format_number(layout), own_shape, golden_shape)
    if laid_out is None:
        raise ValueError(element_order_differs(label, own_shape, golden_shape))
    return mine.view(laid_out[0], laid_out[1]), golden_view


@dataclass
class _PlanWork:
    """One plan on its way to rows: the rows known before the core runs, and a None slot for each
    pair the core compares (``pairs``: slot, TensorIndex, my tensor's header, its partner)."""

    plan: OpPlan
    rows: List[Optional[CompareRow]]
    file: Optional[_core.TensorFile] = None  # my dump, open
    pairs: List[Tuple[int, TensorId, _core.TensorEntry, GoldenTarget]] = field(default_factory=list)


@dataclass
class _Batch:
    """Plans whose pairs run in one core batch (started when made; None when they need no core)."""

    works: List[_PlanWork]
    core: Optional[_core.PairBatch]
    first: int = 0  # the position of its first plan in the comparison's plans


def _with_opened_dumps(plans: Sequence[OpPlan]) -> Iterator[Tuple[OpPlan, Optional[_core.OpenedFile]]]:
    """Each plan with its NPU dump opened (None for a plan without one, or an FFTS+ sliced op, which
    reads its slices itself). The dumps are opened PLANS_PER_OPENING plans at a time on the core's
    pool, OPENINGS_AHEAD chunks ahead of the plan handed out, so their bytes are read while this
    thread works on earlier plans; an early stop (Ctrl-C, a consumer that stops) cancels the rest."""
    chunks = [plans[start:start + PLANS_PER_OPENING] for start in range(0, len(plans), PLANS_PER_OPENING)]
    openings: Deque[_core.FileOpening] = deque()

    def open_chunk(k: int) -> None:
        if k < len(chunks):
            openings.append(_core.FileOpening([path for path in map(_dump_to_open, chunks[k]) if path is not None]))

    try:
        for k in range(OPENINGS_AHEAD):
            open_chunk(k)
        for k, chunk in enumerate(chunks):
            opened = iter(openings[0].wait())
            openings.popleft()
            open_chunk(k + OPENINGS_AHEAD)
            for plan in chunk:
                yield plan, None if _dump_to_open(plan) is None else next(opened)
    finally:
        for opening in openings:
            opening.cancel()


def _read_ahead(plans: Sequence[OpPlan]) -> _core.ReadAhead:
    """The core's read-ahead of the plans' files, in the order the batches reach them: on a cold
    disk their pages are read in big sequential reads beside the comparison, instead of by its page
    faults one read-ahead window at a time (cpp/include/opdiff/read_ahead.hpp)."""
    paths: List[str] = []
    stops: List[int] = []
    for plan in plans:
        stops.append(len(paths))
        if plan.my_path is not None:
            paths.append(plan.my_path)
        paths.extend(target.path for target in plan.inputs + plan.outputs if target.path is not None and not target.skip)
    return _core.ReadAhead(paths, stops)


def _dump_to_open(plan: OpPlan) -> Optional[str]:
    """The one dump file of the plan's op, if it has one (an FFTS+ sliced op has several)."""
    return None if plan.my_slices else plan.my_path


class Engine:
    """Runs plans; one instance per comparison (it holds the partner-file cache)."""

    def __init__(self, options: CompareOptions) -> None:
        self.options = options
        self.files = FileCache()
        self._kl = KULLBACK_LEIBLER_DIVERGENCE in options.algorithms
        # Plug-in algorithms (-c, -alg Name) are loaded once here; without them no row does any
        # work for them (the built-in path stays as it is).
        self._custom: Optional[AlgorithmRunner] = None
        plugins = options.plugin_set
        if options.custom_algorithms and plugins is not None:
            from opdiff.plugins import parse_algorithm_options
            from opdiff.plugins.algorithms import AlgorithmRunner

            self._custom = AlgorithmRunner(plugins, options.custom_algorithms, parse_algorithm_options(options.algorithm_options))
        self._converters: Optional[ConverterSet] = None
        if plugins is not None and plugins.converters:
            from opdiff.plugins.converters import ConverterSet

            self._converters = ConverterSet(plugins)

    def rows(self, plans: Sequence[OpPlan], on_plan_done: Optional[Callable[[OpPlan, List[CompareRow]], None]] = None) -> Iterator[CompareRow]:
        """Rows of every plan, in plan order. The next batch is started before the rows of the
        current one are built and handed on, so the core is never idle while Python works."""
        running: List[_Batch] = []  # at most two: the one being finished and the next
        ahead = _read_ahead(plans)
        try:
            for batch in self._batches(plans):
                running.append(batch)
                if batch.first == 0:
                    mark_phase("first-batch")
                if len(running) == 2:
                    yield from self._finish(running[0], on_plan_done)
                    running.pop(0)
                    ahead.advance(running[0].first)
            while running:
                yield from self._finish(running[0], on_plan_done)
                running.pop(0)
        finally:
            ahead.stop()
            # On Ctrl-C (or a consumer that stops early) start no more pairs; wait for those running.
            for batch in running:
                if batch.core is not None:
                    batch.core.cancel()

    def _batches(self, plans: Sequence[OpPlan]) -> Iterator[_Batch]:
        """The plans in consecutive batches of at most PAIRS_PER_BATCH pairs or BYTES_PER_BATCH bytes,
        each started on the core as it is made."""
        works: List[_PlanWork] = []
        requests: List[_core.PairRequest] = []
        size = first = 0
        for position, (plan, opened) in enumerate(_with_opened_dumps(plans)):
            work = self._prepare(plan, opened, requests)
            works.append(work)
            size += sum(pair[2].size for pair in work.pairs)
            if len(requests) >= PAIRS_PER_BATCH or size >= BYTES_PER_BATCH:
                yield self._start(works, requests, first)
                works, requests, size, first = [], [], 0, position + 1
        if works:
            yield self._start(works, requests, first)

    def _start(self, works: List[_PlanWork], requests: List[_core.PairRequest], first: int) -> _Batch:
        if not requests:
            return _Batch(works, None, first)
        core = _core.PairBatch(requests, self.files.core, rtol=self.options.rtol, atol=self.options.atol, kl=self._kl,
                               threads=self.options.threads or 0)
        return _Batch(works, core, first)

    def _finish(self, batch: _Batch, on_plan_done: Optional[Callable[[OpPlan, List[CompareRow]], None]]) -> Iterator[CompareRow]:
        """The rows of a started batch, plan by plan, once the core is done with it."""
        outcomes = iter(batch.core.wait() if batch.core is not None else ())
        for work in batch.works:
            # The outcomes are in request order, the plans' pairs one after another; zip takes from
            # work.pairs first, so it never consumes the next plan's outcome.
            for (slot, identity, tensor, target), outcome in zip(work.pairs, outcomes):
                work.rows[slot] = self._pair_row(work, identity, tensor, target, outcome)
            rows: List[CompareRow] = work.rows  # type: ignore[assignment]  # every slot is filled now
            if on_plan_done is not None:
                on_plan_done(work.plan, rows)
            yield from rows

    def plan_rows(self, plan: OpPlan) -> List[CompareRow]:
        """The rows of one op: one per tensor of its dump (or one saying why there are none)."""
        return list(self.rows([plan]))

    def _prepare(self, plan: OpPlan, opened: Optional[_core.OpenedFile], requests: List[_core.PairRequest]) -> _PlanWork:
        """Add a request for each pair of the plan's (opened) dump to `requests`; the rows that need
        no comparison are made here."""
        if plan.my_path is None:
            return _PlanWork(plan, [self._row(plan, plan.tensor(), reasons=plan.missing_reasons)])
        if plan.my_slices:
            return _PlanWork(plan, list(self._sliced_rows(plan)))
        mine = None if opened is None else opened.file
        if mine is None:
            error = opened.error if opened is not None and opened.error else "not opened"
            return _PlanWork(plan, [self._row(plan, plan.tensor(), reasons=(f"[{plan.label}] {error}",))])
        work = _PlanWork(plan, [], mine)
        positional = plan.positional_partner is not None
        # The reference applies -max against golden files only, not NPU against NPU.
        max_elements = 0 if positional else self.options.max_elements
        # The core lists inputs, then outputs (then buffers and workspaces, which are not compared).
        inputs = outputs = 0
        for tensor in mine.tensors:
            core_role = tensor.role  # read once: each read makes the Python enum anew
            if core_role is _INPUT:
                role, k, target = "input", inputs, plan.input_target(inputs)
                inputs += 1
            elif core_role is _OUTPUT:
                role, k, target = "output", outputs, plan.output_target(outputs)
                outputs += 1
            else:
                continue
            if target.skip:
                continue
            identity = plan.tensor(role, k)
            if target.path is None:
                work.rows.append(self._row(plan, identity, reasons=(target.reason or "no partner",), **self._lone_fields(mine, tensor)))
                continue
            layout, own_shape = decoded_form(positional, tensor.format, tensor.shape, tensor.original_shape, tensor.origin_format, target)
            converted = self._converted_row(plan, identity, mine, target, layout, max_elements) if self._converters else None
            if converted is not None:  # a plug-in's converter (-c) replaces the core's layout decoding
                work.rows.append(converted)
                continue
            work.pairs.append((len(work.rows), identity, tensor, target))
            work.rows.append(None)
            requests.append(_core.PairRequest(mine, core_role, k, target.path, _ROLES[target.role], target.index,
                                              None if layout is None else format_number(layout), max_elements, own_shape))
        if not work.rows:
            work.rows.append(self._row(plan, plan.tensor(), reasons=(f"[{plan.label}] the dump holds no tensor to compare",)))
        return work

    def _sliced_rows(self, plan: OpPlan) -> List[CompareRow]:
        """An FFTS+ op: its outputs joined from every slice, compared as arrays (inputs are not joined)."""
        # Joined slices are numpy arrays: numpy is loaded for these ops only, not for every run.
        from opdiff.dumps.ffts import SliceInfo, merged_output

        try:
            slices = [read_dump(path) for path in plan.my_slices]
            info = SliceInfo.from_dump(slices[0])
        except (DumpFormatError, OSError) as error:
            return [self._row(plan, plan.tensor(), reasons=(f"[{plan.label}] {error}",))]
        rows = [self._row(plan, plan.tensor("input", k), reasons=(f"[{plan.label}] input of an FFTS+ sliced op: slices are not joined for inputs",))
                for k in range(len(slices[0].inputs))]
        for k, first in enumerate(slices[0].outputs):
            target = plan.output_target(k)
            identity = plan.tensor("output", k)
            if target.skip:
                continue
            if target.path is None:
                rows.append(self._row(plan, identity, reasons=(target.reason or "no partner",)))
                continue
            notes: List[str] = []
            try:
                mine = merged_output(slices, k, info, notes)
                theirs = self.files.get(target.path).tensor(target.role, target.index)
                golden = theirs.to_numpy()
                if mine.size != golden.size:
                    raise ValueError(f"[{plan.label}] joined slices hold {list(mine.shape)}, the golden {list(golden.shape)}")
                rows.append(self._array_row(plan, identity, first, theirs, mine, golden, (plan.my_slices[0], target.path),
                                            tuple(notes), self.options.max_elements))
            except (DumpFormatError, ValueError, OSError) as error:
                rows.append(self._row(plan, identity, reasons=(str(error),)))
        return rows

    def _array_row(self, plan: OpPlan, identity: TensorId, header: Union[_core.TensorEntry, DumpTensor], theirs: DumpTensor,
                   mine: np.ndarray, golden: np.ndarray, paths: Tuple[str, str], notes: Tuple[str, ...], limit: int) -> CompareRow:
        """The row of a pair compared as arrays in Python (FFTS+ joined slices, a plug-in's
        conversion): the built-in metrics of the first `limit` elements (0: all), then the plug-ins'.
        ValueError when the element counts differ."""
        from opdiff.numerics.core_adapter import compute_metrics

        if mine.size != golden.size:
            raise ValueError(f"[{plan.label}] the converted tensor holds {list(mine.shape)}, the golden {list(golden.shape)}")
        count = limit or mine.size
        metrics = compute_metrics(mine.reshape(-1)[:count], golden.reshape(-1)[:count], algorithms=self.options.builtin_algorithms or None,
                                  rtol=self.options.rtol, atol=self.options.atol, threads=1)
        row = CompareRow(
            index=plan.index, op_type=plan.op_type, npu_dump=plan.npu_dump, ground_truth=plan.ground_truth,
            tensor=identity, my_dtype=_dtype_name(header), my_address=str(header.address),
            golden_dtype=_dtype_name(theirs), golden_address=str(theirs.address), shape=tuple(mine.shape),
            op_sequence=plan.op_sequence,
            overflow=_overflow(header, metrics.x) if self.options.overflow_detection else None,
            metrics=metrics, reasons=notes + _reasons(metrics, self.options.algorithms, paths[0], paths[1]),
        )
        return self._with_custom(paths[0], paths[1], mine, golden, row, limit)

    def _converted_row(self, plan: OpPlan, identity: TensorId, file: _core.TensorFile, target: GoldenTarget,
                       layout: Optional[str], limit: int) -> Optional[CompareRow]:
        """The row of a pair whose layout conversion a plug-in offers (-c DIR/format_convert/), None
        when none does: my stored elements, flat, through ``convert(shape_from, shape_to, array[, group])``,
        against the golden as it is; a failing converter is the row's reason."""
        assert self._converters is not None and identity.role is not None and identity.index is not None
        my_path, golden_path = plan.my_path or "", target.path or ""
        mine = dump_of(file, my_path).tensor(identity.role, identity.index)
        conversion = self._converters.find(format_name(mine.format), layout) if layout is not None else None
        if conversion is None:
            return None
        try:
            theirs = self.files.get(golden_path).tensor(target.role, target.index)
            golden = theirs.to_numpy()
            stored = mine.to_numpy(logical=False).reshape(-1)
            converted = conversion(mine.shape, golden.shape, stored, mine.sub_format)
            return self._array_row(plan, identity, mine, theirs, converted, golden, (my_path, golden_path), (), limit)
        except (DumpFormatError, ValueError, OSError) as error:  # PluginError is a ValueError
            return self._row(plan, identity, reasons=(f"[{plan.label}] {error}",), my_address=str(mine.address), shape=mine.shape)

    def _lone_fields(self, file: Optional[_core.TensorFile], mine: _core.TensorEntry) -> Dict[str, Any]:
        """The fields a row of my tensor has before (or without) a comparison."""
        return {"my_dtype": None, "my_address": str(mine.address), "shape": mine.shape, "overflow": self._lone_overflow(file, mine)}

    def _pair_row(self, work: _PlanWork, identity: TensorId, mine: _core.TensorEntry, target: GoldenTarget,
                  outcome: _core.PairOutcome) -> CompareRow:
        """The row of one pair from the core's outcome (its facts read in one call)."""
        compared, golden_dtype, golden_data_type, golden_address, my_shape, golden_shape, fields, text = outcome.row_facts()
        if not compared:
            return self._uncompared_row(work, identity, mine, outcome)
        plan = work.plan
        metrics = metrics_from_fields(fields)
        positional = plan.positional_partner is not None
        row = CompareRow(
            index=plan.index,
            op_type=plan.op_type,
            npu_dump=plan.npu_dump,
            ground_truth=plan.ground_truth,
            tensor=identity,
            my_dtype=_dtype_name(mine),
            my_address=str(mine.address),
            golden_dtype=golden_dtype or data_type_name(golden_data_type),
            golden_address=str(golden_address),
            shape=my_shape,
            reference_shape=_reference_shape(positional, mine, target, math.prod(my_shape)),
            op_sequence=plan.op_sequence,
            overflow=_overflow(mine, metrics.x) if self.options.overflow_detection else None,
            metrics=metrics,
            reasons=_shape_note(positional, my_shape, golden_shape) + _reasons(metrics, self.options.algorithms, plan.my_path or "", target.path or ""),
            reference_text=text,
        )
        return row if self._custom is None else self._custom_row(work, identity, target, row)

    def _uncompared_row(self, work: _PlanWork, identity: TensorId, mine: _core.TensorEntry, outcome: _core.PairOutcome) -> CompareRow:
        """The row of a pair the core could not compare, with the reason in the reference's words."""
        plan = work.plan
        status = outcome.status
        if status is _core.PairStatus.golden_unreadable:
            reason = f"[{plan.label}] {outcome.message}"
        elif status in (_core.PairStatus.my_type_unsupported, _core.PairStatus.golden_type_unsupported):
            name = data_type_name(mine.data_type if status is _core.PairStatus.my_type_unsupported else outcome.golden_data_type)
            reason = unsupported_data_type(plan.label, name)
        elif status is _core.PairStatus.counts_differ:
            reason = shapes_differ(plan.label, outcome.my_shape, outcome.golden_shape)
        elif status is _core.PairStatus.order_differs:
            reason = element_order_differs(plan.label, outcome.my_shape, outcome.golden_shape)
        else:
            reason = outcome.message
        return self._row(plan, identity, reasons=(reason,), **self._lone_fields(work.file, mine))

    def _custom_row(self, work: _PlanWork, identity: TensorId, target: GoldenTarget, row: CompareRow) -> CompareRow:
        """The row with the plug-in algorithms' cells: both sides decoded here as the core laid them
        out (numpy arrays, for the plug-ins' Python), only when plug-ins are selected."""
        plan = work.plan
        my_path, golden_path = plan.my_path or "", target.path or ""
        try:
            assert work.file is not None and identity.role is not None and identity.index is not None
            mine = dump_of(work.file, my_path).tensor(identity.role, identity.index)
            theirs = self.files.get(golden_path).tensor(target.role, target.index)
            my_view, golden_view = layout_views(plan.positional_partner is not None, mine, theirs, target, plan.label)
            my, golden = view_to_numpy(my_view), view_to_numpy(golden_view)
        except (DumpFormatError, ValueError, OSError) as error:
            assert self._custom is not None
            cells = tuple((name, "NaN") for name in self._custom.functions)
            return dataclasses.replace(row, custom=cells, reasons=row.reasons + (f"[{plan.label}] {error}",))
        # The reference applies -max against golden files only, not NPU against NPU (as the core does).
        limit = 0 if plan.positional_partner is not None else self.options.max_elements
        return self._with_custom(my_path, golden_path, my, golden, row, limit)

    def _with_custom(self, my_path: str, golden_path: str, my: np.ndarray, golden: np.ndarray, row: CompareRow,
                     limit: int) -> CompareRow:
        """`row` with the plug-ins' cells for these two arrays (the first `limit` elements; 0: all)
        and their messages after its own."""
        if self._custom is None:
            return row
        from opdiff.plugins.algorithms import PairFiles

        cells, messages = self._custom.run(my.reshape(-1), golden.reshape(-1), PairFiles(my_path, golden_path, tuple(row.shape or ())), limit)
        return dataclasses.replace(row, custom=cells, reasons=row.reasons + messages)

    def _lone_overflow(self, file: Optional[_core.TensorFile], mine: _core.TensorEntry) -> Optional[bool]:
        """Overflow of a tensor that has no partner: the reference still checks my side."""
        if file is None or not self.options.overflow_detection or mine.dtype != "float16":
            return None
        try:
            view = _core.TensorView(file, mine.role.name, mine.index, as_stored=True)
            return _overflow(mine, tensor_stats(view, threads=1))
        except (DumpFormatError, ValueError, OSError):
            return None

    @staticmethod
    def _row(plan: OpPlan, identity: TensorId, reasons: Tuple[str, ...], **fields: object) -> CompareRow:
        return CompareRow(
            index=plan.index,
            op_type=plan.op_type,
            npu_dump=plan.npu_dump,
            ground_truth=plan.ground_truth,
            tensor=identity,
            op_sequence=plan.op_sequence,
            reasons=reasons,
            **fields,  # type: ignore[arg-type]
        )
