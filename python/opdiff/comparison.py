"""`opdiff.compare`: a whole network comparison from Python, and the Report it returns."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, AbstractSet, Dict, FrozenSet, List, Optional, Sequence, Tuple, Union

from opdiff.numerics.schema import ALGORITHMS
from opdiff.dumps.discovery import DumpIndex, FileKind, choose_leaf, escape_op_name, find_leaves, index_folder
from opdiff.engine import Engine, EngineOptions
from opdiff.graph import FusionMap, merge_close_fusion, merge_quant_rule, quant_filter, read_graph
from opdiff.match import OpPlan, Scenario, plan_by_op_name, plan_with_fusion_rule
from opdiff.report.csv_writer import CsvColumns, ReferenceCsvWriter
from opdiff.report.rows import CompareRow
from opdiff.report.verdict import (
    REFERENCE_THRESHOLDS,
    PrecisionVerdict,
    Threshold,
    Verdict,
    VerdictLike,
    as_verdict,
)

if TYPE_CHECKING:
    from rich.console import Group

PathLike = Union[str, "os.PathLike[str]"]
RuleLike = Union[PathLike, FusionMap, None]

# The cosine-only rule of the reference (kept under its old name for callers of the 0.1 API).
DEFAULT_THRESHOLDS: Tuple[Threshold, ...] = REFERENCE_THRESHOLDS


@dataclass
class Report:
    """The rows of a comparison (in Index order) and what produced them.

    Pass and fail come from one verdict (opdiff.report.verdict): by default :meth:`verdict`, the
    precision rows of each tensor's dtype pair (cosine and NormRatioError); any method that takes
    ``verdict`` also takes a Verdict or a list of Thresholds (``--fail-under``). A notebook shows a
    Report as an HTML summary (``_repr_html_``) and ``rich.print(report)`` as the console report of
    ``opdiff compare`` (``__rich__``), both with the default verdict.

    >>> import tempfile, opdiff
    >>> from pathlib import Path
    >>> from opdiff.demo.report import write_case
    >>> case = write_case(Path(tempfile.mkdtemp()), seed=0, fault="block2/conv1", fault_scale=1.5)
    >>> report = opdiff.compare(case["npu"], case["golden"], fusion_rule=case["rule"])
    >>> report.first_failure().op_type
    'Conv2D'
    >>> report.verdict().fails(report.first_failure())
    True
    >>> "first failing tensor in execution order" in report._repr_html_()
    True
    >>> import io
    >>> from rich.console import Console
    >>> console = Console(record=True, width=120, file=io.StringIO())
    >>> console.print(report)
    >>> "opdiff compare (npu vs golden (fusion rule))" in console.export_text()
    True
    """

    scenario: Scenario
    my_folder: Path
    golden_folder: Path
    columns: CsvColumns
    rows: List[CompareRow] = field(default_factory=list)
    complete: bool = True
    notes: List[str] = field(default_factory=list)
    csv_path: Optional[Path] = None  # where compare(csv=...) wrote the rows
    quantized: bool = False  # my side is a quantized model (the verdict's int8 row)

    @property
    def compared(self) -> List[CompareRow]:
        return [row for row in self.rows if row.compared]

    def verdict(self, verdict: VerdictLike = None) -> Verdict:
        """`verdict` as a Verdict; None gives the default one, fitted to this report's rows (their
        dtypes, the scenario and the network's scale)."""
        if verdict is not None:
            return as_verdict(verdict)
        npu_vs_npu = self.scenario in (Scenario.NPU_VS_NPU, Scenario.FUSION_ON_VS_OFF)
        return PrecisionVerdict.for_rows(self.compared, npu_vs_npu=npu_vs_npu, quantized=self.quantized)

    def failing(self, verdict: VerdictLike = None) -> List[CompareRow]:
        """Rows the verdict fails, in Index (execution) order."""
        judge = self.verdict(verdict)
        return [row for row in self.rows if judge.fails(row)]

    def first_failure(self, verdict: VerdictLike = None) -> Optional[CompareRow]:
        judge = self.verdict(verdict)
        return next((row for row in self.rows if judge.fails(row)), None)

    def worst(self, count: int = 10, verdict: VerdictLike = None) -> List[CompareRow]:
        """The compared rows the verdict fails, then the others, each by lowest cosine (NaN first:
        those are the most broken)."""
        judge = self.verdict(verdict)

        def key(row: CompareRow) -> Tuple[bool, float]:
            value = row.metrics.cosine_similarity if row.metrics else math.nan
            return (not judge.fails(row), -math.inf if math.isnan(value) else value)

        return sorted(self.compared, key=key)[:count]

    def summary(self, verdict: VerdictLike = None) -> Dict[str, int]:
        failing = len(self.failing(verdict))
        compared = len(self.compared)
        return {"rows": len(self.rows), "compared": compared, "failing": failing, "passing": compared - failing,
                "not_compared": len(self.rows) - compared}

    def to_csv(self, path: PathLike) -> Path:
        """Write the reference tool's result CSV (through a temporary file)."""
        with ReferenceCsvWriter(Path(path), self.columns) as writer:
            for row in self.rows:
                writer.write(row)
        return Path(path)

    def _repr_html_(self) -> str:
        """Jupyter's rich display: a compact HTML summary (opdiff.report.notebook)."""
        from opdiff.report.notebook import report_html

        return report_html(self, self.verdict())

    def __rich__(self) -> "Group":
        """What ``rich.print(report)`` shows: the console report of ``opdiff compare``."""
        from rich.console import Group

        from opdiff.report.console import report_renderables

        return Group(*report_renderables(self, csv_path=None if self.csv_path is None else str(self.csv_path)))

    def to_pandas(self):  # pragma: no cover - optional dependency
        """The rows as a pandas DataFrame with the CSV's columns (needs pandas)."""
        import pandas as pd

        from opdiff.report.csv_writer import format_row

        header = self.columns.header()
        return pd.DataFrame([format_row(row, self.columns) for row in self.rows], columns=header)


