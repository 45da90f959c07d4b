"""The engine's partner-file cache keeps a bounded number of bytes mapped (peak memory stays flat)."""

from pathlib import Path

import numpy as np

from opdiff.engine import FileCache


def test_cache_holds_at_most_its_byte_budget(tmp_path: Path) -> None:
    paths = []
    for k, n in enumerate((100, 100, 5000)):
        path = tmp_path / f"g{k}.0.1700000000000000.npy"
        np.save(path, np.arange(n, dtype=np.float32))
        paths.append(str(path))
    cache = FileCache(budget_bytes=1200)  # two 100-element files (528 bytes each)
    first = cache.get(paths[0])
    assert cache.get(paths[0]) is first  # small file: cached
    big = cache.get(paths[2])
    assert cache.get(paths[2]) is not big  # larger than the budget: reopened each time
    cache.get(paths[1])
    assert cache.get(paths[0]) is first and cache._bytes <= 1200
    small = FileCache(budget_bytes=700)  # room for one 100-element file (528 bytes) only
    a = small.get(paths[0])
    small.get(paths[1])
    assert small.get(paths[0]) is not a and small._bytes <= 700
