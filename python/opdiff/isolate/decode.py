"""An NPU op's dumped tensor as ``--isolate`` feeds and compares it: in its logical layout, decoded
as the comparison decodes it (engine.layout_choice). A blocked layout is read in the origin format
its output desc names, so a TensorFlow model's NC1HWC0 activations come back NHWC, in the dump's own
original shape; any other layout as the dump stores it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from opdiff.dumps.formats import format_name
from opdiff.dumps.reader import DumpFormatError, DumpTensor
from opdiff.engine.layout_choice import BLOCKED_RANK, decoded_form
from opdiff.graph import OutputDesc
from opdiff.match.op_matching import GoldenTarget

BLOCKED_FORMATS = frozenset(BLOCKED_RANK) | {"FRACTAL_NZ"}


def logical_array(tensor: DumpTensor, desc: Optional[OutputDesc]) -> np.ndarray:
    """`tensor`'s values in its logical layout; `desc` is the output desc of the NPU op that
    produced it (None: the stored format's natural logical layout)."""
    if desc is None or format_name(tensor.format) not in BLOCKED_FORMATS:
        return tensor.to_numpy()
    target = GoldenTarget(None, format=desc.origin_format or None, shape=desc.origin_shape, ge_format=desc.ge_origin_format or None)
    layout, shape = decoded_form(False, tensor.format, tensor.shape, tensor.original_shape, tensor.origin_format, target)
    try:
        return tensor.to_numpy(format=layout, shape=shape)
    except (DumpFormatError, ValueError):  # a form the core cannot lay this tensor out in: its natural one
        return tensor.to_numpy()


@dataclass(frozen=True)
class Dumped:
    """A dumped input of an NPU op, decoded on first use by the runner that feeds it."""

    tensor: DumpTensor
    desc: Optional[OutputDesc]

    def to_numpy(self) -> np.ndarray:
        return logical_array(self.tensor, self.desc)
