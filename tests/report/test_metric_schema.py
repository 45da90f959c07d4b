"""The metric schema (opdiff.numerics.schema) is the one list of metrics: the result types, the core's
typed result, the verdict, the JSON schema and the HTML page's fields follow it."""

from __future__ import annotations

import dataclasses
import json

import numpy as np

import opdiff
import opdiff._core as _core
from opdiff.numerics import schema
from opdiff.numerics.values import Metrics, SideStats
from opdiff.report.tensor.html_writer import ROW_FIELDS
from opdiff.report.tensor.json_writer import SCHEMA_PATH
from opdiff.results import verdict


def test_the_result_types_hold_the_schema_fields_in_its_order() -> None:
    assert [f.name for f in dataclasses.fields(Metrics)] == ["count", "x", "y", *schema.VALUE_FIELDS, "notes"]
    assert tuple(f.name for f in dataclasses.fields(SideStats)) == schema.SIDE_FIELDS


def test_the_core_result_has_every_schema_field() -> None:
    for name in ("count", *schema.VALUE_FIELDS, "note_bits"):
        assert hasattr(_core.MetricsResult, name), name
    for name in schema.SIDE_FIELDS:
        assert hasattr(_core.SideStats, name), name


def test_the_core_fields_tuple_is_in_the_schema_order() -> None:
    x = np.linspace(-1, 2, 50, dtype=np.float32)
    result = _core.compute_metrics(x, "float32", 50, x * 1.01 + 0.1, "float32", 50)
    count, mine, golden, *values, bits = result.fields()
    assert count == result.count and bits == result.note_bits
    assert values == [getattr(result, name) for name in schema.VALUE_FIELDS]
    assert [mine, golden] == [tuple(getattr(side, name) for name in schema.SIDE_FIELDS) for side in (result.x, result.y)]
    assert _core.MetricsResult.from_fields(result.fields()).fields() == result.fields()


def test_the_reference_algorithms_are_its_ten_in_order() -> None:
    assert opdiff.ALGORITHMS == schema.ALGORITHMS
    assert schema.ALGORITHMS == ("CosineSimilarity", "MaxAbsoluteError", "AccumulatedRelativeError", "RelativeEuclideanDistance",
                                 "KullbackLeiblerDivergence", "StandardDeviation", "MeanAbsoluteError", "RootMeanSquareError",
                                 "MaxRelativeError", "MeanRelativeError")
    assert [spec.name for spec in schema.METRICS][:10] == list(schema.ALGORITHMS)


def test_thresholds_take_the_schema_metrics() -> None:
    assert verdict.METRIC_FIELDS is schema.METRIC_FIELDS
    assert set(schema.METRIC_FIELDS) == set(schema.ALGORITHMS) - {"StandardDeviation"} | {"NormRatioError"}
    assert {name for name in schema.METRIC_FIELDS if name in schema.HIGHER_IS_BETTER} == {"CosineSimilarity"}


def test_the_json_schema_and_the_html_fields_follow_the_schema() -> None:
    document = json.loads(SCHEMA_PATH.read_text())
    metrics = document["$defs"]["metrics"] if "metrics" in document.get("$defs", {}) else None
    required = metrics["required"] if metrics else next(
        value["required"] for value in _objects(document) if "cosine_similarity" in value.get("required", []))
    assert required == ["count", "x", "y", *schema.VALUE_FIELDS, "notes", "reference"]
    assert [name for name in ROW_FIELDS if name in schema.VALUE_FIELDS] == list(schema.VALUE_FIELDS)


def _objects(node: object):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from _objects(value)
