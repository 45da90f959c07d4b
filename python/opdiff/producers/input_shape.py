"""``--input-shape`` written as ATC's ``--input_shape``: ``"name:1,3,224,224;name2:16"``.

A frozen TensorFlow graph often leaves dims unknown (a batch of -1); a run needs sizes, and the
user gives them the way the ATC command line of the device side does, so one string serves both.
"""

from __future__ import annotations

from typing import Dict, Tuple


def parse_input_shape(text: str) -> Dict[str, Tuple[int, ...]]:
    """Input name -> shape; ValueError naming the part that is not ``NAME:D1,D2,...`` with sizes >= 0.

    A tensor name (``x:0``) stands for its op (``x``); an empty dim list is a scalar.

    >>> parse_input_shape("images:1,224,224,3;lengths:4")
    {'images': (1, 224, 224, 3), 'lengths': (4,)}
    >>> parse_input_shape("x:0:2,3;step:")
    {'x': (2, 3), 'step': ()}
    """
    shapes: Dict[str, Tuple[int, ...]] = {}
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        name, sep, dims = part.rpartition(":")
        if name.endswith(":0"):
            name = name[:-2]
        if not sep or not name:
            raise ValueError(f"--input-shape {part!r} is not NAME:D1,D2,... (ATC's --input_shape form)")
        try:
            shape = tuple(int(d) for d in dims.split(",")) if dims.strip() else ()
        except ValueError:
            raise ValueError(f"--input-shape {part!r}: dims must be integers (ranges and -1 need a size here)") from None
        if any(d < 0 for d in shape):
            raise ValueError(f"--input-shape {part!r}: a dim of -1 needs a size here")
        if name in shapes:
            raise ValueError(f"--input-shape names {name!r} twice")
        shapes[name] = shape
    return shapes
