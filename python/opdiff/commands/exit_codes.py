"""The exit codes of every `opdiff` command, in one place (docs/cli.md lists them)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What a command's exit status means.

    >>> int(ExitCode.BAD_INPUT)
    2
    """

    OK = 0
    INTERNAL = 1  # a bug: an exception no command expected ended the run
    BAD_INPUT = 2  # bad arguments or unreadable inputs (the message names the file)
    THRESHOLDS = 3  # compare: --fail and a failing tensor, or a --fail-under limit violated
    OVERFLOW = 4  # overflow: --fail and an op overflows
    CLUSTER_LOST = 5  # compare --scheduler: the cluster could not be reached or was lost mid-run (the summary says what is missing)
    INVALID_DUMP_DATA = 11  # info: a file that is no readable dump (the reference's code for invalid dump data)
    INTERRUPTED = 130  # Ctrl-C: what was done so far is kept
