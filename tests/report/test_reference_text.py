"""The reference CSV's metric text, written by the core (cpp/src/reference_text.cpp), against the
rules of docs/reference/reference-tool.md §6.1 stated here on their own: Python's ``%.6f``,
capitalised ``NaN`` where nothing is computed, the literal ``1.0`` of two all-zero sides, and
StandardDeviation's ``(mean;std),(mean;std)`` with small magnitudes shown as 0."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import List

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import opdiff
import opdiff._core as _core
from opdiff.demo.report import write_case
from opdiff.numerics.core_results import core_fields, metrics_from_core
from opdiff.numerics.schema import ALGORITHMS
from opdiff.numerics.values import Metrics, Note
from opdiff.report.tensor.csv_writer import csv_cell
from opdiff.report.tensor.reference_format import format_metrics, reference_cells

_FIELDS = {"MaxAbsoluteError": "max_absolute_error", "AccumulatedRelativeError": "accumulated_relative_error",
           "RelativeEuclideanDistance": "relative_euclidean_distance", "KullbackLeiblerDivergence": "kullback_leibler_divergence",
           "MeanAbsoluteError": "mean_absolute_error", "RootMeanSquareError": "root_mean_square_error",
           "MaxRelativeError": "max_relative_error", "MeanRelativeError": "mean_relative_error"}

_NOT_COMPUTED_WHEN_EMPTY = ("MaxAbsoluteError", "MaxRelativeError", "KullbackLeiblerDivergence")


def _not_computed(name: str, m: Metrics) -> bool:
    empty = name in _NOT_COMPUTED_WHEN_EMPTY and Note.EMPTY in m.notes
    return empty or (name == "KullbackLeiblerDivergence" and Note.KL_SKIPPED in m.notes)


def expected_cells(m: Metrics) -> List[str]:
    """The rules as the reference applies them, one metric at a time."""
    def spread(value: float) -> str:
        return f"{0.0 if abs(value) < 0.001 else value:.3f}"

    cells = []
    for name in ALGORITHMS:
        if name == "CosineSimilarity":
            if Note.SCALAR in m.notes:
                cells.append("1.000000")
            elif Note.BOTH_ZERO in m.notes:
                cells.append("1.0")
            elif Note.MY_ZERO in m.notes or Note.GOLDEN_ZERO in m.notes:
                cells.append("NaN")
            else:
                cells.append(f"{m.cosine_similarity:.6f}")
        elif name == "StandardDeviation":
            cells.append(f"({spread(m.x.mean)};{spread(m.x.std)}),({spread(m.y.mean)};{spread(m.y.std)})")
        elif _not_computed(name, m):
            cells.append("NaN")
        else:
            cells.append(f"{getattr(m, _FIELDS[name]):.6f}")
    return cells


_values = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -0.0, 0.0005, -0.0009999, 0.001,
                                                                                      -0.001, 0.0000005, 0.0000015, 2.5e-7, 1e308]))
_side = st.tuples(*[_values] * 4, *[st.integers(0, 5)] * 3)


@settings(max_examples=400, deadline=None)
@given(count=st.integers(0, 10**9), x=_side, y=_side, values=st.lists(_values, min_size=9, max_size=9),
       indices=st.tuples(st.integers(0, 2**63), st.integers(0, 2**63)), rest=st.tuples(_values, _values, _values),
       bits=st.integers(0, 127))
def test_the_core_writes_each_cell_as_the_rules_say(count, x, y, values, indices, rest, bits) -> None:
    result = _core.MetricsResult.from_fields((count, x, y, *values, *indices, *rest, bits))
    m = metrics_from_core(result)
    assert list(result.reference_cells()) == expected_cells(m)
    assert reference_cells(m) == result.reference_cells()  # a Python Metrics goes through the same code
    assert result.reference_text() == ",".join(f'"{cell}"' if "," in cell else cell for cell in result.reference_cells())


def test_numbers_are_correctly_rounded_and_never_negative_nan() -> None:
    assert _core.MetricsResult.from_fields(core_fields(_metrics(cosine=-math.nan, mae=0.0000005))).reference_cells()[0] == "nan"
    cells = reference_cells(_metrics(cosine=0.1234565, mae=2.675e-7))
    assert cells[0] == f"{0.1234565:.6f}" and cells[6] == f"{2.675e-7:.6f}"
    assert reference_cells(_metrics(cosine=-math.inf, mae=1e300))[0:1] == ("-inf",)
    assert reference_cells(_metrics(cosine=1.0, mae=1e300))[6] == f"{1e300:.6f}"


def test_a_compared_row_carries_the_cells_of_its_metrics(tmp_path: Path) -> None:
    case = write_case(tmp_path, seed=0, fault="block2/conv1", fault_scale=1.5)
    report = opdiff.compare(case["npu"], case["golden"], fusion_rule=case["rule"])
    compared = [row for row in report.rows if row.metrics is not None]
    assert compared and all(row.reference_text for row in compared)
    for row in compared:
        assert row.reference_text == ",".join(csv_cell(cell) for cell in format_metrics(ALGORITHMS, row.metrics)), row.tensor_index


def _metrics(*, cosine: float, mae: float) -> Metrics:
    x = np.array([1.0, 2.0, 4.0], np.float32)
    m = metrics_from_core(_core.compute_metrics(x, "float32", 3, x + 1, "float32", 3))
    return dataclasses.replace(m, cosine_similarity=cosine, mean_absolute_error=mae)
