"""The single-op detail on the terminal (rich): the metrics, the top-N tables and the histograms."""

from __future__ import annotations

import math
from typing import Optional, Sequence

from rich.console import Console
from rich.table import Table

from opdiff.results.single_op import ElementError, Histogram, SingleOpDetail


def _number(value: float) -> str:
    return f"{value:.6f}" if math.isfinite(value) else "-"


def _top_table(title: str, detail: SingleOpDetail, elements: Sequence[ElementError]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("Index", detail.axes, "NPUDump", "GroundTruth", "AbsoluteError", "RelativeError"):
        table.add_column(column, justify="left" if column == detail.axes else "right")
    for e in elements:
        table.add_row(str(e.flat), " ".join(str(c) for c in e.coords), _number(e.my), _number(e.golden), _number(e.absolute),
                      _number(e.relative))
    return table


def _histogram_table(title: str, histogram: Histogram, width: int = 40) -> Table:
    table = Table(title=title, title_justify="left", show_edge=False)
    table.add_column("error", justify="right")
    table.add_column("elements", justify="right")
    table.add_column("")
    biggest = max(histogram.counts) or 1
    for label, count in zip(histogram.labels, histogram.counts):
        bar = "█" * max(1 if count else 0, round(width * count / biggest))
        table.add_row(label, str(count), f"[cyan]{bar}[/]")
    return table


def print_single_op(detail: SingleOpDetail, console: Optional[Console] = None) -> None:
    console = console or Console()
    m = detail.metrics
    console.print(f"[bold]{detail.tensor_index}[/]  NPUDump {detail.npu_dump}  GroundTruth {detail.ground_truth}", highlight=False)
    console.print(f"  shape {list(detail.shape)} ({detail.axes}), {detail.count} elements: cosine {_number(m.cosine_similarity)}, "
                  f"max abs error {_number(m.max_absolute_error)}, max rel error {_number(m.max_relative_error)}, "
                  f"RMSE {_number(m.root_mean_square_error)}", highlight=False)
    if detail.nonfinite_relative:
        console.print(f"  [yellow]{detail.nonfinite_relative} elements have a NaN/Inf relative error (golden 0 or NaN): "
                      "ranked as 0, shown as -[/]")
    console.print(_top_table(f"top {len(detail.top_absolute)} by absolute error", detail, detail.top_absolute))
    console.print(_top_table(f"top {len(detail.top_relative)} by relative error", detail, detail.top_relative))
    console.print(_histogram_table("absolute error histogram", detail.absolute_histogram))
    console.print(_histogram_table("relative error histogram", detail.relative_histogram))