def _index_side(path: PathLike, step: Optional[int], with_fusion_rule: bool) -> DumpIndex:
    root = Path(path)
    if not root.exists():
        raise ValueError(f"{root}: no such file or folder")
    if not root.is_dir():
        raise ValueError(f"{root}: a dump folder is expected here")
    leaf = choose_leaf(root, find_leaves(root), step)
    return index_folder(leaf.folder, with_fusion_rule=with_fusion_rule)


def _rule(rule: RuleLike) -> Optional[FusionMap]:
    if rule is None or isinstance(rule, FusionMap):
        return rule
    return read_graph(rule)


def plan_comparison(
    my_index: DumpIndex,
    golden_index: DumpIndex,
    fusion_rule: Optional[FusionMap],
    close_fusion_rule: Optional[FusionMap],
    quant_fusion_rule: Optional[FusionMap],
    ids: Optional[Sequence[int]] = None,
) -> Tuple[Scenario, List[OpPlan], Optional[FusionMap]]:
    """Which scenario the inputs describe, its plans and the (merged) rule they follow (None by op
    name). ValueError for combinations the reference refuses (§3.4): e.g. `-cf` without `-f`, or a
    golden .npy folder without a fusion rule."""
    if my_index.kind is None or not my_index.kind.is_npu:
        raise ValueError(f"{my_index.folder}: the compared (-m) side must hold NPU dump files")
    if close_fusion_rule is not None:
        if fusion_rule is None or golden_index.kind is None or not golden_index.kind.is_npu:
            raise ValueError("-cf needs -f and NPU dumps on both sides (fusion on vs off)")
        merged = merge_close_fusion(fusion_rule, close_fusion_rule)
        return Scenario.FUSION_ON_VS_OFF, plan_with_fusion_rule(merged, my_index, golden_index, golden_is_npu=True, ids=ids), merged
    if golden_index.kind is FileKind.GOLDEN:
        if fusion_rule is None:
            raise ValueError("comparing NPU dumps with golden .npy files needs the fusion rule (-f: .om or atc JSON)")
        if quant_fusion_rule is not None:
            fusion_rule = merge_quant_rule(fusion_rule, quant_fusion_rule)
        return Scenario.NPU_VS_GOLDEN, plan_with_fusion_rule(fusion_rule, my_index, golden_index, ids=ids), fusion_rule
    if fusion_rule is not None:
        raise ValueError("NPU vs NPU takes either no fusion rule or both -f and -cf")
    if my_index.is_quant != golden_index.is_quant:
        raise ValueError("NPU vs NPU compares quantized with quantized and float with float dumps only")
    return Scenario.NPU_VS_NPU, plan_by_op_name(my_index, golden_index), None


