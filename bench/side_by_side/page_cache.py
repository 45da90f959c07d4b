"""Files out of the page cache and back: dropping them (posix_fadvise DONTNEED, no root needed),
measuring how much of them is resident (mincore over a mapping), and reading them as `cat` does, the
floor a comparison of the same files is measured against."""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
from pathlib import Path
from typing import Iterable, List, Sequence

from tests.support.page_cache import drop_from_cache

_PAGE = os.sysconf("SC_PAGE_SIZE")
_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_ubyte)]
_MAP_FAILED = ctypes.c_void_p(-1).value
__all__ = ["cat_command", "drop_from_cache", "files_under", "resident_fraction"]


def files_under(folders: Iterable[Path]) -> List[Path]:
    """Every regular file in `folders` (not recursive), sorted."""
    return sorted(path for folder in folders for path in folder.iterdir() if path.is_file())


def _resident_pages(fd: int, size: int) -> int:
    address = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    if address in (None, _MAP_FAILED):
        raise OSError(ctypes.get_errno(), "mmap failed")
    try:
        pages = (size + _PAGE - 1) // _PAGE
        vector = (ctypes.c_ubyte * pages)()
        if _libc.mincore(address, size, vector) != 0:
            raise OSError(ctypes.get_errno(), "mincore failed")
        return sum(byte & 1 for byte in bytes(vector))
    finally:
        _libc.munmap(address, size)


def resident_fraction(paths: Sequence[Path]) -> float:
    """The fraction of the files' pages in the page cache now (mincore; mapping a file faults
    nothing in)."""
    resident = total = 0
    for path in paths:
        size = path.stat().st_size
        if size == 0:
            continue
        fd = os.open(path, os.O_RDONLY)
        try:
            resident += _resident_pages(fd, size)
        finally:
            os.close(fd)
        total += (size + _PAGE - 1) // _PAGE
    return resident / total if total else 0.0


def cat_command(folders: Sequence[Path]) -> List[str]:
    """`cat` of every file in `folders` to /dev/null, through xargs as a user would type it."""
    quoted = " ".join(f"'{folder}'" for folder in folders)
    return ["sh", "-c", f"find {quoted} -maxdepth 1 -type f -print0 | sort -z | xargs -0 cat > /dev/null"]
