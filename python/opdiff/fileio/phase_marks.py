"""Where a run's time goes, for the benchmarks: with ``OPDIFF_PHASE_MARKS=1`` in the environment a
run writes one line to stderr as it ends each phase, ``opdiff-phase NAME SECONDS`` with the wall
clock (``time.time()``), which the bench sets against the moment it started the process (start-up
and import are then the first mark's distance from it). Without the variable nothing is written."""

from __future__ import annotations

import os
import sys
import time

PHASE_MARKS_VARIABLE = "OPDIFF_PHASE_MARKS"
MARK_PREFIX = "opdiff-phase"


def mark_phase(name: str) -> None:
    """End the phase `name` (a word: imported, rule-read, planned, first-batch, rows, reported).

    >>> mark_phase("imported")  # OPDIFF_PHASE_MARKS unset: nothing happens
    """
    if os.environ.get(PHASE_MARKS_VARIABLE):
        sys.stderr.write(f"{MARK_PREFIX} {name} {time.time():.6f}\n")
        sys.stderr.flush()


__all__ = ["MARK_PREFIX", "PHASE_MARKS_VARIABLE", "mark_phase"]
