"""Parsing what `opdiff compare` is given: the metrics (-alg), the op ids (-r, -s) and the verdict
(--fail-under, --thresholds). One run (commands/compare/command.py) and many (commands/compare/runs.py)
read the flags the same way."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from opdiff.match.id_selection import parse_ids as parse_ids  # re-exported: one run and many read -r/-s alike
from opdiff.numerics.core_results import resolve_algorithms as _resolve_algorithms
from opdiff.results.statistics_verdict import StatisticsThreshold, is_statistics_threshold
from opdiff.results.verdict import REFERENCE_THRESHOLDS, Threshold, ThresholdVerdict, Verdict


def parse_algorithms(tokens: Optional[Sequence[str]]) -> List[str]:
    if not tokens:
        return list(_resolve_algorithms(None))
    items = [part.strip() for token in tokens for part in token.split(",") if part.strip()]
    return list(_resolve_algorithms(items))


def parse_verdict(fail_under: Sequence[str], thresholds: str) -> Optional[Verdict]:
    """The verdict the flags ask for: ``--fail-under`` limits, the reference's rule, or None (the
    report's default verdict)."""
    if fail_under:
        if thresholds != "default":
            raise ValueError("--fail-under gives the verdict's limits itself: it does not combine with --thresholds")
        return ThresholdVerdict(tuple(Threshold.parse(text) for text in fail_under))
    if thresholds == "reference":
        return ThresholdVerdict(REFERENCE_THRESHOLDS, name="reference")
    return None


def split_fail_under(texts: Sequence[str]) -> Tuple[List[str], List[str]]:
    """``--fail-under`` texts as (those for tensor metrics, those for statistics metrics); a
    statistics limit that does not parse is a ValueError (exit 2) before anything is compared."""
    statistics = [text for text in texts if is_statistics_threshold(text)]
    for text in statistics:
        StatisticsThreshold.parse(text)
    return [text for text in texts if not is_statistics_threshold(text)], statistics


@dataclass(frozen=True)
class Limits:
    """What the flags ask of the verdict, parsed before anything is compared: which family's
    limits apply is known only once the dumps are read (commands/compare/finish.py)."""

    tensor: Optional[Verdict]  # --fail-under on tensor metrics, or --thresholds reference; None: the default
    tensor_texts: Sequence[str]  # the tensor limits as given, for messages
    statistics: Sequence[str]  # --fail-under on statistics metrics


def parse_limits(fail_under: Sequence[str], thresholds: str) -> Limits:
    """``--fail-under`` and ``--thresholds`` as Limits; ValueError naming a limit that does not parse."""
    tensor_texts, statistics = split_fail_under(fail_under)
    return Limits(parse_verdict(tensor_texts, thresholds), tensor_texts, statistics)


def check_common_flags(args: argparse.Namespace) -> None:
    """What one comparison and many runs both refuse; ValueError naming the flag."""
    if args.max_cmp_size < 0:
        raise ValueError(f"-max wants a count >= 0 (0 compares every element), got {args.max_cmp_size}")
    if args.close_fusion_rule_file and not args.fusion_rule_file:
        raise ValueError("-cf needs -f (the fusion-on model)")