def plan(
    my: PathLike,
    golden: PathLike,
    *,
    fusion_rule: RuleLike = None,
    close_fusion_rule: RuleLike = None,
    quant_fusion_rule: RuleLike = None,
    ids: Optional[Sequence[int]] = None,
    step: Optional[int] = None,
    all_occurrences: bool = False,
) -> Tuple[Scenario, List[OpPlan], DumpIndex, DumpIndex]:
    """Index both sides and match them: the scenario, the op plans and the two indexes.

    By default each op's newest dump is compared, as the reference does. With `all_occurrences`
    every run of an op is (an op dumped several times in one step, e.g. a loop body): the k-th
    dump of my side against the k-th of the golden side (its newest when it has fewer), rows
    named ``op#k`` and ordered run by run."""
    scenario, plans, my_index, golden_index, _ = _plan_and_quant_skips(
        my, golden, fusion_rule=fusion_rule, close_fusion_rule=close_fusion_rule, quant_fusion_rule=quant_fusion_rule,
        ids=ids, step=step, all_occurrences=all_occurrences,
    )
    return scenario, plans, my_index, golden_index


def _plan_and_quant_skips(
    my: PathLike,
    golden: PathLike,
    *,
    fusion_rule: RuleLike,
    close_fusion_rule: RuleLike,
    quant_fusion_rule: RuleLike,
    ids: Optional[Sequence[int]],
    step: Optional[int],
    all_occurrences: bool,
) -> Tuple[Scenario, List[OpPlan], DumpIndex, DumpIndex, FrozenSet[str]]:
    """:func:`plan`, plus the ops the quant filter skipped (they have no plan, and the report says so)."""
    has_rule = fusion_rule is not None or quant_fusion_rule is not None
    my_index = _index_side(my, step, has_rule)
    golden_index = _index_side(golden, step, has_rule)
    rules = (_rule(fusion_rule), _rule(close_fusion_rule), _rule(quant_fusion_rule))
    scenario, plans, planned_rule = plan_comparison(my_index, golden_index, *rules, ids)
    quant_skipped = quant_filter(planned_rule).skipped_ops if planned_rule is not None else frozenset()
    plans.sort(key=lambda op_plan: op_plan.index)  # stable: members of a group keep their order
    if all_occurrences and my_index.occurrences() > 1:
        plans = _plans_of_every_run(my_index, golden_index, rules, ids, plans)
    return scenario, plans, my_index, golden_index, quant_skipped


def _plans_of_every_run(
    my_index: DumpIndex,
    golden_index: DumpIndex,
    rules: Tuple[Optional[FusionMap], Optional[FusionMap], Optional[FusionMap]],
    ids: Optional[Sequence[int]],
    newest_plans: List[OpPlan],
) -> List[OpPlan]:
    """Plans for each run k of the ops (``--all``). Row numbers are those of the newest-file plans,
    so an op keeps its Index in every run; ops missing from my side are reported in run 0 only."""
    number_of = {op_plan.op_name: (op_plan.index, op_plan.op_sequence) for op_plan in newest_plans}
    plans: List[OpPlan] = []
    for k in range(my_index.occurrences()):
        _, run_plans, _ = plan_comparison(
            my_index.occurrence(k), golden_index.occurrence(k, newest_when_missing=True), *rules, ids
        )
        for op_plan in run_plans:
            if op_plan.my_path is None and k > 0:
                continue
            index, op_sequence = number_of.get(op_plan.op_name, (op_plan.index, op_plan.op_sequence))
            plans.append(replace(op_plan, index=index, op_sequence=op_sequence, op_name=f"{op_plan.op_name}#{k}", run=k))
    plans.sort(key=lambda op_plan: (op_plan.run, op_plan.index))
    return plans


