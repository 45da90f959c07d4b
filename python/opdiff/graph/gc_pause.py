"""Pausing the cyclic garbage collector while a reader builds many small acyclic objects."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def gc_paused() -> Iterator[None]:
    """Run the block with the cyclic collector off, restoring its previous state afterwards.

    Why: building 50,000 ops allocates hundreds of thousands of tuples and dataclasses; each
    allocation burst triggers collections that rescan everything built so far, which costs about a
    third of the read time. The objects hold no cycles, so nothing is left for the collector.

    On the way out, what the block built is moved to the oldest generation without a scan
    (freeze then unfreeze, only while nothing else is frozen): left in the youngest, the first
    allocation after the block would scan all of it (0.2 s for a 50,000-op graph).

    >>> with gc_paused():
    ...     gc.isenabled()
    False
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
