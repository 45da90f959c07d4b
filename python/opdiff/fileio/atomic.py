"""Writing a file so that it is whole or absent: the bytes go to a temporary name beside the
target, which replaces the target only when they are all written; on any error (a full disk, a
bad value, Ctrl-C) the temporary file is removed. Every output of opdiff is written this way.

>>> import tempfile
>>> from pathlib import Path
>>> target = Path(tempfile.mkdtemp()) / "summary.txt"
>>> write_text(target, "whole\\n") == target, target.read_text()
(True, 'whole\\n')
>>> with replacing(target) as temporary:
...     _ = temporary.write_text("half")
...     raise ValueError("stopped")
Traceback (most recent call last):
ValueError: stopped
>>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
('whole\\n', ['summary.txt'])
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional, Union

PathLike = Union[str, "os.PathLike[str]"]
TEMPORARY_SUFFIX = ".partial"
# What a result gets (every file written under -out: CSV, JSON, HTML, xlsx, summaries), as the
# reference tool gives its result CSV: results may name a customer's model and its layers. The
# folder -out is created 0700. Dumps, golden files and converted tensors keep the umask's mode.
RESULT_MODE = 0o600


def temporary_beside(target: PathLike) -> Path:
    """A unique temporary name in `target`'s folder: hidden, short (a dump's own name may be close
    to the file system's 255 bytes), and ending in ``.partial``, which no dump, golden or result
    name pattern matches, so readers skip a leftover one."""
    target = Path(target)
    return target.with_name(f".opdiff-{os.urandom(8).hex()}{TEMPORARY_SUFFIX}")


@contextmanager
def replacing(target: PathLike, *, mode: Optional[int] = None) -> Iterator[Path]:
    """A temporary path to write instead of `target`; it becomes `target` (with permission bits
    `mode`, if given) when the block ends normally and is removed when it raises."""
    target = Path(target)
    temporary = temporary_beside(target)
    try:
        yield temporary
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_text(target: PathLike, text: str, *, encoding: str = "utf-8", newline: Optional[str] = None,
               mode: Optional[int] = None) -> Path:
    """Write `text` to `target` through a temporary name (permission bits `mode`, if given);
    returns the target's path."""
    with replacing(target, mode=mode) as temporary:
        with open(temporary, "w", encoding=encoding, newline=newline) as handle:
            handle.write(text)
    return Path(target)


def write_bytes(target: PathLike, data: bytes, *, mode: Optional[int] = None) -> Path:
    """Write `data` to `target` through a temporary name (permission bits `mode`, if given);
    returns the target's path."""
    with replacing(target, mode=mode) as temporary:
        temporary.write_bytes(data)
    return Path(target)


def incomplete_name(target: Path) -> Path:
    """Where a run stopped by Ctrl-C keeps its result: ``{stem}.incomplete{suffix}`` beside it.

    >>> incomplete_name(Path("out/result.csv")).name
    'result.incomplete.csv'
    """
    return target.with_name(f"{target.stem}.incomplete{target.suffix}")


def place_without_clobbering(source: Path, target: Path) -> Path:
    """Give `source` the name `target`, or ``{stem}_1{suffix}``, ``_2``... when that name is taken
    (two runs in one folder within the same second), atomically: a hard link never replaces a file.
    Falls back to a plain rename where the file system has no hard links."""
    for n in range(10_000):
        candidate = target if n == 0 else target.with_name(f"{target.stem}_{n}{target.suffix}")
        try:
            os.link(source, candidate)
        except FileExistsError:
            continue
        except OSError:
            os.replace(source, target)
            return target
        os.unlink(source)
        return candidate
    raise FileExistsError(f"{target}: too many results with this name")
