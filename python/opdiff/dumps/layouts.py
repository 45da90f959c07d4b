"""numpy encoders from a logical array to every stored layout opdiff decodes.

The writer uses these to make realistic dumps; reading goes through the C++ core. A logical array
is given in its family's canonical order: NCHW for 4-D formats, NCDHW for 5-D ones, ``(..., rows,
cols)`` for FRACTAL_NZ, anything for ND. Padding (channels up to C1*C0, rows and output channels up
to multiples of 16) is zero, as on the device.

>>> import numpy as np
>>> stored = encode(np.ones((1, 3, 2, 2), np.float16), "NC1HWC0", c0=16)
>>> stored.shape, float(stored[0, 0, 0, 0, :4].sum())
((1, 1, 2, 2, 16), 3.0)
"""

from __future__ import annotations

import math
from typing import Tuple

import numpy as np

#: The canonical logical order of each stored format's family.
CANONICAL = {
    "NCHW": "NCHW", "NHWC": "NCHW", "HWCN": "NCHW", "CHWN": "NCHW",
    "NC1HWC0": "NCHW", "NC1HWC0_C04": "NCHW", "C1HWNCoC0": "NCHW", "FRACTAL_Z": "NCHW",
    "NCDHW": "NCDHW", "NDHWC": "NCDHW", "DHWCN": "NCDHW", "NDC1HWC0": "NCDHW", "FRACTAL_Z_3D": "NCDHW",
    "FRACTAL_NZ": "ND", "ND": "ND",
}  # fmt: skip

N0 = 16  # rows of a fractal (output channels / matrix rows): 16 for every dtype


def _pad_axis(array: np.ndarray, axis: int, size: int) -> np.ndarray:
    if array.shape[axis] == size:
        return array
    widths = [(0, 0)] * array.ndim
    widths[axis] = (0, size - array.shape[axis])
    return np.pad(array, widths)


def transpose_letters(array: np.ndarray, source: str, target: str) -> np.ndarray:
    """Reorder axes named by letters, e.g. NCHW -> NHWC."""
    if sorted(source) != sorted(target) or array.ndim != len(source):
        raise ValueError(f"cannot reorder a {array.ndim}-D {source} array as {target}")
    return np.transpose(array, [source.index(letter) for letter in target])


def fractal_z_group_factor(groups: int, n_per_group: int, c_per_group: int, c0: int) -> int:
    """How many groups share one FRACTAL_Z block (docs/reference/reference-tool.md §5.2: ``e``)."""
    return min(
        math.lcm(c_per_group, c0) // c_per_group,
        math.lcm(n_per_group, N0) // n_per_group,
        groups,
    )


