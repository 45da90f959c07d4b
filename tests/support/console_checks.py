"""What a console table must never do at any width (issue 32, item 7), as checks on the text it
printed: split a header across lines, break a name inside one of its parts (a name may break only
after a "/" or a ":"), or print a line wider than the terminal."""

from __future__ import annotations

import io
import re
from typing import Iterable, List, Sequence

from rich.cells import cell_len
from rich.console import Console, RenderableType

# rich's box-drawing characters: the rules between cells, read as blanks.
_BOX = re.compile(r"[\u2500-\u257f]")
_NOT_A_NAME = re.compile(r"[-+]?[\d.]+(e[-+]?\d+)?|[/:]+")  # a number, or the "/" of a "my / golden" pair


def rendered(renderable: RenderableType, width: int) -> List[str]:
    """The lines `renderable` prints on a terminal `width` columns wide, without colours."""
    out = io.StringIO()
    Console(file=out, width=width, color_system=None, legacy_windows=False).print(renderable)
    return out.getvalue().splitlines()


def _cells(lines: Iterable[str]) -> List[str]:
    return [_BOX.sub(" ", line) for line in lines]


def split_headers(lines: Sequence[str], headers: Iterable[str]) -> List[str]:
    """The headers that appear whole on no line (between blanks or rules)."""
    cells = _cells(lines)
    return [h for h in headers if not any(re.search(rf"(?<!\S){re.escape(h)}(?!\S)", line) for line in cells)]


def _break_points(name: str) -> List[int]:
    return [0, len(name), *(k for k in range(1, len(name)) if name[k - 1] in "/:")]


def _is_whole_parts(token: str, name: str) -> bool:
    """Whether `token` is a run of whole parts of `name`: it starts and ends where the name may break."""
    points = _break_points(name)
    return any(name[i:j] == token for i in points for j in points if i < j)


def broken_names(lines: Sequence[str], names: Iterable[str], prose: Iterable[str] = ()) -> List[str]:
    """The words of `lines` that are a piece of one of `names` cut inside a part (``block2/relu1``
    of ``block2/relu1_fused:output:0``, or ``t:0``); a word that is a whole name, or whole parts of
    one, is fine. Numbers are not read (an Index such as 1 is in many names), nor the words of
    `prose` (a title's or a header's "in" is in "input")."""
    known = list(names)
    skipped = {word for text in prose for word in text.split()}
    words = [word for line in _cells(lines) for word in line.split()
             if not _NOT_A_NAME.fullmatch(word) and word not in skipped]
    return [word for word in words
            if any(word in name for name in known) and not any(_is_whole_parts(word, name) for name in known)]


def too_wide(lines: Sequence[str], width: int) -> List[str]:
    """The lines wider than `width` cells."""
    return [line for line in lines if cell_len(line) > width]
