"""``-r START,END,STEP`` and ``-s I1,I2,...``: which fusion-rule op ids a comparison keeps. One run
resolves them against its rule once; many runs resolve them against each run's own rule."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from opdiff.graph import FusionMap


@dataclass(frozen=True)
class IdSelection:
    """``-r`` or ``-s`` as given: resolved against a rule when the rule is known (one run's, or each
    run's own among many). A mistake in the text is a ValueError when the selection is made.

    >>> IdSelection(select="1,3").resolve(None)
    Traceback (most recent call last):
    ValueError: -r and -s select fusion-rule ids: they need -f
    >>> IdSelection(range_text="2,-1,2").range_text
    '2,-1,2'
    """

    range_text: Optional[str] = None  # -r START,END,STEP (END = -1: the rule's last id)
    select: Optional[str] = None  # -s I1,I2,...

    def __post_init__(self) -> None:
        if self.range_text and self.select:
            raise ValueError("-r and -s both select fusion-rule ids: give one of them")
        parse_ids(self.range_text, self.select, 0)

    def resolve(self, rule: Optional[FusionMap]) -> Optional[Tuple[int, ...]]:
        """The ids `rule` keeps; ValueError without a rule."""
        ids = ids_for_rule(self.range_text, self.select, rule)
        return tuple(ids) if ids is not None else None


def parse_ids(range_text: Optional[str], select_text: Optional[str], last_id: int) -> Optional[List[int]]:
    """Fusion-rule ids selected by -r START,END,STEP or -s I1,I2,... (None: all)."""
    if select_text:
        return [int(part) for part in select_text.split(",") if part.strip()]
    if range_text:
        parts = [int(part) for part in range_text.split(",")]
        if len(parts) != 3 or parts[0] < 1 or parts[2] < 1:
            raise ValueError(f"-r wants START,END,STEP with START >= 1 and STEP >= 1, got {range_text!r}")
        start, end, step = parts
        end = last_id if end == -1 else end
        return [i for i in range(start, end + 1) if (i - start) % step == 0 or i == end]
    return None


def last_rule_id(rule: Optional[FusionMap]) -> int:
    """The largest op id of `rule` (what ``END=-1`` of ``-r`` means); 0 without a rule."""
    return max((op.id for op in rule.ops), default=0) if rule is not None else 0


def ids_for_rule(range_text: Optional[str], select_text: Optional[str], rule: Optional[FusionMap]) -> Optional[Sequence[int]]:
    """The ids `rule` keeps under ``-r``/``-s``; ValueError when they are given without a rule."""
    if (range_text or select_text) and rule is None:
        raise ValueError("-r and -s select fusion-rule ids: they need -f")
    return parse_ids(range_text, select_text, last_rule_id(rule))
