"""The row schema every report writer reads: one compared tensor (or one tensor that could not be
compared, with the reason)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from opdiff.numerics.values import Metrics


@dataclass(frozen=True)
class CompareRow:
    """One tensor pair of a network comparison, in the reference tool's terms.

    ``npu_dump`` / ``ground_truth`` name the ops on each side (``"*"`` when a side has none),
    ``tensor_index`` is ``"{op}:{input|output}:{i}"``; ``metrics`` is None when the pair could not
    be compared, and ``reasons`` says why (or carries notes for a compared pair).

    >>> row = CompareRow(index=0, op_type="Conv2D", npu_dump="conv1", ground_truth="conv1",
    ...                  tensor_index="conv1:output:0", reasons=("no golden file",))
    >>> row.compared
    False
    """

    index: int
    op_type: str
    npu_dump: str
    ground_truth: str
    tensor_index: str
    my_dtype: Optional[str] = None
    my_address: Optional[str] = None
    golden_dtype: Optional[str] = None
    golden_address: Optional[str] = None
    shape: Optional[Tuple[int, ...]] = None
    # The Shape column as the reference prints it, where that differs from `shape`: the flat length
    # when it compares without a layout conversion (golden ND), the stored shape NPU vs NPU.
    reference_shape: Optional[Tuple[int, ...]] = None
    op_sequence: Optional[int] = None
    overflow: Optional[bool] = None
    metrics: Optional[Metrics] = None
    reasons: Tuple[str, ...] = ()

    @property
    def compared(self) -> bool:
        return self.metrics is not None
