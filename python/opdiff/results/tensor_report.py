"""The result of a network comparison: its rows in Index order, what produced them, and the verdict
that judges them. ``opdiff.compare`` returns one; every report writer reads one."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Protocol, Tuple, Union

from rich.console import Group, RenderableType

from opdiff.graph.fusion_map import FusionMap
from opdiff.results.columns import CsvColumns
from opdiff.results.protocol import ResultFamily, no_views, summary_counts
from opdiff.results.rows import CompareRow
from opdiff.results.scenario import Scenario
from opdiff.results.verdict import PrecisionVerdict, Verdict, VerdictLike, as_verdict

PathLike = Union[str, "os.PathLike[str]"]


class TensorViews(Protocol):
    """How a Report shows itself and writes its reference-compatible CSV (report/tensor/views.py)."""

    def console(self, report: Report, csv_path: Optional[str]) -> List[RenderableType]: ...

    def notebook(self, report: Report, verdict: Verdict) -> str: ...

    def write_csv(self, report: Report, path: Path) -> Path: ...

    def table(self, report: Report) -> Tuple[List[str], List[List[str]]]: ...


@dataclass
class Report:
    """The rows of a comparison (in Index order) and what produced them.

    Pass and fail come from one verdict (opdiff.results.verdict): by default :meth:`verdict`, the
    precision rows of each tensor's dtype pair (cosine and NormRatioError); any method that takes
    ``verdict`` also takes a Verdict or a list of Thresholds (``--fail-under``). A notebook shows a
    Report as an HTML summary (``_repr_html_``) and ``rich.print(report)`` as the console report of
    ``opdiff compare`` (``__rich__``), both with the default verdict.

    ``opdiff.compare`` returns one (the demo's, opdiff.demo.report, shows it whole); built by hand:

    >>> import numpy as np
    >>> from opdiff.numerics.core_adapter import metrics
    >>> from opdiff.results.columns import CsvColumns
    >>> from opdiff.results.rows import TensorId
    >>> report = Report(Scenario.NPU_VS_GOLDEN, Path("npu"), Path("golden"), CsvColumns())
    >>> golden = np.linspace(1, 2, 64, dtype=np.float32)
    >>> for k, error in enumerate((1e-4, 0.2, 1e-4)):
    ...     mine = (golden * (1 + error * np.cos(np.arange(64)))).astype(np.float16)
    ...     report.rows.append(CompareRow(index=k, op_type="Conv2D", npu_dump=f"conv{k}", ground_truth=f"conv{k}",
    ...         tensor=TensorId(f"conv{k}", "output", 0), my_dtype="float16", golden_dtype="float32", metrics=metrics(mine, golden)))
    >>> report.first_failure().tensor_index, report.summary()
    ('conv1:output:0', {'rows': 3, 'compared': 3, 'failing': 1, 'passing': 2, 'not_compared': 0})
    >>> report.verdict().fails(report.rows[0])
    False
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
    # the fusion rule the comparison matched through (None: by name): the HTML report and the Model
    # Explorer node data draw its graph
    graph: Optional[FusionMap] = field(default=None, repr=False, compare=False)
    # how it shows itself and writes its CSV (report/tensor/views.py); opdiff.compare hands these over
    views: Optional[TensorViews] = field(default=None, repr=False, compare=False)
    # op name -> the NPU dump file its rows compared (its first run's): --isolate re-runs each op
    # on that very file's inputs, not on a second plan's choice
    my_files: Dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    # the last verdict's judgement of every row (verdict, rows list, judgements): the console alone
    # asks for the failing rows, the worst and the first failure, each under the same verdict
    _judged: Optional[Tuple[Verdict, List[CompareRow], List[bool]]] = field(
        default=None, init=False, repr=False, compare=False)

    @property
    def family(self) -> ResultFamily:
        return ResultFamily.TENSOR

    @property
    def compared(self) -> List[CompareRow]:
        return [row for row in self.rows if row.compared]

    def verdict(self, verdict: VerdictLike = None) -> Verdict:
        """`verdict` as a Verdict; None gives the default one, fitted to this report's rows (their
        dtypes, the scenario and the network's scale)."""
        if verdict is not None:
            return as_verdict(verdict)
        return PrecisionVerdict.for_rows(self.compared, npu_vs_npu=self.scenario.both_npu, quantized=self.quantized)

    def _fails(self, judge: Verdict) -> List[bool]:
        """``judge.fails`` of every row, in row order; recomputed when rows were added or replaced."""
        # Verdicts are frozen dataclasses: the default one, rebuilt on each call, compares equal.
        cached = self._judged
        if cached is None or cached[0] != judge or cached[1] is not self.rows or len(cached[2]) != len(self.rows):
            cached = self._judged = (judge, self.rows, [judge.fails(row) for row in self.rows])
        return cached[2]

    def failing(self, verdict: VerdictLike = None) -> List[CompareRow]:
        """Rows the verdict fails, in Index (execution) order."""
        judge = self.verdict(verdict)
        return [row for row, fails in zip(self.rows, self._fails(judge)) if fails]

    def first_failure(self, verdict: VerdictLike = None) -> Optional[CompareRow]:
        judge = self.verdict(verdict)
        return next((row for row, fails in zip(self.rows, self._fails(judge)) if fails), None)

    def worst(self, count: int = 10, verdict: VerdictLike = None) -> List[CompareRow]:
        """The compared rows the verdict fails, then the others, each by lowest cosine (NaN first:
        those are the most broken)."""
        judge = self.verdict(verdict)

        def key(judged: Tuple[CompareRow, bool]) -> Tuple[bool, float]:
            row, fails = judged
            value = row.metrics.cosine_similarity if row.metrics else math.nan
            return (not fails, -math.inf if math.isnan(value) else value)

        compared = [(row, fails) for row, fails in zip(self.rows, self._fails(judge)) if row.compared]
        return [row for row, _ in sorted(compared, key=key)[:count]]

    def summary(self, verdict: VerdictLike = None) -> Dict[str, int]:
        return summary_counts(len(self.rows), len(self.compared), len(self.failing(verdict)))

    def to_csv(self, path: PathLike) -> Path:
        """Write the reference tool's result CSV (through a temporary file)."""
        return self._views("write its CSV").write_csv(self, Path(path))

    def _views(self, what: str) -> TensorViews:
        if self.views is None:
            raise no_views(self, what)
        return self.views

    def _repr_html_(self) -> str:
        """Jupyter's rich display: a compact HTML summary (opdiff.report.tensor.notebook)."""
        return self._views("show itself").notebook(self, self.verdict())

    def __rich__(self) -> Group:
        """What ``rich.print(report)`` shows: the console report of ``opdiff compare``."""
        csv_path = None if self.csv_path is None else str(self.csv_path)
        return Group(*self._views("show itself").console(self, csv_path))

    def to_pandas(self) -> Any:  # pragma: no cover - optional dependency
        """The rows as a pandas DataFrame with the CSV's columns (needs pandas)."""
        import pandas as pd

        header, cells = self._views("lay out its rows").table(self)
        return pd.DataFrame(cells, columns=header)