def compare(
    my: PathLike,
    golden: PathLike,
    *,
    fusion_rule: RuleLike = None,
    close_fusion_rule: RuleLike = None,
    quant_fusion_rule: RuleLike = None,
    algorithms: Sequence[str] = ALGORITHMS,
    rtol: float = 1e-3,
    atol: float = 1e-5,
    overflow_detection: bool = False,
    ids: Optional[Sequence[int]] = None,
    step: Optional[int] = None,
    threads: Optional[int] = None,
    progress: bool = False,
    csv: Optional[PathLike] = None,
    max_elements: int = 0,
    all_occurrences: bool = False,
) -> Report:
    """Compare the dumps under `my` (NPU) with those under `golden` (golden .npy or NPU dumps).

    Rules are .om files, atc JSON files or FusionMap objects. Rows come back in Index order; every
    tensor without a partner is a row with its reason. With `csv`, rows are also written to that
    file as they come (through a temporary name). Ctrl-C stops the run and returns what was
    compared, with ``complete=False``; the CSV is then kept as ``<name>.incomplete.csv``.
    ``max_elements`` > 0 compares only the first N elements of each tensor against golden files
    (the reference's ``-max N``; NPU against NPU always compares everything). ``all_occurrences``
    compares every dump of an op, not only the newest (see :func:`plan`). When either side holds
    statistics dumps (``{dump name}.csv``), the result is a
    :class:`opdiff.statistics_comparison.StatisticsReport` instead (docs/scenario-statistics.md).
    """
    if max_elements < 0:
        raise ValueError(f"max_elements must be 0 (all) or positive, got {max_elements}")
    fusion_rule, quant_fusion_rule = _rule(fusion_rule), _rule(quant_fusion_rule)
    scenario, plans, my_index, golden_index, quant_skipped = _plan_and_quant_skips(
        my, golden, fusion_rule=fusion_rule, close_fusion_rule=close_fusion_rule, quant_fusion_rule=quant_fusion_rule,
        ids=ids, step=step, all_occurrences=all_occurrences,
    )
    if FileKind.STATISTICS in (my_index.kind, golden_index.kind):
        # Statistics dumps are compared statistic by statistic, with their own rows and report.
        from opdiff.statistics_comparison import compare_statistics

        notes = [f"{path}: {reason}" for path, reason in my_index.skipped + golden_index.skipped]
        return compare_statistics(scenario, plans, my_index.folder, golden_index.folder,  # type: ignore[return-value]
                                  notes + unused_dump_notes(my_index, plans, all_occurrences), csv=csv, threads=threads)
    columns = CsvColumns(
        algorithms=tuple(algorithms),
        op_sequence=ids is not None,
        my_address=my_index.kind is FileKind.NPU,
        golden_address=golden_index.kind is FileKind.NPU,
        overflow=overflow_detection,
    )
    report = Report(scenario, my_index.folder, golden_index.folder, columns,
                    quantized=is_quantized_run(my_index, fusion_rule, quant_fusion_rule))
    report.notes += [f"{path}: {reason}" for path, reason in my_index.skipped + golden_index.skipped]
    report.notes += unused_dump_notes(my_index, plans, all_occurrences, quant_skipped)
    engine = Engine(EngineOptions(tuple(algorithms), rtol, atol, overflow_detection, threads, max_elements))
    bar = ProgressBar(len(plans)) if progress else None
    writer = ReferenceCsvWriter(Path(csv), columns) if csv is not None else None
    failed = True
    try:
        if bar is not None:
            bar.start()
        for row in engine.rows(plans, on_plan_done=(lambda plan, rows: bar.advance()) if bar else None):
            report.rows.append(row)
            if writer is not None:
                writer.write(row)
        failed = False
    except KeyboardInterrupt:
        report.complete = False
        failed = False
    finally:
        if bar is not None:
            bar.stop()
        if writer is not None:
            _finish_csv(writer, report, failed)
    return report


