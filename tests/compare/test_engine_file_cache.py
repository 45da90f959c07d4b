"""The engine's partner-file cache (the core's TensorFileCache) keeps a bounded number of bytes
mapped, so peak memory stays flat; unreadable files are remembered with their error."""

from pathlib import Path

import numpy as np
import pytest

from opdiff import _core
from opdiff.dumps import DumpFormatError
from opdiff.engine.tensor_engine import FileCache


def test_cache_holds_at_most_its_byte_budget(tmp_path: Path) -> None:
    paths = []
    for k, n in enumerate((100, 100, 5000)):
        path = tmp_path / f"g{k}.0.1700000000000000.npy"
        np.save(path, np.arange(n, dtype=np.float32))
        paths.append(str(path))
    cache = _core.TensorFileCache(budget_bytes=1200)  # two 100-element files (528 bytes each)
    first = cache.get(paths[0])
    assert cache.get(paths[0]) is first and cache.files == 1  # small file: cached
    big = cache.get(paths[2])
    assert cache.get(paths[2]) is not big and cache.files == 1  # larger than the budget: reopened each time
    cache.get(paths[1])
    assert cache.get(paths[0]) is first and cache.bytes == 2 * 528
    small = _core.TensorFileCache(budget_bytes=700)  # room for one 100-element file (528 bytes) only
    a = small.get(paths[0])
    small.get(paths[1])
    assert small.get(paths[0]) is not a and small.bytes <= 700 and small.files == 1
    by_count = _core.TensorFileCache(capacity=1)
    kept = by_count.get(paths[0])
    by_count.get(paths[1])
    assert by_count.get(paths[0]) is not kept and by_count.files == 1


def test_unreadable_files_are_remembered_with_their_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.0.1700000000000000.npy"
    bad.write_bytes(b"\x93NUMPY not really")
    cache = FileCache()
    for _ in range(2):
        with pytest.raises(DumpFormatError, match=r"bad\.0\.1700000000000000\.npy"):
            cache.get(str(bad))
    bad.unlink()  # the error is remembered, not looked up again
    with pytest.raises(DumpFormatError, match=r"bad\.0\.1700000000000000\.npy"):
        cache.core.get(str(bad))
    good = tmp_path / "good.0.1700000000000000.npy"
    np.save(good, np.ones(3, np.float32))
    assert cache.get(str(good)).outputs[0].shape == (3,)
