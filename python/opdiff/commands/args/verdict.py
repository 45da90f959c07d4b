"""What a comparison computes and how it is judged: -alg, -max, -overflow_detection (into
CompareOptions), and the verdict's --fail-under, --fail and --thresholds (into Limits). One run
(commands/compare/command.py) and many (commands/compare/runs.py) read them the same way."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from opdiff.engine.options import CompareOptions
from opdiff.numerics.core_results import resolve_algorithms as _resolve_algorithms
from opdiff.results.statistics_verdict import StatisticsThreshold, is_statistics_threshold
from opdiff.results.verdict import REFERENCE_THRESHOLDS, Threshold, ThresholdVerdict, Verdict


def parse_algorithms(tokens: Optional[Sequence[str]], custom: Sequence[str] = ()) -> List[str]:
    """-alg's names and indices as names; `custom` names the plug-ins (-c), which only -alg selects
    (never the default, all built-ins, as in the reference)."""
    if not tokens:
        return list(_resolve_algorithms(None))
    items = [part.strip() for token in tokens for part in token.split(",") if part.strip()]
    builtin = [item for item in items if item not in custom]
    names = iter(_resolve_algorithms(builtin) if builtin else ())
    return [item if item in custom else next(names) for item in items]


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


def add_verdict(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-alg", "--algorithm", nargs="+", metavar="ALG",
                        help="algorithms by index or name: '-alg 0 1 4' or '-alg 0,MaxAbsoluteError' (default: all)")
    parser.add_argument("-max", "--max-cmp-size", dest="max_cmp_size", type=int, default=0, metavar="N",
                        help="compare only the first N elements of each tensor against golden files (default 0: all; "
                        "NPU against NPU always compares everything)")
    parser.add_argument("-overflow_detection", "--overflow-detection", action="store_true",
                        help="add the OverFlow column (fp16 |x| >= 65504 or Inf on my side)")
    add_fail_under(parser, "replace the default verdict by these limits (repeatable; CosineSimilarity fails below VALUE, "
                   "error metrics and NormRatioError above it) and exit 3 when a row violates one")
    parser.add_argument("--fail", action="store_true",
                        help="exit 3 when the verdict fails any tensor (for CI)")
    parser.add_argument("--thresholds", choices=("default", "reference"), default="default",
                        help="the verdict: default (per dtype pair: cosine and NormRatioError, docs/metrics.md) or "
                        "reference (the reference tool's CosineSimilarity >= 0.99 alone)")


def add_fail_under(parser: argparse.ArgumentParser, help: str) -> None:
    """``--fail-under METRIC=VALUE`` (repeatable, ``args.fail_under``): compare's limits, also the
    target of precision."""
    parser.add_argument("--fail-under", action="append", default=[], metavar="METRIC=VALUE", help=help)


def apply_verdict(args: argparse.Namespace, options: CompareOptions) -> CompareOptions:
    custom = options.plugin_set.algorithm_names if options.plugin_set is not None else ()
    return options.replace(algorithms=tuple(parse_algorithms(args.algorithm, custom)), max_elements=args.max_cmp_size,
                           overflow_detection=args.overflow_detection)


def limits_of(args: argparse.Namespace) -> Limits:
    """The verdict's limits the flags ask for; ValueError naming a limit that does not parse."""
    return parse_limits(args.fail_under, args.thresholds)