def _fractal_z_grouped(x: np.ndarray, groups: int, c0: int) -> np.ndarray:
    n, c, h, w = x.shape
    if n % groups:
        raise ValueError(f"N={n} is not a multiple of groups={groups}")
    n_per = n // groups
    e = fractal_z_group_factor(groups, n_per, c, c0)
    c1 = -(-e * c // c0)
    no = -(-e * n_per // N0)
    outer = -(-groups // e)
    stored = np.zeros((outer * c1 * h * w, no, N0, c0), dtype=x.dtype)
    view = stored.reshape(outer, c1, h, w, no, N0, c0)
    for g in range(groups):
        ev = g % e
        dc = ev * c + np.arange(c)
        dn = ev * n_per + np.arange(n_per)
        block = x[g * n_per : (g + 1) * n_per]  # (n_per, c, h, w)
        # view[g//e, dc//c0, h, w, dn//16, dn%16, dc%c0] = block[ni, ci, h, w]; the integer and
        # array indices are split by slices, so numpy puts the n axis first, as `block` has it.
        target = view[g // e]
        for ci in range(c):
            target[dc[ci] // c0, :, :, dn // N0, dn % N0, dc[ci] % c0] = block[:, ci]
    return stored


def encode(array: np.ndarray, layout: str, *, c0: int = 16, groups: int = 1) -> np.ndarray:
    """The stored array of `layout` for a logical `array` in the family's canonical order."""
    x = np.asarray(array)
    if layout in ("ND", "NCHW", "NCDHW"):
        return x
    if layout in ("NHWC", "HWCN", "CHWN", "NDHWC", "DHWCN"):
        return transpose_letters(x, CANONICAL[layout], layout)
    if layout in ("NC1HWC0", "NC1HWC0_C04"):
        n, c, h, w = _need_rank(x, 4, layout)
        c1 = -(-c // c0)
        # asarray: no copy; numpy's stubs lose the array type through transpose
        return np.asarray(_pad_axis(x, 1, c1 * c0).reshape(n, c1, c0, h, w).transpose(0, 1, 3, 4, 2))
    if layout == "NDC1HWC0":
        n, c, d, h, w = _need_rank(x, 5, layout)
        c1 = -(-c // c0)
        # asarray: no copy; numpy's stubs lose the array type through transpose
        return np.asarray(_pad_axis(x, 1, c1 * c0).reshape(n, c1, c0, d, h, w).transpose(0, 3, 1, 4, 5, 2))
    if layout == "C1HWNCoC0":
        n, c, h, w = _need_rank(x, 4, layout)
        c1 = -(-c // c0)
        stored = np.zeros((c1, h, w, n, c0, c0), dtype=x.dtype)
        padded = _pad_axis(x, 1, c1 * c0).reshape(n, c1, c0, h, w)
        for k in range(c0):  # depthwise weights sit on the diagonal Co == C0
            stored[:, :, :, :, k, k] = padded[:, :, k].transpose(1, 2, 3, 0)
        return stored
    if layout == "FRACTAL_Z":
        n, c, h, w = _need_rank(x, 4, layout)
        if groups > 1:
            return _fractal_z_grouped(x, groups, c0)
        c1, no = -(-c // c0), -(-n // N0)
        padded = _pad_axis(_pad_axis(x, 0, no * N0), 1, c1 * c0)
        # asarray: no copy; numpy's stubs lose the array type through transpose
        return np.asarray(padded.reshape(no, N0, c1, c0, h, w).transpose(2, 4, 5, 0, 1, 3).reshape(c1 * h * w, no, N0, c0))
    if layout == "FRACTAL_Z_3D":
        n, c, d, h, w = _need_rank(x, 5, layout)
        c1, no = -(-c // c0), -(-n // N0)
        padded = _pad_axis(_pad_axis(x, 0, no * N0), 1, c1 * c0)
        stored = padded.reshape(no, N0, c1, c0, d, h, w).transpose(4, 2, 5, 6, 0, 1, 3)
        # asarray: no copy; numpy's stubs lose the array type through transpose
        return np.asarray(stored.reshape(d * c1 * h * w, no, N0, c0))
    if layout == "FRACTAL_NZ":
        m = x.reshape(1, -1) if x.ndim == 1 else x
        rows, cols = m.shape[-2:]
        no, c1 = -(-rows // N0), -(-cols // c0)
        padded = _pad_axis(_pad_axis(m, m.ndim - 2, no * N0), m.ndim - 1, c1 * c0)
        batch = padded.shape[:-2]
        tiles = padded.reshape(*batch, no, N0, c1, c0)
        k = len(batch)
        # asarray: no copy; numpy's stubs lose the array type through transpose
        return np.asarray(tiles.transpose(*range(k), k + 2, k, k + 1, k + 3))
    raise ValueError(f"cannot write layout {layout}; supported: ND and {', '.join(sorted(CANONICAL))}")


def _need_rank(x: np.ndarray, rank: int, layout: str) -> Tuple[int, ...]:
    if x.ndim != rank:
        raise ValueError(f"{layout} stores a {rank}-D logical array, got shape {x.shape}")
    return tuple(x.shape)


def pack_int4(values: np.ndarray) -> np.ndarray:
    """Packs int4 values (-8..7, any integer dtype) two per byte, low nibble first."""
    flat = np.asarray(values).astype(np.int16).reshape(-1)
    if flat.size and (flat.min() < -8 or flat.max() > 7):
        raise ValueError("int4 values must lie in -8..7")
    nibbles = (flat & 0x0F).astype(np.uint8)
    if nibbles.size % 2:
        nibbles = np.append(nibbles, np.uint8(0))
    return (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8)
