"""The single-op detail's files, as the reference writes them (docs/reference/reference-tool.md §6.2):
``{prefix}.npy``, ``{prefix}_summary.txt``, ``{prefix}_absolute_error_topn.csv``,
``{prefix}_relative_error_topn.csv`` and, when asked for, the per-element ``{prefix}_{start}.csv``
chunks of `max_line` lines. Each file is written under a temporary name, then renamed.

The CSVs keep the reference's quirks so its readers work: numbers ``%.6f`` followed by a TAB,
coordinates space-separated, a relative error that is NaN or Inf printed as ``-``.
"""

from __future__ import annotations

import csv
import hashlib
import math
from pathlib import Path
from typing import Iterable, List, Sequence

import numpy as np

from opdiff.fileio.atomic import RESULT_MODE, replacing
from opdiff.results.single_op import BLOCK, ElementError, SingleOpDetail, coords_of

MAX_LINE_RANGE = (10_000, 1_000_000)
# Longest prefix kept as is: the longest suffix added ("_relative_error_topn.csv") keeps names under
# the 255 bytes most file systems allow.
MAX_PREFIX = 200
MAPPING = "simple_op_mapping.csv"


def _number(value: float) -> str:
    return f"{value:.6f}\t"


def _relative(value: float) -> str:
    return _number(value) if math.isfinite(value) else "-"


def _header(detail: SingleOpDetail) -> str:
    return f"Index,{detail.axes},NPUDump,GroundTruth,AbsoluteError,RelativeError"


def _line(flat: int, coords: Sequence[int], my: float, golden: float, absolute: float, relative: float) -> str:
    values = [_number(v) if math.isfinite(v) else "-" for v in (my, golden, absolute)]
    return f"{flat},{' '.join(str(c) for c in coords)},{values[0]},{values[1]},{values[2]},{_relative(relative)}"


def _write_lines(path: Path, lines: Iterable[str]) -> Path:
    with replacing(path, mode=RESULT_MODE) as temporary:
        with open(temporary, "w", encoding="utf-8", newline="\n") as handle:
            for line in lines:
                handle.write(line + "\n")
    return path


def _topn_lines(detail: SingleOpDetail, elements: Sequence[ElementError]) -> Iterable[str]:
    yield _header(detail)
    for e in elements:
        yield _line(e.flat, e.coords, e.my, e.golden, e.absolute, e.relative)


def _summary_lines(detail: SingleOpDetail) -> List[str]:
    return [
        f"TotalCount:{detail.count}",
        f"NPUDump:{detail.npu_dump}",
        f"GroundTruth:{detail.ground_truth}",
        f"Format:{detail.axes}",
        f"MinAbsoluteError:{detail.min_absolute:.6f}",
        f"MaxAbsoluteError:{detail.max_absolute:.6f}",
        f"MinRelativeError:{detail.min_relative:.6f}",
        f"MaxRelativeError:{detail.max_relative:.6f}",
    ]


def _element_chunk(detail: SingleOpDetail, start: int, stop: int) -> Iterable[str]:
    x = detail.my_array.reshape(-1)
    y = detail.golden_array.reshape(-1)
    yield _header(detail)
    for begin in range(start, stop, BLOCK):
        end = min(stop, begin + BLOCK)
        xb, yb = x[begin:end].astype(np.float64), y[begin:end].astype(np.float64)
        absolute = np.abs(xb - yb)
        with np.errstate(divide="ignore", invalid="ignore"):
            relative = absolute / np.abs(yb)
        for k in range(end - begin):
            flat = begin + k
            yield _line(flat, coords_of(flat, detail.shape), float(xb[k]), float(yb[k]), float(absolute[k]), float(relative[k]))


def file_prefix(prefix: str, out: Path) -> str:
    """`prefix`, or for a name too long for a file name a short one (start of the name plus a hash),
    recorded as ``short,original`` in ``simple_op_mapping.csv``.

    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> file_prefix("conv1_output_0", out), len(file_prefix("x" * 300, out)), (out / MAPPING).exists()
    ('conv1_output_0', 117, True)
    """
    if len(prefix.encode("utf-8")) <= MAX_PREFIX:
        return prefix
    short = f"{prefix[:100]}_{hashlib.sha1(prefix.encode('utf-8')).hexdigest()[:16]}"
    mapping = out / MAPPING
    rows = []
    if mapping.exists():
        with open(mapping, newline="", encoding="utf-8") as handle:
            rows = [row for row in csv.reader(handle) if row and row[0] != short]
    rows.append([short, prefix])
    with replacing(mapping, mode=RESULT_MODE) as temporary:
        with open(temporary, "w", newline="", encoding="utf-8") as handle:
            csv.writer(handle, lineterminator="\n").writerows(rows)
    return short


def write_single_op_files(detail: SingleOpDetail, out: Path, *, element_csv: bool = False, max_line: int = 1_000_000) -> List[Path]:
    """Write the detail's files into `out`; returns their paths (the .npy first). The detail comes
    from the engine (opdiff.engine.single_op, whose `detail_of_arrays` example writes them);
    `max_line` is checked first:

    >>> write_single_op_files(None, Path("out"), max_line=0)
    Traceback (most recent call last):
    ValueError: max_line must be within 10000..1000000, got 0
    """
    if not MAX_LINE_RANGE[0] <= max_line <= MAX_LINE_RANGE[1]:
        raise ValueError(f"max_line must be within {MAX_LINE_RANGE[0]}..{MAX_LINE_RANGE[1]}, got {max_line}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    prefix = file_prefix(detail.prefix, out)
    npy = out / f"{prefix}.npy"
    with replacing(npy, mode=RESULT_MODE) as temporary:
        with open(temporary, "wb") as handle:
            np.save(handle, detail.my_array)
    written = [npy, _write_lines(out / f"{prefix}_summary.txt", _summary_lines(detail)),
               _write_lines(out / f"{prefix}_absolute_error_topn.csv", _topn_lines(detail, detail.top_absolute)),
               _write_lines(out / f"{prefix}_relative_error_topn.csv", _topn_lines(detail, detail.top_relative))]
    if element_csv:
        for start in range(0, max(detail.count, 1), max_line):
            stop = min(detail.count, start + max_line)
            written.append(_write_lines(out / f"{prefix}_{start}.csv", _element_chunk(detail, start, stop)))
    return written
