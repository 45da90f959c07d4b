import numpy as np
import pytest

import opdiff
from opdiff.report.tensor.reference_format import format_metric


def formatted(x, y, name):
    return format_metric(name, opdiff.metrics(np.asarray(x, np.float32), np.asarray(y, np.float32)))


def test_numbers_use_six_decimals_and_lower_case_specials():
    assert formatted([1, 2], [1, 2.5], "MaxAbsoluteError") == "0.500000"
    assert formatted([1, np.inf], [1, 2], "MaxAbsoluteError") == "inf"
    assert formatted([1, np.nan], [1, 2], "MeanAbsoluteError") == "nan"


def test_cosine_tokens():
    assert formatted([0, 0], [0, 0], "CosineSimilarity") == "1.0"
    assert formatted([1, 2], [0, 0], "CosineSimilarity") == "NaN"
    assert formatted([[3.0]], [[1.0]], "CosineSimilarity") == "1.000000"


def test_empty_tensors_have_not_computed_max_metrics():
    for name in ("MaxAbsoluteError", "MaxRelativeError", "KullbackLeiblerDivergence"):
        assert formatted([], [], name) == "NaN"
    assert formatted([], [], "MeanAbsoluteError") == "nan"


def test_standard_deviation_format_zeroes_tiny_values():
    assert formatted([1, 3], [0.0001, -0.0001], "StandardDeviation") == "(2.000;1.000),(0.000;0.000)"


def test_kl_not_requested_is_not_computed():
    m = opdiff.metrics(np.ones(3), np.ones(3), algorithms=[0])
    assert format_metric("KullbackLeiblerDivergence", m) == "NaN"


@pytest.mark.parametrize("name", opdiff.ALGORITHMS)
def test_every_algorithm_formats(name):
    assert isinstance(formatted([1, 2, 3], [1, 2, 4], name), str)


@pytest.mark.parametrize("x, y", [
    ([1.0, 2.0, 3.0], [1.0, 2.5, 2.0]),      # no notes: the fast path
    ([0.0, 0.0, 0.0], [1.0, 2.0, 3.0]),      # my side all zero: notes
    ([1.0, float("nan"), 3.0], [1.0, 2.0, 3.0]),
    ([0.0001, -0.0002, 5.0], [-3.0, 1e-7, 4.0]),
])
def test_format_metrics_equals_each_metric_formatted_alone(x, y):
    from opdiff.report.tensor.reference_format import format_metrics

    m = opdiff.metrics(np.asarray(x, np.float32), np.asarray(y, np.float32))
    assert format_metrics(opdiff.ALGORITHMS, m) == [format_metric(name, m) for name in opdiff.ALGORITHMS]
