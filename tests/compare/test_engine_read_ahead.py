"""The core's read-ahead (``_core.ReadAhead``) brings the large files a comparison will map into the
page cache on a thread of its own: cold pages are read, cached ones only checked, never more than the
window past the comparison's position, and files it cannot use are passed over without an error.

Whether a page is cached is asked of the kernel with ``preadv(RWF_NOWAIT)``, which reads only
from the page cache."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List

import numpy as np
import pytest

import opdiff
from opdiff import _core
from tests.compare.test_engine_scheduling import npu_sides
from tests.support.page_cache import drop_from_cache

MIB = 1 << 20


def _write(path: Path, mib: int) -> Path:
    path.write_bytes(np.random.default_rng(mib).bytes(mib * MIB))
    return path


def _cached(path: Path, offset: int) -> bool:
    """Whether the page at `offset` is in the page cache (a read that may not wait for the disk)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.preadv(fd, [bytearray(4096)], offset, os.RWF_NOWAIT)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def _counted(ahead: _core.ReadAhead) -> int:
    return int(ahead.bytes_read + ahead.bytes_resident)


def test_a_cold_file_is_read_into_the_page_cache(tmp_path: Path) -> None:
    big = _write(tmp_path / "big", 16)
    drop_from_cache([big])
    if _cached(big, 8 * MIB):
        pytest.skip(f"{tmp_path}: this file system keeps files cached (tmpfs?); nothing is cold here")
    ahead = _core.ReadAhead([str(big)], [0])
    ahead.settle()
    assert ahead.bytes_read >= 4 * MIB  # the first chunk at least; the kernel's own read-ahead may bring the rest
    assert _counted(ahead) == 16 * MIB
    assert all(_cached(big, offset) for offset in range(0, 16 * MIB, MIB))
    ahead.stop()


def test_a_cached_file_is_only_checked(tmp_path: Path) -> None:
    big = _write(tmp_path / "big", 16)
    big.read_bytes()
    ahead = _core.ReadAhead([str(big)], [0])
    ahead.settle()
    assert (ahead.bytes_read, ahead.bytes_resident) == (0, 16 * MIB)


def test_it_reads_no_further_than_the_window_past_the_comparison(tmp_path: Path) -> None:
    files = [_write(tmp_path / f"f{k}", 8) for k in range(4)]
    ahead = _core.ReadAhead([str(path) for path in files], [0, 1, 2, 3], window_bytes=8 * MIB)
    ahead.settle()
    assert _counted(ahead) == 8 * MIB
    ahead.advance(1)
    ahead.settle()
    assert _counted(ahead) == 16 * MIB
    ahead.advance(1)  # not a step forward
    ahead.settle()
    assert _counted(ahead) == 16 * MIB
    ahead.advance(10)  # past the last position: the comparison has passed every file
    ahead.settle()
    assert _counted(ahead) == 16 * MIB
    assert not ahead.stepped_aside  # the files were cached: it read nothing, only checked


def test_a_whole_window_read_ahead_of_the_comparison_makes_it_step_aside(tmp_path: Path) -> None:
    """Cold files, a window of them read (by it and the kernel's read-ahead its reads set off) while
    the comparison stayed put: the disk serves faster than the comparison uses it, so it stops
    for good and reads nothing more when asked."""
    files = [_write(tmp_path / f"f{k}", 8) for k in range(3)]
    drop_from_cache(files)
    if _cached(files[0], 4 * MIB):
        pytest.skip(f"{tmp_path}: this file system keeps files cached (tmpfs?); nothing is cold here")
    ahead = _core.ReadAhead([str(path) for path in files], [0, 1, 2], window_bytes=8 * MIB)
    ahead.settle()
    assert ahead.stepped_aside and ahead.bytes_read > 0 and _counted(ahead) == 8 * MIB
    read = ahead.bytes_read
    ahead.advance(1)
    ahead.settle()
    assert ahead.bytes_read == read
    ahead.stop()


def test_files_it_cannot_use_are_passed_over(tmp_path: Path) -> None:
    small = _write(tmp_path / "small", 1)  # read whole when opened: no read-ahead needed
    big = _write(tmp_path / "big", 8)
    paths: List[str] = [str(small), str(tmp_path / "missing"), str(big), str(big), str(tmp_path)]
    ahead = _core.ReadAhead(paths, [0, 2, 3])
    ahead.settle()
    assert _counted(ahead) == 8 * MIB
    assert ahead.files_passed_over == 4


def test_stopping_is_prompt_and_idempotent(tmp_path: Path) -> None:
    files = [str(_write(tmp_path / f"f{k}", 8)) for k in range(2)]
    ahead = _core.ReadAhead(files, [0, 1], window_bytes=4 * MIB)
    ahead.settle()  # waiting for the comparison to advance
    ahead.stop()
    ahead.stop()
    assert _counted(ahead) == 4 * MIB
    del ahead  # and one never stopped goes down with its object
    _core.ReadAhead(files, [0, 1])


def test_a_comparison_of_cold_dumps_gives_the_rows_of_a_warm_one(tmp_path: Path) -> None:
    my, golden = npu_sides(tmp_path, ops=6, elements=1 << 20)  # 2 to 4 MiB dumps: mapped, read ahead
    warm = opdiff.compare(my, golden)
    drop_from_cache(list(my.iterdir()) + list(golden.iterdir()))
    cold = opdiff.compare(my, golden)
    assert [(row.tensor, row.metrics, row.reasons) for row in cold.rows] == [(row.tensor, row.metrics, row.reasons) for row in warm.rows]
    assert any(row.metrics is not None for row in cold.rows)
