"""The grammar of a limit given on the command line (``--fail-under METRIC=VALUE``), for tensor and
statistics metrics alike."""

from __future__ import annotations

from typing import Tuple


def parse_limit(text: str, example: str) -> Tuple[str, float]:
    """``METRIC=VALUE`` as (metric, value); ValueError naming the text and showing `example`.

    >>> parse_limit(" CosineSimilarity=0.99", "CosineSimilarity=0.99")
    ('CosineSimilarity', 0.99)
    """
    name, _, value = text.partition("=")
    try:
        return name.strip(), float(value)
    except ValueError as error:
        raise ValueError(f"bad threshold {text!r}: {error}; expected METRIC=VALUE, e.g. {example}") from None


def limit_metric(text: str) -> str:
    """The metric a ``METRIC=VALUE`` text names."""
    return text.partition("=")[0].strip()
