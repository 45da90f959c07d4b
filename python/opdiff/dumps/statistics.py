"""Reading statistics dumps: the CSV a device writes per op execution in ``"dump_data": "stats"``
mode (docs/reference/device-files.md §2.1), one line per input and output tensor.

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
from typing import Dict, List, Optional, Sequence, Tuple, Union

from opdiff.numerics.frozen import build_frozen
from opdiff.numerics.tensor_statistics import TensorStatistics

PathLike = Union[str, "os.PathLike[str]"]

HEADER = ("Input/Output,Index,Data Size,Data Type,Format,Shape,Max Value,Min Value,Avg Value,Count,Nan Count,"
          "Negative Inf Count,Positive Inf Count")
COLUMNS = tuple(HEADER.split(","))
STATS_COLUMNS = COLUMNS[6:]  # the seven cells the device leaves empty for an unsupported data type
SUFFIX = ".csv"
_ROLES = {"Input": "input", "Output": "output"}


class StatisticsFormatError(ValueError):
    """A statistics file that cannot be read at all; the message names the file."""


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

    order: List[Tuple[str, int]] = field(default_factory=list)  # every (role, index) with a line, in file order

    def entries(self) -> List[Tuple[str, int]]:
        """Every (role, index) the file has a line for, usable or not, in file order (the device
        writes inputs, then outputs)."""
        return self.order

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
    return tuple(map(int, text.split("x")))


def _parse_line(cells: List[str], line_number: int) -> Union[TensorStatistics, Tuple[str, int, str]]:
    """A TensorStatistics, or (role, index, reason) for a line naming its tensor but unusable."""
    role, index = _ROLES[cells[0]], int(cells[1])
    if len(cells) == len(COLUMNS):
        try:  # the common case in one go (100,000 files are read per run); the checks below say what is wrong
            shape = statistics_shape(cells[5])
            count, nan, neg_inf, pos_inf = int(cells[9]), int(cells[10]), int(cells[11]), int(cells[12])
            if count == math.prod(shape) and min(nan, neg_inf, pos_inf) >= 0:
                return build_frozen(TensorStatistics, {
                    "role": role, "index": index, "data_type": cells[3], "format": cells[4], "shape": shape,
                    "count": count, "max": float(cells[6]), "min": float(cells[7]), "mean": float(cells[8]),
                    "nan": nan, "neg_inf": neg_inf, "pos_inf": pos_inf, "data_size": int(cells[2])})
        except ValueError:
            pass
    return role, index, _line_problem(cells, line_number)


def _line_problem(cells: List[str], line_number: int) -> str:
    """Why a line naming its tensor cannot be used."""
    where = f"line {line_number}"
    if len(cells) > len(COLUMNS):
        return f"{where} has {len(cells)} cells, the header {len(COLUMNS)}"
    if len(cells) >= len(COLUMNS) - 1 and all(cell == "" for cell in cells[6:]):
        return (f"no statistics on {where}: the device writes empty cells for a data type it does not support in "
                f"statistics mode ({cells[3]})")
    if len(cells) < len(COLUMNS):
        return f"{where} is truncated ({len(cells)} of {len(COLUMNS)} cells)"
    try:
        shape = statistics_shape(cells[5])
    except ValueError:
        return f"{where}: Shape {cells[5]!r} is not dims joined by 'x'"
    for name, cell in zip(STATS_COLUMNS, cells[6:9]):
        try:
            float(cell)
        except ValueError:
            return f"{where}: {name} {cell!r} is not a number"
    for name, cell in zip(("Data Size",) + STATS_COLUMNS[3:], cells[2:3] + cells[9:]):
        if not cell.isdigit():
            return f"{where}: {name} {cell!r} is not a whole number"
    return f"{where}: Count {cells[9]} does not match the Shape {cells[5]} ({math.prod(shape)} elements)"


def parse_statistics(text: str, path: str) -> StatisticsFile:
    """A StatisticsFile from the text of one CSV (`path` names it in messages)."""
    lines = text.splitlines()
    if not lines or not text.strip():
        raise StatisticsFormatError(f"{path}: empty statistics file (truncated?)")
    if lines[0] != HEADER:
        raise StatisticsFormatError(f"{path}: wrong header {lines[0][:120]!r}; a statistics dump starts with {HEADER!r}")
    result = StatisticsFile(path)
    seen = set()
    for number, line in enumerate(lines[1:], start=2):
        cells = line.split(",")
        if len(cells) < 2 or cells[0] not in _ROLES or not cells[1].isdigit():
            if line:
                result.notes.append(f"{path}: line {number} names no tensor (Input/Output and an index): {line[:80]!r}")
            continue
        parsed = _parse_line(cells, number)
        key = (parsed[0], parsed[1]) if isinstance(parsed, tuple) else (parsed.role, parsed.index)
        if key in seen:
            result.notes.append(f"{path}: line {number} repeats {key[0]} {key[1]}; the first is used")
            continue
        seen.add(key)
        result.order.append(key)
        if isinstance(parsed, tuple):
            result.problems[key] = parsed[2]
        else:
            result.tensors.append(parsed)
    return result


def read_statistics(path: PathLike) -> StatisticsFile:
    """Read one statistics CSV; StatisticsFormatError (naming the file) when it cannot be used."""
    name = os.fspath(path)
    try:  # os-level calls: a buffered file object costs more than the read of a few hundred bytes
        descriptor = os.open(name, os.O_RDONLY)
        try:
            chunks = [os.read(descriptor, 1 << 16)]
            while len(chunks[-1]) == 1 << 16:
                chunks.append(os.read(descriptor, 1 << 16))
        finally:
            os.close(descriptor)
        data = b"".join(chunks) if len(chunks) > 1 else chunks[0]
    except OSError as error:
        raise StatisticsFormatError(f"{name}: cannot read: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise StatisticsFormatError(f"{name}: not a text file") from None
    return parse_statistics(text, name)


def read_many_statistics(paths: Sequence[str], *, threads: int = 0) -> List[Union[StatisticsFile, StatisticsFormatError]]:
    """Read many statistics CSVs at once: files in the device's regular form are read and parsed by
    the core (``core_files.read_statistics_files``: every core, the GIL released), the others by
    :func:`read_statistics`, which says what is wrong with them. One entry per path, in order.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "Relu.relu1.3.1.1700000000000001.csv")
    >>> _ = open(path, "w").write(HEADER + "\\n" + "Output,0,48,DT_FLOAT16,ND,16,2.5,0,0.3125,16,0,0,0\\n")
    >>> regular, missing = read_many_statistics([path, path + ".gone"])
    >>> regular.tensor("output", 0).mean, type(missing).__name__
    (0.3125, 'StatisticsFormatError')
    """
    from opdiff.dumps import core_files

    results: List[Union[StatisticsFile, StatisticsFormatError]] = []
    for path, lines in zip(paths, core_files.read_statistics_files(list(paths), threads)):
        if lines is None:
            try:
                results.append(read_statistics(path))
            except StatisticsFormatError as error:
                results.append(error)
            continue
        tensors = [build_frozen(TensorStatistics, line.fields()) for line in lines]
        results.append(StatisticsFile(path, tensors, order=[(t.role, t.index) for t in tensors]))
    return results


def is_statistics_path(path: str) -> bool:
    """Whether a dump path names a statistics CSV rather than a full dump."""
    return path.endswith(SUFFIX)


__all__ = ["COLUMNS", "HEADER", "StatisticsFile", "StatisticsFormatError", "TensorStatistics", "is_statistics_path",
           "parse_statistics", "read_many_statistics", "read_statistics", "statistics_shape"]
