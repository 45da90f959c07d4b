"""An op's verdict from its tensor rows: the one rule the HTML graph view and Model Explorer's node
data both show (an op is as good as its worst compared tensor)."""

from __future__ import annotations

from enum import Enum
from typing import Sequence

from opdiff.results.rows import CompareRow
from opdiff.results.verdict import Verdict


class OpVerdict(str, Enum):
    """An op's verdict: fail when any compared tensor fails, pass when every compared one passes."""

    PASS = "pass"
    FAIL = "fail"
    NOT_COMPARED = "not-compared"


def op_verdict(rows: Sequence[CompareRow], judge: Verdict) -> OpVerdict:
    """The verdict of an op from its rows.

    >>> from opdiff.results.rows import TensorId
    >>> from opdiff.results.verdict import PrecisionVerdict
    >>> op_verdict([CompareRow(0, "Add", "a", "a", TensorId("a"))], PrecisionVerdict.for_rows([], npu_vs_npu=False, quantized=False))
    <OpVerdict.NOT_COMPARED: 'not-compared'>
    """
    compared = [row for row in rows if row.compared]
    if not compared:
        return OpVerdict.NOT_COMPARED
    return OpVerdict.FAIL if any(judge.fails(row) for row in compared) else OpVerdict.PASS


__all__ = ["OpVerdict", "op_verdict"]
