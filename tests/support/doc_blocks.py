"""Fenced code blocks of the documentation (README.md and docs/**/*.md) and the commands in them.

The conventions are stated for doc writers at the top of docs/README.md:

* ```bash, ```sh, ```shell: every line is a command (comments and blank lines skipped, a trailing
  backslash continues the line); ```console: lines starting with "$ " are commands, the others
  are their output. These blocks are run by tests/docs/test_docs_commands.py.
* A command expected to fail says so with a trailing comment: `opdiff ... # exit 3`.
* ```device: commands that need the Ascend side (an NPU, the CANN toolkit: atc, msaccucmp.py,
  msprobe) or the reference tool's own environment. ```slow: commands that run on any host but
  build or run for minutes (sanitizer builds, full benchmarks, fuzzing). Neither is run; the test
  lists every such block by page and first line, so a shell block cannot hide there by mistake.
* ```python blocks run too, as one script each, in page order with the shell commands (same
  folder); a block that is only a fragment (it uses names the reader's own code defines) starts
  with the comment line `# fragment: ...` and is listed like the not-run blocks.
* A block whose first line is `# needs: MODULE ...` runs only where MODULE imports; the blocks
  needing tensorflow run, on their own, in the venv tools/tf_env.py builds (marker tf).
* Every fence names its language (```text for output, file trees and the like).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

from tests.support import paths

ROOT = paths.ROOT
SHELL_LANGUAGES = ("bash", "sh", "shell", "console")
PYTHON_LANGUAGES = ("python",)
NOT_RUN_LANGUAGES = ("device", "slow")
FRAGMENT_MARK = "# fragment:"
NEEDS_MARK = "# needs:"

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})\s*([^`\s]*)([^`]*)$")  # a backtick fence's info has no backtick
_EXPECTED_EXIT = re.compile(r"\s#\s*exit\s+(\d+)\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced block: its page (relative to the repository root), language, first line number
    (of the fence) and body lines."""

    page: str
    language: str
    line: int
    body: Tuple[str, ...]

    @property
    def is_fragment(self) -> bool:
        """A Python block that only illustrates (not run)."""
        return self.language in PYTHON_LANGUAGES and self.first_line.startswith(FRAGMENT_MARK)

    @property
    def needs(self) -> str:
        """The optional module the block needs (its first line ``# needs: MODULE ...``), or ""."""
        if not self.first_line.startswith(NEEDS_MARK):
            return ""
        return self.first_line[len(NEEDS_MARK):].split()[0]

    @property
    def first_line(self) -> str:
        """The first non-blank line of the body (how the not-run lists name a block)."""
        return next((text.strip() for text in self.body if text.strip()), "")


@dataclass(frozen=True)
class Command:
    """One command of a shell block, where it is written and the exit code the page expects."""

    page: str
    line: int
    text: str
    expected_exit: int


def doc_pages() -> List[Path]:
    """README.md and every Markdown page under docs/, in a stable order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def page_name(path: Path) -> str:
    """The page's path relative to the repository root (its file name for a page elsewhere)."""
    path = path.resolve()
    return path.relative_to(ROOT).as_posix() if ROOT in path.parents else path.name


def read_blocks(path: Path) -> List[Block]:
    """Every fenced block of a Markdown page; an unclosed fence is an error naming the line."""
    blocks: List[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    opened: Optional[Tuple[int, str, str]] = None  # (line number, fence, language)
    body: List[str] = []
    for number, text in enumerate(lines, start=1):
        match = _FENCE.match(text)
        if opened is None:
            if match:
                opened = (number, match.group(2), match.group(3).lower())
                body = []
            continue
        fence = opened[1]
        if match and match.group(2)[0] == fence[0] and len(match.group(2)) >= len(fence) and not match.group(3):
            blocks.append(Block(page_name(path), opened[2], opened[0], tuple(body)))
            opened = None
        else:
            body.append(text)
    if opened is not None:
        raise ValueError(f"{page_name(path)}:{opened[0]}: the fence opened here is never closed")
    return blocks


def commands_of(block: Block) -> List[Command]:
    """The commands of a shell block, with continuation lines joined and comments dropped."""
    commands: List[Command] = []
    pending: List[str] = []
    start = 0
    for offset, raw in enumerate(block.body, start=1):
        number = block.line + offset
        text = raw.rstrip()
        if not pending:
            if block.language == "console":
                if not text.startswith("$ "):
                    continue  # output shown in the page
                text = text[2:]
            if not text.strip() or text.lstrip().startswith("#"):
                continue
            start = number
        if text.endswith("\\"):
            pending.append(text[:-1])
            continue
        pending.append(text)
        commands.append(_command(block.page, start, " ".join(part.strip() for part in pending)))
        pending = []
    if pending:
        raise ValueError(f"{block.page}:{start}: the command continues past the end of its block")
    return commands


def _command(page: str, line: int, text: str) -> Command:
    if "<<" in text:
        raise ValueError(f"{page}:{line}: here-documents are not supported in documented commands")
    match = _EXPECTED_EXIT.search(text)
    if match:
        return Command(page, line, text[: match.start()].rstrip(), int(match.group(1)))
    return Command(page, line, text, 0)
