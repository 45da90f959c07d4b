"""How one :class:`opdiff.Metrics` looks in a terminal (rich) and in a notebook (HTML).

Both views show the same compact summary: the reference metrics plus SQNR and the allclose
fraction, the per-side statistics, and the notes.

>>> import numpy as np, opdiff
>>> m = opdiff.metrics(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.5]))
>>> ("MaxAbsoluteError", "0.5 (at index 2)") in metric_rows(m)
True
"""

from __future__ import annotations

import html
import math
from typing import Any, List, Protocol, Sequence, Tuple

from rich.console import Group
from rich.table import Table

from opdiff.numerics.overflow import Extremes
from opdiff.numerics.schema import METRICS, STANDARD_DEVIATION


class SideLike(Extremes, Protocol):
    """What the view reads of one side's statistics (values.SideStats): the overflow rule's extremes
    and counts, and the mean and std."""

    @property
    def mean(self) -> float: ...
    @property
    def std(self) -> float: ...


class MetricsLike(Protocol):
    """What the view reads of a values.Metrics (its metric fields by the schema's names). A protocol:
    Metrics shows itself through this module, which therefore does not import it back."""

    @property
    def count(self) -> int: ...
    @property
    def x(self) -> SideLike: ...
    @property
    def y(self) -> SideLike: ...
    @property
    def notes(self) -> Sequence[Any]: ...  # values.Note members (str enums)


def number(value: float) -> str:
    """Six significant digits; NaN and infinities as nan, inf, -inf.

    >>> number(0.123456789), number(float("nan")), number(-float("inf"))
    ('0.123457', 'nan', '-inf')
    """
    return "nan" if math.isnan(value) else f"{value:.6g}"


def metric_rows(m: MetricsLike) -> List[Tuple[str, str]]:
    """(name, value) pairs of the summary, in the reference tool's order."""
    rows = [("elements", str(m.count))]
    for spec in METRICS:
        if spec.name == STANDARD_DEVIATION:  # the per-side table shows mean and std
            continue
        text = number(getattr(m, spec.field or ""))
        if spec.index_field is not None:
            text += f" (at index {getattr(m, spec.index_field)})"
        rows.append((spec.label, text))
    return rows


SIDE_COLUMNS = ("side", "min", "max", "mean", "std", "NaN", "+Inf", "-Inf")


def side_row(label: str, side: SideLike) -> Tuple[str, ...]:
    return (label, number(side.min), number(side.max), number(side.mean), number(side.std), str(side.nan),
            str(side.pos_inf), str(side.neg_inf))


def metrics_renderable(m: MetricsLike) -> Group:
    """The summary as rich tables (what ``rich.print(metrics)`` shows)."""
    values = Table(title="opdiff metrics (my vs golden)", title_justify="left", show_header=False)
    values.add_column("metric")
    values.add_column("value", justify="right")
    for name, value in metric_rows(m):
        values.add_row(name, value)
    sides = Table(show_edge=True)
    for column in SIDE_COLUMNS:
        sides.add_column(column, justify="left" if column == "side" else "right")
    sides.add_row(*side_row("my", m.x))
    sides.add_row(*side_row("golden", m.y))
    notes = [f"note: {note.value}" for note in m.notes]
    return Group(values, sides, *notes)


def _cells(tag: str, values: Tuple[str, ...]) -> str:
    return "".join(f"<{tag}>{html.escape(value)}</{tag}>" for value in values)


def metrics_html(m: MetricsLike) -> str:
    """The summary as an HTML fragment (a notebook's rich display of a Metrics); every text escaped."""
    parts = ['<div class="opdiff-metrics">', "<table>", "<caption>opdiff metrics (my vs golden)</caption>", "<tbody>"]
    parts += [f"<tr><th style=\"text-align:left\">{html.escape(name)}</th><td>{html.escape(value)}</td></tr>"
              for name, value in metric_rows(m)]
    parts += ["</tbody>", "</table>", "<table>", f"<thead><tr>{_cells('th', SIDE_COLUMNS)}</tr></thead>", "<tbody>"]
    parts += [f"<tr>{_cells('td', side_row('my', m.x))}</tr>", f"<tr>{_cells('td', side_row('golden', m.y))}</tr>"]
    parts += ["</tbody>", "</table>"]
    parts += [f"<p>note: {html.escape(note.value)}</p>" for note in m.notes]
    parts.append("</div>")
    return "\n".join(parts)
