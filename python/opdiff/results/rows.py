"""The row schema every report writer reads: one compared tensor (or one tensor that could not be
compared, with the reason)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple

from opdiff.numerics.values import Metrics
from opdiff.results.local_error import LocalError


@dataclass(frozen=True)
class TensorId:
    """Which tensor a row is about, as fields: the op (as the plan names it), its role ("input" or
    "output"; None for a row about a whole op, such as one without a dump), the tensor's index in
    that role, and under ``--all`` the op's run. ``str()`` is the reference's TensorIndex text.

    >>> str(TensorId("conv1", "output", 0)), str(TensorId("conv1", "input", 1, run=2)), str(TensorId("conv1"))
    ('conv1:output:0', 'conv1#2:input:1', 'NaN')
    """

    op: str
    role: Optional[str] = None
    index: Optional[int] = None
    run: Optional[int] = None  # k of ``--all`` (the op's k-th dump); None when only the newest is compared

    @property
    def op_label(self) -> str:
        """The op as the reports name it: ``op``, or ``op#k`` for run k of ``--all``."""
        return self.op if self.run is None else f"{self.op}#{self.run}"

    def __str__(self) -> str:
        return "NaN" if self.role is None else f"{self.op_label}:{self.role}:{self.index}"


@dataclass(frozen=True)
class CompareRow:
    """One tensor pair of a network comparison, in the reference tool's terms.

    ``npu_dump`` / ``ground_truth`` name the ops on each side (``"*"`` when a side has none),
    ``tensor`` says which tensor it is (its text, ``tensor_index``, is ``"{op}:{input|output}:{i}"``);
    ``metrics`` is None when the pair could not be compared, and ``reasons`` says why (or carries
    notes for a compared pair).

    >>> row = CompareRow(index=0, op_type="Conv2D", npu_dump="conv1", ground_truth="conv1",
    ...                  tensor=TensorId("conv1", "output", 0), reasons=("no golden file",))
    >>> row.compared, row.tensor_index
    (False, 'conv1:output:0')
    """

    index: int
    op_type: str
    npu_dump: str
    ground_truth: str
    tensor: TensorId
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
    # the op's own error (opdiff compare --isolate): the output re-run alone on the device's inputs
    local: Optional[LocalError] = None
    # the plug-in algorithms' cells (-c, -alg Name): (name, text as the plug-in returned it), in -alg order
    custom: Tuple[Tuple[str, str], ...] = ()
    # the reference CSV's text of `metrics`' ten reference metrics (-alg order, joined as a CSV line
    # holds them) as the core wrote it when it compared the pair; empty for a row made in Python,
    # whose writers format `metrics`
    reference_text: str = field(default="", repr=False, compare=False)

    @property
    def compared(self) -> bool:
        return self.metrics is not None

    def custom_value(self, name: str) -> Optional[str]:
        """The text plug-in algorithm `name` gave this row (None: not run on it)."""
        return next((text for key, text in self.custom if key == name), None)

    @property
    def tensor_index(self) -> str:
        """The TensorIndex column's text."""
        return str(self.tensor)
