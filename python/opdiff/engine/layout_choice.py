"""The logical form my tensor is decoded in to meet its golden file: the format and shape the
core lays it out in (docs/reference/reference-tool.md §2.5, §4.4).

The dump's own original shape is the tensor's logical shape, as the reference takes it, in the
origin format of its output desc. A blocked layout (NC1HWC0, FRACTAL_NZ, FRACTAL_Z, ...) is read
into that shape whatever the golden's: the core then compares the two by element count where the
element order allows (the shapes are one reshape apart, or NCHW and NHWC of each other), and says
so in the row where it does not. The origin format is the desc's `_datadump_origin_format`, else
GE's `origin_format` when the first says ND or RESERVED (a TensorFlow model's 4-D tensor has
`_datadump_origin_format` ND and `origin_format` NHWC, and read as NCHW its values are scrambled),
else the origin format the dump's own header records.

The desc is my tensor's own: where matching walked back past a TransData or Cast to the golden's
op, the dump's original shape is the TransData's output desc's, and so is the format that names
its axes (a TransData into NC1HWC0 of NHWC [100,7,7,32], fed by a [100,1568] MatMul whose desc
says ND: the MatMul's desc says nothing of the TransData's axes).
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

from opdiff.dumps.formats import format_name
from opdiff.match.op_matching import GoldenTarget

# The plain formats by rank, and the blocked formats by the rank of the logical shape they hold.
PLAIN_FORMATS = {4: ("NCHW", "NHWC", "HWCN", "CHWN"), 5: ("NCDHW", "NDHWC", "DHWCN")}
BLOCKED_RANK = {"NC1HWC0": 4, "NC1HWC0_C04": 4, "C1HWNCoC0": 4, "FRACTAL_Z": 4, "NDC1HWC0": 5, "FRACTAL_Z_3D": 5}
NZ_LIKE = ("FRACTAL_NZ", "NDC1HWC0")  # the reference converts these even against an ND golden
Shape = Tuple[int, ...]


def golden_is_nd(target: GoldenTarget) -> bool:
    return target.format in (None, "", "ND")


def my_layout(positional: bool, target: GoldenTarget) -> Optional[str]:
    """The format my tensor is laid out in with the golden's shape (padding removed), or None for
    each side in its own logical layout (NPU against NPU, or against an ND golden)."""
    return None if positional or golden_is_nd(target) else target.format


def origin_format(rank: int, target: GoldenTarget, dump_format: Optional[int] = None) -> Optional[str]:
    """The first format that names the axes of a `rank`-D tensor, if any: my tensor's own desc's
    (where it is not the golden op's), the golden op's desc's, then the origin format the dump
    itself records (its original_op's)."""
    own: Tuple[Optional[str], ...] = (target.own.format, target.own.ge_format) if target.own is not None else ()
    dumped = None if dump_format is None else format_name(dump_format)
    candidates: Tuple[Optional[str], ...] = (*own, target.format, target.ge_format, dumped)
    for candidate in candidates:
        if candidate in PLAIN_FORMATS.get(rank, ()):
            return candidate
    return None


def own_shape(original_shape: Sequence[int], target: GoldenTarget) -> Optional[Shape]:
    """My tensor's logical shape: the dump's original shape, else its own desc's, else the golden
    op's desc's."""
    if original_shape:
        return tuple(original_shape)
    if target.own is not None and target.own.shape:
        return target.own.shape
    return target.shape


def decoded_form(positional: bool, stored_format: int, stored_shape: Sequence[int], original_shape: Sequence[int],
                 dump_format: Optional[int], target: GoldenTarget) -> Tuple[Optional[str], Optional[Shape]]:
    """(format, shape) to decode my tensor in. The shape is my tensor's own (its dump's original
    shape, else the rule's origin shape), for the core to reconcile with the golden's; None: the
    golden's shape (plain layouts, and tensors that do not say their own)."""
    fallback = my_layout(positional, target), None
    own = own_shape(original_shape, target)
    if positional or not own:
        return fallback
    stored = format_name(stored_format)
    if stored == "FRACTAL_NZ":
        return "ND", own  # rows and columns whatever the letters: the shape says it all
    if stored in BLOCKED_RANK:
        rank = BLOCKED_RANK[stored]
        if len(own) != rank:
            return fallback
        return origin_format(rank, target, dump_format) or PLAIN_FORMATS[rank][0], own
    if stored in PLAIN_FORMATS.get(len(stored_shape), ()) and len(own) == len(stored_shape):
        chosen = origin_format(len(own), target, dump_format)
        return (chosen, own) if chosen is not None else fallback
    return fallback