# Op types that turn float tensors into integer codes: a graph holding one is a quantized model.
QUANTIZE_OP_TYPES = frozenset({"AscendQuant", "AscendWeightQuant", "QuantizeLinear", "DynamicQuantizeLinear"})


def is_quantized_run(my_index: DumpIndex, fusion_rule: Optional[FusionMap], quant_fusion_rule: Optional[FusionMap]) -> bool:
    """My side ran a quantized model: a quant rule was given, its graph quantizes, or its dump
    names quant ops. The default verdict then judges its float tensors by the int8 row."""
    if quant_fusion_rule is not None or my_index.is_quant:
        return True
    return fusion_rule is not None and any(op.type in QUANTIZE_OP_TYPES for op in fusion_rule.ops)


def unused_dump_notes(
    my_index: DumpIndex, plans: Sequence[OpPlan], all_occurrences: bool = False, quant_skipped: AbstractSet[str] = frozenset()
) -> List[str]:
    """What the plans leave out of my side's dumps, counted: ops the quant filter skipped (op names
    in `quant_skipped`), ops the fusion rule does not name, and older dumps of compared ops (only
    the newest is compared without --all). Nothing is dropped without the report saying so."""
    used = {op_plan.my_path for op_plan in plans if op_plan.my_path} | {path for op_plan in plans for path in op_plan.my_slices}
    skipped_keys = {escape_op_name(name) for name in quant_skipped}
    foreign = older = filtered = filtered_ops = 0
    for key, versions in my_index.files.items():
        unused = sum(1 for name in versions if name.path not in used)
        if unused == len(versions) and key in skipped_keys:
            filtered += unused
            filtered_ops += 1
        elif unused == len(versions):
            foreign += unused
        else:
            older += unused
    notes = []
    if filtered:
        notes.append(f"{filtered} dump file(s) of {filtered_ops} op(s) that the quant filter skips (inside a quant/dequant pair) were not compared")
    if foreign:
        notes.append(f"{foreign} dump file(s) of ops that the fusion rule does not name were not compared")
    if older and not all_occurrences:
        notes.append(f"{older} older dump file(s) of compared ops were not compared (the newest is; --all compares every run)")
    return notes


def _finish_csv(writer: ReferenceCsvWriter, report: Report, failed: bool) -> None:
    """Name the CSV (``.incomplete.csv`` after Ctrl-C); after an error, or when naming it fails
    (a full disk), remove it: outputs are whole or absent."""
    if failed:
        writer.discard()
        return
    try:
        report.csv_path = writer.close() if report.complete else writer.abandon()
    except OSError:
        writer.discard()
        raise


class ProgressBar:
    """A rich progress bar over ops (only when asked for: the CLI turns it on for terminals)."""

    def __init__(self, total: int) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn("comparing"), BarColumn(), MofNCompleteColumn(), TextColumn("ops"), TimeElapsedColumn(),
            TextColumn("ETA"), TimeRemainingColumn(), transient=True,
        )
        self._task = self._progress.add_task("ops", total=total)

    def start(self) -> None:
        self._progress.start()

    def advance(self) -> None:
        self._progress.advance(self._task)

    def stop(self) -> None:
        self._progress.stop()


def result_file_name(now: Optional[datetime] = None) -> str:
    """``result_<YYYYmmddHHMMSS>.csv`` in local time, as the reference names it."""
    return f"result_{(now or datetime.now()).strftime('%Y%m%d%H%M%S')}.csv"
