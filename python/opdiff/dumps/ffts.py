"""FFTS+ sliced dumps (docs/reference/reference-tool.md §2.6): an op run as several thread slices is dumped
once per slice; its outputs are the slices joined along the cut axis.

The slicing facts come from the first attr of the dump header, a JSON text with ``threadMode``
(truthy: automatic mode), ``slice_instance_num``, ``outputCutList`` (per output, the cut factor of
each axis; the cut axis is the first whose factor is not 1) and ``output_tensor_slice`` (per thread,
per output, a ``{lower, higher}`` range per axis: the slice's shape is higher - lower).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

from opdiff.dumps.reader import DumpFile, DumpFormatError


@dataclass(frozen=True)
class SliceInfo:
    """What the dump header says about how an FFTS+ op was sliced."""

    automatic: bool
    slice_count: int
    output_cut_axes: Tuple[Optional[int], ...]  # per output; None: not cut
    output_shapes: Tuple[Tuple[Tuple[int, ...], ...], ...]  # per thread, per output

    @classmethod
    def from_dump(cls, dump: DumpFile) -> SliceInfo:
        if not dump.attrs:
            raise DumpFormatError(f"{dump.path}: an FFTS+ slice without its slicing attribute")
        try:
            info = json.loads(dump.attrs[0][1])
            cuts = tuple(next((axis for axis, factor in enumerate(factors) if int(factor) != 1), None)
                         for factors in info.get("outputCutList", []))
            shapes = tuple(
                tuple(tuple(int(r["higher"]) - int(r["lower"]) for r in tensor) for tensor in thread)
                for thread in info.get("output_tensor_slice", [])
            )
            return cls(bool(info.get("threadMode")), int(info.get("slice_instance_num", 0)), cuts, shapes)
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            raise DumpFormatError(f"{dump.path}: unreadable FFTS+ slicing attribute ({error})") from None


def merged_output(slices: Sequence[DumpFile], index: int, info: SliceInfo, notes: List[str]) -> np.ndarray:
    """Output `index` of an op dumped as `slices` (in thread order), joined along its cut axis.

    Each slice is read in its own logical layout with the thread's shape from the attribute.
    """
    if info.slice_count and info.slice_count != len(slices):
        notes.append(f"{len(slices)} slice files for {info.slice_count} slices")
    parts = []
    for thread, dump in enumerate(slices):
        shape = info.output_shapes[thread][index] if thread < len(info.output_shapes) else None
        parts.append(dump.outputs[index].to_numpy(shape=shape))
    axis = info.output_cut_axes[index] if index < len(info.output_cut_axes) else None
    if axis is None:
        return parts[0]
    return np.concatenate(parts, axis=axis)
