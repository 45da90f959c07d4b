"""Ctrl-C held back while an output and the record of it are made together, so that a stopped run
never leaves a file that its summary does not list (or lists a file that is not there)."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from types import FrameType
from typing import Iterator, List, Optional


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Run the block whole: a SIGINT that arrives meanwhile is delivered when it ends.

    Only the main thread receives Python's signals, so elsewhere the block just runs.

    >>> try:
    ...     with interrupts_deferred():
    ...         signal.raise_signal(signal.SIGINT)  # held back ...
    ...         print("the block ends")
    ... except KeyboardInterrupt:
    ...     print("then Ctrl-C")
    the block ends
    then Ctrl-C
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: List[int] = []

    def hold(signum: int, frame: Optional[FrameType]) -> None:
        arrived.append(signum)

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if arrived:
            signal.raise_signal(signal.SIGINT)  # ... and delivered now, to whatever handled it before
