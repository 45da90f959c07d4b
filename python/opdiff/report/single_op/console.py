"""The single-op detail on the terminal (rich): the metrics, the top-N tables and the histograms."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

from opdiff.report.console_table import Column, ConsoleTable, Wrap
from opdiff.report.number_text import fixed_or_dash
from opdiff.results.single_op import ElementError, Histogram, SingleOpDetail

_BAR_CELLS = (10, 40)  # the shortest and the longest a histogram's biggest bar is drawn




def _top_table(title: str, detail: SingleOpDetail, elements: Sequence[ElementError]) -> ConsoleTable:
    columns = [Column("Index", "right"), Column(detail.axes, wrap=Wrap.WORDS),
               *(Column(header, "right") for header in ("NPUDump", "GroundTruth", "AbsoluteError", "RelativeError"))]
    table = ConsoleTable(title, columns)
    for e in elements:
        table.add_row(str(e.flat), " ".join(str(c) for c in e.coords), fixed_or_dash(e.my), fixed_or_dash(e.golden), fixed_or_dash(e.absolute),
                      fixed_or_dash(e.relative))
    return table


@dataclass(frozen=True)
class _Bar:
    """A histogram bar as long as its share of the biggest count, scaled to the cells its column
    gets (from 10 to 40): a narrow terminal shortens every bar alike instead of cutting the longest."""

    count: int
    biggest: int

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(min(_BAR_CELLS), max(_BAR_CELLS))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        cells = max(1 if self.count else 0, round(options.max_width * self.count / self.biggest))
        yield Text("█" * cells, style="cyan")


def _histogram_table(title: str, histogram: Histogram) -> ConsoleTable:
    table = ConsoleTable(title, (Column("error", "right"), Column("elements", "right"), Column("")), show_edge=False)
    biggest = max(histogram.counts) or 1
    for label, count in zip(histogram.labels, histogram.counts):
        table.add_row(Text(label), str(count), _Bar(count, biggest))
    return table


def single_op_tables(detail: SingleOpDetail) -> List[ConsoleTable]:
    """The top-N tables and the histograms, in the order they print."""
    return [_top_table(f"top {len(detail.top_absolute)} by absolute error", detail, detail.top_absolute),
            _top_table(f"top {len(detail.top_relative)} by relative error", detail, detail.top_relative),
            _histogram_table("absolute error histogram", detail.absolute_histogram),
            _histogram_table("relative error histogram", detail.relative_histogram)]


def print_single_op(detail: SingleOpDetail, console: Optional[Console] = None) -> None:
    console = console or Console()
    m = detail.metrics
    console.print(f"[bold]{detail.tensor_index}[/]  NPUDump {detail.npu_dump}  GroundTruth {detail.ground_truth}", highlight=False)
    console.print(f"  shape {list(detail.shape)} ({detail.axes}), {detail.count} elements: cosine {fixed_or_dash(m.cosine_similarity)}, "
                  f"max abs error {fixed_or_dash(m.max_absolute_error)}, max rel error {fixed_or_dash(m.max_relative_error)}, "
                  f"RMSE {fixed_or_dash(m.root_mean_square_error)}", highlight=False)
    if detail.nonfinite_relative:
        console.print(f"  [yellow]{detail.nonfinite_relative} elements have a NaN/Inf relative error (golden 0 or NaN): "
                      "ranked as 0, shown as -[/]")
    for table in single_op_tables(detail):
        console.print(table)
