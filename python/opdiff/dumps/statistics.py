"""Reading statistics dumps: the CSV a device writes per op execution in ``"dump_data": "stats"``
mode (shared/reference/real-files.md §2.1), one line per input and output tensor.

A file that cannot be used at all (unreadable, empty, wrong header) raises StatisticsFormatError
naming the file; a line that cannot be used (truncated, non-numeric cells, the empty cells of a
data type the device does not support, a Count that does not match the Shape) becomes a problem
of that tensor, so the comparison reports it on the tensor's row and goes on.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "Relu.relu1.3.1.1700000000000001.csv")
>>> _ = open(path, "w").write(HEADER + "\\n" + "Output,0,48,DT_FLOAT16,NC1HWC0,1x1x1x1x16,2.5,0,0.3125,16,0,0,0\\n")
>>> stats = read_statistics(path)
>>> t = stats.tensor("output", 0)
>>> t.data_type, t.shape, t.max, t.mean, t.count
('DT_FLOAT16', (1, 1, 1, 1, 16), 2.5, 0.3125, 16)
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple, Union

PathLike = Union[str, "os.PathLike[str]"]

HEADER = ("Input/Output,Index,Data Size,Data Type,Format,Shape,Max Value,Min Value,Avg Value,Count,Nan Count,"
          "Negative Inf Count,Positive Inf Count")
COLUMNS = tuple(HEADER.split(","))
STATS_COLUMNS = COLUMNS[6:]  # the seven cells the device leaves empty for an unsupported data type
SUFFIX = ".csv"
_ROLES = {"Input": "input", "Output": "output"}


class StatisticsFormatError(ValueError):
    """A statistics file that cannot be read at all; the message names the file."""


@dataclass(frozen=True)
class TensorStatistics:
    """The statistics of one tensor: over its stored elements (padding included) when the device
    wrote them; ``role`` is "input" or "output". ``min``/``max`` skip NaN; ``mean`` does not."""

    role: str
    index: int
    data_type: str  # the DT_* name, e.g. "DT_FLOAT16"
    format: str  # without FORMAT_, e.g. "NC1HWC0"
    shape: Tuple[int, ...]  # the stored dims
    count: int
    max: float
    min: float
    mean: float
    nan: int
    neg_inf: int
    pos_inf: int
    data_size: int = 0

    @property
    def special(self) -> int:
        """NaN and infinite elements together."""
        return self.nan + self.neg_inf + self.pos_inf


@dataclass
class StatisticsFile:
    """One statistics CSV: its usable tensors and, by (role, index), why a line could not be used;
    ``notes`` are problems of lines that do not even say which tensor they are."""

    path: str
    tensors: List[TensorStatistics] = field(default_factory=list)
    problems: Dict[Tuple[str, int], str] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)

    def tensor(self, role: str, index: int) -> Optional[TensorStatistics]:
        for tensor in self.tensors:
            if tensor.role == role and tensor.index == index:
                return tensor
        return None

    def entries(self) -> List[Tuple[str, int]]:
        """Every (role, index) the file has a line for, usable or not: inputs first, by index."""
        keys = {(t.role, t.index) for t in self.tensors} | set(self.problems)
        return sorted(keys, key=lambda key: (key[0] != "input", key[1]))

    def missing_reason(self, role: str, index: int) -> str:
        """Why the file has no statistics for (role, index)."""
        problem = self.problems.get((role, index))
        if problem is not None:
            return f"{self.path}: {role} {index}: {problem}"
        return f"{self.path}: no line for {role} {index} (the file may be truncated)"


def statistics_shape(text: str) -> Tuple[int, ...]:
    """The Shape cell: dims joined by ``x``, ``-`` for a scalar.

    >>> statistics_shape("1x1x224x224x16"), statistics_shape("-")
    ((1, 1, 224, 224, 16), ())
    """
    if text == "-":
        return ()
    return tuple(int(dim) for dim in text.split("x"))


def _parse_line(cells: List[str], line_number: int) -> Union[TensorStatistics, Tuple[str, int, str]]:
    """A TensorStatistics, or (role, index, reason) for a line naming its tensor but unusable."""
    role, index = _ROLES[cells[0]], int(cells[1])
    if len(cells) > len(COLUMNS):
        return role, index, f"line {line_number} has {len(cells)} cells, the header {len(COLUMNS)}"
    stats = cells[6:]
    if all(cell == "" for cell in stats) and len(cells) >= len(COLUMNS) - 1:
        return role, index, f"no statistics on line {line_number}: the device writes empty cells for a data type " \
                            f"it does not support in statistics mode ({cells[3]})"
    if len(cells) < len(COLUMNS):
        return role, index, f"line {line_number} is truncated ({len(cells)} of {len(COLUMNS)} cells)"
    try:
        shape = statistics_shape(cells[5])
    except ValueError:
        return role, index, f"line {line_number}: Shape {cells[5]!r} is not dims joined by 'x'"
    values: List[float] = []
    for name, cell in zip(STATS_COLUMNS, stats):
        try:
            values.append(float(cell))
        except ValueError:
            return role, index, f"line {line_number}: {name} {cell!r} is not a number"
    counts = values[3:]
    if not all(math.isfinite(c) and c >= 0 and c == int(c) for c in counts):
        return role, index, f"line {line_number}: the counts {', '.join(stats[3:])} are not whole numbers"
    count = int(counts[0])
    elements = math.prod(shape)
    if count != elements:
        return role, index, f"line {line_number}: Count {count} does not match the Shape {cells[5]} ({elements} elements)"
    try:
        data_size = int(cells[2])
    except ValueError:
        return role, index, f"line {line_number}: Data Size {cells[2]!r} is not a number"
    return TensorStatistics(role, index, cells[3], cells[4], shape, count, values[0], values[1], values[2],
                            int(counts[1]), int(counts[2]), int(counts[3]), data_size)


def parse_statistics(text: str, path: str) -> StatisticsFile:
    """A StatisticsFile from the text of one CSV (`path` names it in messages)."""
    lines = text.split("\n")
    if not text.strip():
        raise StatisticsFormatError(f"{path}: empty statistics file (truncated?)")
    header = lines[0].rstrip("\r")
    if header != HEADER:
        raise StatisticsFormatError(f"{path}: wrong header {header[:120]!r}; a statistics dump starts with {HEADER!r}")
    result = StatisticsFile(path)
    for number, line in enumerate(lines[1:], start=2):
        line = line.rstrip("\r")
        if not line:
            continue
        cells = line.split(",")
        if cells[0] not in _ROLES or len(cells) < 2 or not cells[1].isdigit():
            result.notes.append(f"{path}: line {number} names no tensor (Input/Output and an index): {line[:80]!r}")
            continue
        parsed = _parse_line(cells, number)
        if isinstance(parsed, TensorStatistics):
            key = (parsed.role, parsed.index)
            if key in result.problems or result.tensor(*key) is not None:
                result.notes.append(f"{path}: line {number} repeats {parsed.role} {parsed.index}; the first is used")
                continue
            result.tensors.append(parsed)
        else:
            role, index, reason = parsed
            result.problems.setdefault((role, index), reason)
    return result


def read_statistics(path: PathLike) -> StatisticsFile:
    """Read one statistics CSV; StatisticsFormatError (naming the file) when it cannot be used."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise StatisticsFormatError(f"{name}: cannot read: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise StatisticsFormatError(f"{name}: not a text file") from None
    return parse_statistics(text, name)


def is_statistics_path(path: str) -> bool:
    """Whether a dump path names a statistics CSV rather than a full dump."""
    return path.endswith(SUFFIX)


__all__ = ["COLUMNS", "HEADER", "StatisticsFile", "StatisticsFormatError", "TensorStatistics", "is_statistics_path",
           "parse_statistics", "read_statistics", "statistics_shape"]
