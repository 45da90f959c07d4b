"""`opdiff.compare`: a whole network comparison, from two dump folders to the Report: plan it
(match.planning), run the plans through the engine, write the CSV as rows come, stop cleanly on
Ctrl-C."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Dict, Optional, Sequence, Tuple, TypedDict, Union

from opdiff.dumps.discovery import FileKind
from opdiff.engine.driver import drive
from opdiff.engine.options import CompareOptions, IdsLike, PathLike
from opdiff.engine.tensor_engine import Engine
from opdiff.fileio.phase_marks import mark_phase
from opdiff.match.op_matching import OpPlan
from opdiff.match.planning import RuleLike, is_quantized_run, plan_and_quant_skips, unused_dump_notes
from opdiff.plugins import Plugins
from opdiff.report.tensor.csv_writer import ReferenceCsvWriter
from opdiff.report.tensor.views import TENSOR_VIEWS
from opdiff.results.columns import CsvColumns
from opdiff.results.protocol import Result
from opdiff.results.tensor_report import Report

if TYPE_CHECKING:
    from typing_extensions import Unpack


class CompareKeywords(TypedDict, total=False):
    """`compare()`'s keywords: CompareOptions' fields, by name (their defaults are the options')."""

    fusion_rule: RuleLike
    close_fusion_rule: RuleLike
    quant_fusion_rule: RuleLike
    ids: IdsLike
    step: Optional[int]
    all_occurrences: bool
    algorithms: Tuple[str, ...]
    rtol: float
    atol: float
    overflow_detection: bool
    max_elements: int
    threads: Optional[int]
    progress: bool
    csv: Optional[PathLike]
    ffts: bool
    plugins: Union[Plugins, PathLike, None]
    algorithm_options: str


def compare(my: PathLike, golden: PathLike, options: Optional[CompareOptions] = None,
            **keywords: Unpack[CompareKeywords]) -> Result:
    """Compare the dumps under `my` (NPU) with those under `golden` (golden .npy or NPU dumps).

    `options` (:class:`opdiff.CompareOptions`) says how; keywords change single fields of it, e.g.
    ``compare(my, golden, fusion_rule="model.om", threads=2)``. Rules are .om files, atc JSON files
    or FusionMap objects. Rows come back in Index order; every tensor without a partner is a row
    with its reason. With `csv`, rows are also written to that file as they come (through a
    temporary name). Ctrl-C stops the run and returns what was compared, with ``complete=False``;
    the CSV is then kept as ``<name>.incomplete.csv``. ``max_elements`` > 0 compares only the first
    N elements of each tensor against golden files (the reference's ``-max N``; NPU against NPU
    always compares everything). ``all_occurrences`` compares every dump of an op, not only the
    newest (see :func:`plan`). When either side holds statistics dumps (``{dump name}.csv``), the
    result is a :class:`opdiff.results.statistics_report.StatisticsReport` instead
    (docs/scenario-statistics.md). ``plugins`` (a folder, as ``-c DIR``, or
    :meth:`opdiff.plugins.Plugins.of` Python functions) adds custom algorithms, which
    ``algorithms`` selects by name (docs/plugins.md).
    """
    options = (options or CompareOptions()).replace(**keywords)
    rules = options.read_rules()
    scenario, plans, my_index, golden_index, quant_skipped = plan_and_quant_skips(
        my, golden, fusion_rule=rules.fusion, close_fusion_rule=rules.close, quant_fusion_rule=rules.quant,
        ids=rules.ids, step=options.step, all_occurrences=options.all_occurrences, slices_apart=options.ffts,
    )
    mark_phase("planned")
    quantized = is_quantized_run(my_index, rules.fusion, rules.quant)
    notes = [f"{path}: {reason}" for path, reason in my_index.skipped + golden_index.skipped]
    if FileKind.STATISTICS in (my_index.kind, golden_index.kind):
        # Statistics dumps are compared statistic by statistic, with their own rows and report
        # (imported here: a tensor comparison never loads the statistics engine).
        from opdiff.engine.statistics_comparison import compare_statistics

        return compare_statistics(scenario, plans, my_index.folder, golden_index.folder,
                                  notes + unused_dump_notes(my_index, plans, options.all_occurrences), csv=options.csv,
                                  threads=options.threads, quantized=quantized)
    columns = CsvColumns(
        algorithms=tuple(options.algorithms),
        op_sequence=rules.ids is not None,
        my_address=my_index.kind is FileKind.NPU,
        golden_address=golden_index.kind is FileKind.NPU,
        overflow=options.overflow_detection,
        custom=options.custom_algorithms,
    )
    report = Report(scenario, my_index.folder, golden_index.folder, columns, quantized=quantized,
                    graph=rules.fusion, views=TENSOR_VIEWS, my_files=my_files_of(plans))
    report.notes += notes + unused_dump_notes(my_index, plans, options.all_occurrences, quant_skipped)
    writer = ReferenceCsvWriter(Path(options.csv), columns) if options.csv is not None else None
    _fill(report, Engine(options), plans, writer, options.progress)
    return report


def my_files_of(plans: Sequence[OpPlan]) -> Dict[str, str]:
    """Op name -> the NPU dump file its rows compared (its first run's), for what follows the
    comparison (``--isolate`` re-runs each op on the inputs of that very file)."""
    return {plan.op_name: plan.my_path for plan in plans if plan.my_path is not None and plan.run == 0}


def _fill(report: Report, engine: Engine, plans: Sequence[OpPlan], writer: Optional[ReferenceCsvWriter], progress: bool) -> None:
    """Run the engine's rows of `plans` through the driver, with a progress bar when asked."""
    bar = None
    if progress:
        from opdiff.engine.progress_bar import ProgressBar  # rich's progress module, for terminals only

        bar = ProgressBar(len(plans))
    advance = (lambda plan, rows: bar.advance()) if bar is not None else None
    drive(report, engine.rows(plans, on_plan_done=advance), writer, bar)
    mark_phase("rows")


__all__ = ["CompareKeywords", "compare", "my_files_of"]
