"""The repository stands alone: no tracked file cites a document or a path outside it.

The facts the code relies on live in docs/reference/ (the reference tool's behaviour, the .om
layout, what real files look like); comments, docstrings, proto comments, READMEs and tests cite
those pages or public sources. Someone who clones the repository has nothing else, so a citation
of the notes the project was first written from (the workplace's shared folder and the note files
in it) would point at nothing. This test scans every tracked text file for such citations.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import List, Optional, Pattern

from tests.support.doc_blocks import ROOT

# The note files' names, written in pieces so that this file does not cite them itself (it is
# scanned like every other tracked file).
_NOTE_NAMES = ("msaccucmp" + "-behaviour", "om" + "-format", "real" + "-files", "style" + "-anchors", "ARCHITECTURE")
_SHARED = "shar" + "ed"


def outside_citation() -> Pattern[str]:
    """A path into the shared folder (relative, `../`, or absolute under /work), or a note file
    named as if it were present."""
    notes = "|".join(re.escape(name) for name in _NOTE_NAMES)
    return re.compile(
        rf"(?<![\w-]){_SHARED}/"  # the shared folder's reference and samples, by relative path
        rf"|\.\./{_SHARED}\b"  # ... or from the folder beside the checkout
        rf"|/work/(?:{_SHARED}|wt|main)\b"  # the workplace's absolute paths
        rf"|(?<![\w-])(?:{notes})\.md\b"  # a note file by its bare name
        rf"|(?<![\w-])(?:{notes})\s+§"  # ... or its name and a section, without the .md
    )


def tracked_files(root: Path) -> List[Path]:
    """The files git tracks under root (the working tree's version of each)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
    return [root / name for name in listed.decode("utf-8").split("\0") if name and (root / name).is_file()]


def text_of(path: Path) -> Optional[str]:
    """The file's text, or None for a binary file (a NUL byte, or not UTF-8)."""
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def outside_citations(root: Path, paths: List[Path]) -> List[str]:
    """`file:line: text` for every line that cites something outside the repository."""
    pattern = outside_citation()
    found = []
    for path in paths:
        text = text_of(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if pattern.search(line):
                found.append(f"{path.relative_to(root).as_posix()}:{number}: {line.strip()}")
    return found


def test_no_tracked_file_cites_outside_the_repository() -> None:
    files = tracked_files(ROOT)
    assert len(files) > 100  # the listing worked: the scan saw the repository, not an empty tree
    assert outside_citations(ROOT, files) == []


def test_the_scan_notices_a_planted_citation(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    planted = {
        "a.py": f'"""Layout from {_SHARED}/reference/{_NOTE_NAMES[1]}.md §1."""\n',
        "b.cpp": f"// Nano dumps ({_NOTE_NAMES[0]}.md §1.6).\n",
        "c.md": f"See ../{_SHARED} for the samples, and {_NOTE_NAMES[2]} §2.1.\n",
        "d.proto": f"// Field list from /work/{_SHARED}/notes.\n",
        "e.md": "Facts: docs/reference/om-layout.md §2, shared_ptr<T>, a sharedmem/ folder.\n",
        "f.bin": "\0 " + f"{_SHARED}/reference\n",
    }
    for name, text in planted.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)
    found = outside_citations(tmp_path, tracked_files(tmp_path))
    assert [line.split(":")[0] for line in found] == ["a.py", "b.cpp", "c.md", "d.proto"]
