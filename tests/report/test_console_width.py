"""The console tables at any terminal width (issue 32, item 7): a header never splits, a name breaks
only after a "/" or a ":" (never inside ``relu1_fused``), numbers stay whole, no line is wider than
the terminal, and a column with nothing in it ("Why" when no tensor has a reason) is left out.
Every table opdiff's reports print is checked (tensor compare, statistics compare, many runs,
single op) at fixed widths, from one too narrow for any table (records) over compact tables to a
wide terminal; the cli_output tests read the commands at the caller's width (.ci/run: 60, 80, 200)."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import numpy as np
import pytest
from rich.console import RenderableType

import opdiff
from opdiff.demo.report import run_demo
from opdiff.demo.run import DemoRun
from opdiff.demo.statistics import run_statistics_demo
from opdiff.engine.options import CompareOptions
from opdiff.engine.single_op import single_op_detail
from opdiff.graph import read_graph
from opdiff.report.console_name import name_lines
from opdiff.report.console_table import Column, ConsoleTable, Wrap
from opdiff.report.runs.console import summary_renderables
from opdiff.report.single_op.console import single_op_tables
from opdiff.report.statistics.console import statistics_renderables
from opdiff.report.tensor.console import report_renderables
from opdiff.results.runs_summary import RunsSummary
from opdiff.results.statistics_report import StatisticsReport
from opdiff.results.tensor_report import Report
from opdiff.runs import RunsRequest, compare_runs
from tests.support.child_env import child_env
from tests.support.console_checks import broken_names, rendered, split_headers, too_wide
from tests.support.dump_tree import Fault, write_dump_tree
from tests.support.side_by_side_cases import fusion_case

WIDTHS = (40, 60, 70, 80, 100, 200)
WORST_HEADERS = ("Index", "TensorIndex", "Cosine", "NormRatioErr", "MaxAbsErr", "MaxRelErr")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Tuple[DemoRun, Path]:
    folder = tmp_path_factory.mktemp("demo")
    return run_demo(folder, 0, "block2/conv1", 1.5), folder


@pytest.fixture(scope="module")
def with_reasons(tmp_path_factory: pytest.TempPathFactory) -> Report:
    """A comparison whose worst tensors have reasons, one naming a golden file by its path."""
    with np.errstate(over="ignore"):  # the case's edge values overflow fp16 on purpose
        case = fusion_case(tmp_path_factory.mktemp("fusion"))
    report = opdiff.compare(case.my, case.golden, fusion_rule=case.rule)
    assert isinstance(report, Report)
    return report


@pytest.fixture(scope="module")
def statistics(tmp_path_factory: pytest.TempPathFactory) -> StatisticsReport:
    run = run_statistics_demo(tmp_path_factory.mktemp("statistics"), layout="NC1HWC0", dtype="float16", fault_from=3,
                              scale=1.6)
    assert isinstance(run.result, StatisticsReport)
    return run.result


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> RunsSummary:
    folder = tmp_path_factory.mktemp("runs")
    tree = write_dump_tree(folder, fault=Fault(device=1, step=1))
    return compare_runs(RunsRequest(str(tree.root), str(tree.golden), CompareOptions(fusion_rule=tree.rule)), folder / "out")


def tables(renderables: Sequence[RenderableType]) -> List[ConsoleTable]:
    return [renderable for renderable in renderables if isinstance(renderable, ConsoleTable)]


def tensor_names(report: Report) -> List[str]:
    """The tensor and op names a tensor report shows."""
    return [name for row in report.rows for name in (row.tensor_index, row.npu_dump)]


def check_table(table: ConsoleTable, width: int, names: Sequence[str], left_out: Sequence[str] = (),
                prose: Sequence[str] = ()) -> None:
    lines = rendered(table, width)
    headers = [column.header for column in table.columns if column.header]
    assert split_headers(lines, headers) == list(left_out), "\n".join(lines)
    assert broken_names(lines, names, prose=[table.title, *headers, *prose]) == [], "\n".join(lines)
    assert too_wide(lines, width) == [], "\n".join(lines)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_worst_tensors_keep_headers_and_names_whole_and_leave_out_the_empty_why(demo, width: int) -> None:
    run, _ = demo
    assert isinstance(run.result, Report)
    (worst,) = tables(report_renderables(run.result))
    assert not any(row.reasons for row in run.result.worst(10) if row.metrics is not None)  # so "Why" is empty
    check_table(worst, width, tensor_names(run.result), left_out=["Why"])


# At 40 columns a golden file's name alone (32 cells) is wider than any cell can be: it folds, the last resort.
@pytest.mark.parametrize("width", [width for width in WIDTHS if width >= 60])
def test_a_why_with_reasons_is_kept_and_breaks_its_paths_after_a_slash(with_reasons: Report, width: int) -> None:
    (worst,) = tables(report_renderables(with_reasons))
    reasons = [", ".join(row.reasons) for row in with_reasons.worst(10) if row.metrics is not None]
    paths = [word for reason in reasons for word in reason.split() if "/" in word]
    assert paths, reasons
    check_table(worst, width, tensor_names(with_reasons) + paths, prose=reasons)


def test_at_80_columns_the_worst_tensors_are_one_table_with_its_headers_on_one_line(demo) -> None:
    """The terminal of the issue: at 80 columns the headers were cut (``NormRatioEr`` / ``r``)."""
    run, _ = demo
    (worst,) = tables(report_renderables(run.result))
    lines = rendered(worst, 80)
    assert [line for line in lines if all(header in line for header in WORST_HEADERS)] == [lines[2]]
    assert "block2/" in lines[4] and "relu1_fused:" in lines[5] and "output:0" in lines[6]


@pytest.mark.parametrize("width", WIDTHS)
def test_the_statistics_table_keeps_headers_and_names_whole(statistics: StatisticsReport, width: int) -> None:
    (worst,) = tables(statistics_renderables(statistics))
    check_table(worst, width, [row.tensor_index for row in statistics.rows])


@pytest.mark.parametrize("width", WIDTHS)
def test_the_many_runs_tables_keep_headers_and_names_whole(runs: RunsSummary, width: int) -> None:
    names = [run.label for run in runs.runs] + [t.tensor for t in runs.tensors]
    names += [run.first_failure.op for run in runs.runs if run.first_failure is not None]
    failing, most = tables(summary_renderables(runs))
    check_table(failing, width, names)
    check_table(most, width, names)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_single_op_tables_keep_headers_and_numbers_whole(demo, width: int) -> None:
    _, folder = demo
    detail = single_op_detail(folder / "npu", folder / "golden", "block2/relu1_fused", top=5,
                              options=CompareOptions(fusion_rule=read_graph(folder / "model.json")))
    for table in single_op_tables(detail):
        lines = rendered(table, width)
        check_table(table, width, [])
        numbers = [cell for row in table.rows for cell in row[2:] if isinstance(cell, str)]
        assert all(any(number in line for line in lines) for number in numbers), "\n".join(lines)


def test_a_why_column_with_a_reason_is_kept_and_its_words_wrap_at_spaces() -> None:
    table = ConsoleTable("worst", [Column("TensorIndex", wrap=Wrap.NAME), Column("Why", wrap=Wrap.WORDS)])  # prose only
    table.add_row("a/b:output:0", "")
    table.add_row("c/d:output:0", "shapes differ after the walk-back")
    for width in (30, 60, 200):
        lines = rendered(table, width)
        assert split_headers(lines, ["TensorIndex", "Why"]) == [] and too_wide(lines, width) == []
        assert split_headers(lines, ["walk-back", "differ"]) == []


def test_a_name_breaks_after_its_separators_and_folds_only_a_part_wider_than_the_cell() -> None:
    name = "block2/relu1_fused:output:0"
    assert name_lines(name, 27) == [name]
    assert name_lines(name, 20) == ["block2/relu1_fused:", "output:0"]
    assert name_lines(name, 12) == ["block2/", "relu1_fused:", "output:0"]
    assert name_lines(name, 8) == ["block2/", "relu1_fu", "sed:", "output:0"]  # the last resort
    assert name_lines("a: b", 2) == ["a:", "b"]  # the space at a break is not kept


# --- the commands, at the caller's width ---------------------------------------------------------

def _opdiff(cwd: Path, *args: str) -> List[str]:
    env = child_env(PATH=os.environ.get("PATH", ""), **({"COLUMNS": os.environ["COLUMNS"]} if "COLUMNS" in os.environ else {}))
    done = subprocess.run([sys.executable, "-m", "opdiff", *args], cwd=cwd, capture_output=True, text=True, env=env,
                          check=True)
    return done.stdout.splitlines()


def _between(lines: List[str], first: str, after: str) -> List[str]:
    """The lines from the one that starts with `first` to the one before the next that starts with `after`."""
    start = next(k for k, line in enumerate(lines) if line.startswith(first))
    return lines[start:next(k for k in range(start, len(lines)) if lines[k].startswith(after))]


def _columns() -> int:
    return int(os.environ.get("COLUMNS", "80"))  # what rich takes when COLUMNS is unset and output is no terminal


def _csv_names(folder: Path) -> List[str]:
    (result,) = folder.glob("result_*.csv")
    return [row[key] for row in csv.DictReader(result.open()) for key in ("NPUDump", "TensorIndex")]


@pytest.mark.cli_output
def test_the_demo_console_keeps_headers_and_names_whole(tmp_path: Path) -> None:
    lines = _between(_opdiff(tmp_path, "demo", "--dir", "data"), "worst tensors", "first failing tensor")
    assert split_headers(lines, WORST_HEADERS) == [], "\n".join(lines)
    assert split_headers(lines, ["Why"]) == ["Why"]  # no tensor has a reason: no empty column
    assert broken_names(lines, _csv_names(tmp_path / "data")) == [], "\n".join(lines)
    assert too_wide(lines, _columns()) == []


@pytest.mark.cli_output
def test_the_statistics_demo_console_keeps_headers_and_names_whole(tmp_path: Path) -> None:
    lines = _between(_opdiff(tmp_path, "demo", "--statistics", "--dir", "data"), "tensors whose statistics", "first failing")
    headers = ("Index", "TensorIndex", "Max my/golden", "Min my/golden", "Mean my/golden", "NormDiff")
    assert split_headers(lines, headers) == [], "\n".join(lines)
    (result,) = (tmp_path / "data").glob("result_*.csv")
    names = [row["TensorIndex"] for row in csv.DictReader(result.open())]
    assert broken_names(lines, names) == [], "\n".join(lines)
    assert too_wide(lines, _columns()) == []


@pytest.mark.cli_output
def test_the_many_runs_console_keeps_headers_and_names_whole(tmp_path: Path) -> None:
    tree = write_dump_tree(tmp_path, fault=Fault(device=1, step=1))
    lines = _opdiff(tmp_path, "compare", "-m", tree.root.name, "-g", "golden", "-f", tree.rule.name, "-out", "out")
    tables: Dict[str, List[str]] = {
        "failing": _between(lines, "failing runs and where", "tensors failing in most runs"),
        "most": _between(lines, "tensors failing in most runs", "summary:"),
    }
    headers = {"failing": ("run", "failing", "compared", "first failing op", "tensor"),
               "most": ("tensor", "runs failing", "first failure in", "worst", "median", "best")}
    names = list(tree.npu_ops) + [f"{d}_{tree.model}_{s}" for d in tree.devices for s in tree.steps]
    names += [f"{op}:{role}:{k}" for op in tree.npu_ops for role in ("input", "output") for k in range(3)]
    for key, table in tables.items():
        assert split_headers(table, headers[key]) == [], "\n".join(table)
        assert broken_names(table, names, prose=[*table[:2], *headers[key]]) == [], "\n".join(table)
        assert too_wide(table, _columns()) == []
