"""Which of the reference's optional columns a comparison's rows carry: a property of the result
(what was compared, and how), which the CSV, xlsx and pandas views lay out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Sequence

from opdiff.numerics.schema import ALGORITHMS


@dataclass(frozen=True)
class CsvColumns:
    """Which of the reference's optional columns a result file has."""

    algorithms: Sequence[str] = ALGORITHMS
    op_sequence: bool = False  # with -r / -s
    my_address: bool = True  # dropped when the -m side holds .npy files
    golden_address: bool = True  # dropped when the -g side holds .npy files
    overflow: bool = False  # with -overflow_detection / -advisor
    # which of `algorithms` are plug-ins (-c): their cells are the rows' texts (CompareRow.custom),
    # in the place -alg gives them among the built-ins, as the reference writes them
    custom: Sequence[str] = ()

    def header(self) -> List[str]:
        names = ["Index"]
        if self.op_sequence:
            names.append("OpSequence")
        names += ["OpType", "NPUDump", "DataType"]
        if self.my_address:
            names.append("Address")
        names += ["GroundTruth", "DataType"]
        if self.golden_address:
            names.append("Address")
        names += ["TensorIndex", "Shape"]
        if self.overflow:
            names.append("OverFlow")
        return names + list(self.algorithms) + ["CompareFailReason"]
