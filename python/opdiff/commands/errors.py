"""How every command reports an error a person must read: one line on stderr, ``error: ...``; and
a note or warning beside its output: one line too, ``note: ...``.

The message is plain text (file names may hold ``[``), and it is printed with soft wrapping, so
rich never breaks it mid-sentence at the terminal's width: a terminal folds the long line itself,
and a script or a test that reads the output gets the message whole at any ``COLUMNS``.
"""

from __future__ import annotations

from typing import Callable, Optional

from rich.console import Console
from rich.text import Text


def print_error(message: str, console: Optional[Console] = None, *, prefix: str = "error: ") -> None:
    """Print ``error: message`` on `console` (default: a new stderr console), never wrapped.

    >>> import io
    >>> out = io.StringIO()
    >>> print_error("demo[1]: a dump folder is expected here, " * 3, Console(file=out, width=40))
    >>> out.getvalue().count("\\n")
    1
    """
    console = console or Console(stderr=True)
    console.print(Text.assemble((prefix, "bold red"), message), soft_wrap=True, highlight=False)


def print_note(message: str, console: Console, *, label: str = "note: ", style: str = "yellow") -> None:
    """Print ``label message`` on `console` as one line, never wrapped (a skipped file, a note).

    >>> import io
    >>> out = io.StringIO()
    >>> print_note("a.csv: statistics of an op execution that also has a full dump", Console(file=out, width=30),
    ...            label="  skipped: ", style="dim")
    >>> out.getvalue().splitlines()
    ['  skipped: a.csv: statistics of an op execution that also has a full dump']
    """
    console.print(Text.assemble((label, style), message), soft_wrap=True, highlight=False)


def command_failure(command: str) -> Callable[[str, int], int]:
    """``fail(message, code)`` for `command`: prints ``opdiff COMMAND: error: message`` on stderr
    and returns `code`, for a command's run function to return."""
    errors = Console(stderr=True)

    def fail(message: str, code: int) -> int:
        print_error(message, errors, prefix=f"opdiff {command}: error: ")
        return code

    return fail
