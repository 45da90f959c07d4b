"""`opdiff.compare`: a whole network comparison, from two dump folders to the Report: plan it
(match.planning), run the plans through the engine, write the CSV as rows come, stop cleanly on
Ctrl-C."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from opdiff.dumps.discovery import FileKind
from opdiff.engine.tensor_engine import Engine, EngineOptions
from opdiff.match.planning import PathLike, RuleLike, is_quantized_run, plan_and_quant_skips, read_rule, unused_dump_notes
from opdiff.numerics.schema import ALGORITHMS
from opdiff.report.tensor.csv_writer import ReferenceCsvWriter
from opdiff.report.tensor.views import TENSOR_VIEWS
from opdiff.results.columns import CsvColumns
from opdiff.results.protocol import Result
from opdiff.results.tensor_report import Report


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
) -> Result:
    """Compare the dumps under `my` (NPU) with those under `golden` (golden .npy or NPU dumps).

    Rules are .om files, atc JSON files or FusionMap objects. Rows come back in Index order; every
    tensor without a partner is a row with its reason. With `csv`, rows are also written to that
    file as they come (through a temporary name). Ctrl-C stops the run and returns what was
    compared, with ``complete=False``; the CSV is then kept as ``<name>.incomplete.csv``.
    ``max_elements`` > 0 compares only the first N elements of each tensor against golden files
    (the reference's ``-max N``; NPU against NPU always compares everything). ``all_occurrences``
    compares every dump of an op, not only the newest (see :func:`plan`). When either side holds
    statistics dumps (``{dump name}.csv``), the result is a
    :class:`opdiff.results.statistics_report.StatisticsReport` instead (docs/scenario-statistics.md).
    """
    if max_elements < 0:
        raise ValueError(f"max_elements must be 0 (all) or positive, got {max_elements}")
    fusion_rule, quant_fusion_rule = read_rule(fusion_rule), read_rule(quant_fusion_rule)
    scenario, plans, my_index, golden_index, quant_skipped = plan_and_quant_skips(
        my, golden, fusion_rule=fusion_rule, close_fusion_rule=close_fusion_rule, quant_fusion_rule=quant_fusion_rule,
        ids=ids, step=step, all_occurrences=all_occurrences,
    )
    if FileKind.STATISTICS in (my_index.kind, golden_index.kind):
        # Statistics dumps are compared statistic by statistic, with their own rows and report
        # (imported here: a tensor comparison never loads the statistics engine).
        from opdiff.engine.statistics_comparison import compare_statistics

        notes = [f"{path}: {reason}" for path, reason in my_index.skipped + golden_index.skipped]
        return compare_statistics(scenario, plans, my_index.folder, golden_index.folder,
                                  notes + unused_dump_notes(my_index, plans, all_occurrences), csv=csv, threads=threads,
                                  quantized=is_quantized_run(my_index, fusion_rule, quant_fusion_rule))
    columns = CsvColumns(
        algorithms=tuple(algorithms),
        op_sequence=ids is not None,
        my_address=my_index.kind is FileKind.NPU,
        golden_address=golden_index.kind is FileKind.NPU,
        overflow=overflow_detection,
    )
    report = Report(scenario, my_index.folder, golden_index.folder, columns,
                    quantized=is_quantized_run(my_index, fusion_rule, quant_fusion_rule), views=TENSOR_VIEWS,
                    graph=fusion_rule)
    report.notes += [f"{path}: {reason}" for path, reason in my_index.skipped + golden_index.skipped]
    report.notes += unused_dump_notes(my_index, plans, all_occurrences, quant_skipped)
    engine = Engine(EngineOptions(tuple(algorithms), rtol, atol, overflow_detection, threads, max_elements))
    bar = None
    if progress:
        from opdiff.engine.progress_bar import ProgressBar  # rich's progress module, for terminals only

        bar = ProgressBar(len(plans))
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


def _finish_csv(writer: ReferenceCsvWriter, report: Report, failed: bool) -> None:
    """Name the CSV (``.incomplete.csv`` after Ctrl-C); after an error, or when naming it fails
    (a full disk, a Ctrl-C mid-flush), remove it: outputs are whole or absent."""
    if failed:
        writer.discard()
        return
    try:
        report.csv_path = writer.close() if report.complete else writer.abandon()
    except BaseException:
        writer.discard()
        raise
