"""Two .npy files compared element by element (the reference tool's ``file_compare``): the same
metrics as a network comparison (KL divergence and StandardDeviation left out, as there), read
through the core without loading either file whole."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import List, Optional, Tuple, Union

from opdiff.dumps import read_dump, tensor_metrics
from opdiff.fileio.atomic import RESULT_MODE, write_text
from opdiff.numerics.schema import ALGORITHMS
from opdiff.numerics.values import Metrics
from opdiff.report.file_names import file_result_file_name
from opdiff.report.tensor.reference_format import format_metrics

PathLike = Union[str, "os.PathLike[str]"]
FILE_ALGORITHMS: Tuple[str, ...] = tuple(a for a in ALGORITHMS if a not in ("KullbackLeiblerDivergence", "StandardDeviation"))


@dataclass(frozen=True)
class FileComparison:
    """The metrics of `my` against `golden` and their texts as the reference prints them."""

    my: Path
    golden: Path
    shape: Tuple[int, ...]
    metrics: Metrics

    def lines(self) -> List[str]:
        """``Name: value`` per metric, in the reference's order and number format."""
        return [f"{name}: {text}" for name, text in zip(FILE_ALGORITHMS, format_metrics(FILE_ALGORITHMS, self.metrics))]


def compare_files(my: PathLike, golden: PathLike, *, threads: Optional[int] = None) -> FileComparison:
    """Compare two .npy files of the same shape. ValueError (naming the file) for anything else.

    >>> import numpy as np, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> np.save(os.path.join(d, "a.npy"), np.array([1.0, 2.0, 3.0], np.float16))
    >>> np.save(os.path.join(d, "b.npy"), np.array([1.0, 2.0, 3.5], np.float32))
    >>> compare_files(os.path.join(d, "a.npy"), os.path.join(d, "b.npy")).lines()[:2]
    ['CosineSimilarity: 0.997409', 'MaxAbsoluteError: 0.500000']
    """
    paths = (Path(my), Path(golden))
    for path in paths:
        if path.suffix != ".npy":
            raise ValueError(f"{path}: file-compare takes .npy files")
        if not path.is_file():
            raise ValueError(f"{path}: no such file")
    mine, theirs = (read_dump(path).outputs[0] for path in paths)
    if mine.shape != theirs.shape:
        raise ValueError(f"the shapes differ: {paths[0]} holds {list(mine.shape)}, {paths[1]} holds {list(theirs.shape)}")
    return FileComparison(paths[0], paths[1], tuple(mine.shape), tensor_metrics(mine, theirs, kl=False, threads=threads))


def write_file_result(result: FileComparison, out: PathLike, now: Optional[datetime] = None) -> Path:
    """``file_result_{YYYYmmddHHMMSS}.txt`` in `out` (through a temporary name), one line a metric."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file_result_file_name(now)
    return write_text(path, "\n".join(result.lines()) + "\n", mode=RESULT_MODE)
