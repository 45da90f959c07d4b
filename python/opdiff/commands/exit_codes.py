"""The exit codes of every `opdiff` command, in one place (docs/cli.md lists them)."""

from __future__ import annotations

import os
import sys
from enum import IntEnum


class ExitCode(IntEnum):
    """What a command's exit status means.

    >>> int(ExitCode.BAD_INPUT)
    2
    """

    OK = 0
    INTERNAL = 1  # a bug: an exception no command expected ended the run
    MODEL_RUN_FAILED = 1  # dump-onnx: ONNX Runtime could not run the model (an alias of 1)
    BAD_INPUT = 2  # bad arguments or unreadable inputs (the message names the file)
    THRESHOLDS = 3  # compare: --fail and a failing tensor, or a --fail-under limit violated
    OVERFLOW = 4  # overflow: --fail and an op overflows
    CLUSTER_LOST = 5  # compare --scheduler: the cluster could not be reached or was lost mid-run (the summary says what is missing)
    INVALID_DUMP_DATA = 11  # info: a file that is no readable dump (the reference's code for invalid dump data)
    INTERRUPTED = 130  # Ctrl-C: what was done so far is kept


def exit_now(code: int) -> None:
    """End the process with `code` after flushing stdout and stderr, without the interpreter's
    teardown; returns (and the caller ends normally) if the streams cannot be flushed."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return  # a closed pipe or stream: let the normal exit report it
    os._exit(code)
