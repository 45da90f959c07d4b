"""Links between the documentation pages resolve: files exist, and `#anchors` name a heading of
the target page (GitHub's heading ids). Table cells do not break on a `|` inside code."""

from __future__ import annotations

import re
from pathlib import Path
from typing import List, Set

import pytest

from tests.support.doc_blocks import ROOT, doc_pages, page_name, read_blocks

_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def prose_lines(path: Path) -> List[str]:
    """The page's lines outside fenced blocks, with inline code removed (links are not read there)."""
    fenced: Set[int] = set()
    for block in read_blocks(path):
        fenced.update(range(block.line, block.line + len(block.body) + 2))
    return [text for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
            if number not in fenced]


def anchor(heading: str) -> str:
    """GitHub's id of a heading: lower case, punctuation dropped except '-' and '_', spaces to '-'."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> Set[str]:
    found: Set[str] = set()
    for text in prose_lines(path):
        match = _HEADING.match(text)
        if match:
            base, n = anchor(match.group(1)), 1
            name = base
            while name in found:
                name, n = f"{base}-{n}", n + 1
            found.add(name)
    return found


def broken_links(path: Path) -> List[str]:
    broken = []
    for text in prose_lines(path):
        for target in _LINK.findall(re.sub(r"`[^`]*`", "", text)):
            if re.match(r"[a-z]+:", target):
                continue  # http(s), mailto: not checked (no network here)
            file_part, _, fragment = target.partition("#")
            resolved = (path.parent / file_part).resolve() if file_part else path
            if not resolved.exists():
                broken.append(f"{target}: no such file")
            elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
                broken.append(f"{target}: no heading with id #{fragment} in {page_name(resolved)}")
    return broken


@pytest.mark.parametrize("path", doc_pages(), ids=page_name)
def test_links_resolve(path: Path) -> None:
    assert broken_links(path) == []


def test_every_docs_page_is_reachable_from_the_index() -> None:
    docs = ROOT / "docs"
    index = (docs / "README.md").read_text(encoding="utf-8")
    pages = [p.relative_to(docs).as_posix() for p in sorted(docs.rglob("*.md")) if p != docs / "README.md"]
    assert [name for name in pages if f"({name}" not in index] == []


@pytest.mark.parametrize("path", doc_pages(), ids=page_name)
def test_table_cells_escape_pipes_in_code(path: Path) -> None:
    # GitHub splits a table row at every unescaped |, even inside `code`.
    bad = [text for text in prose_lines(path) if text.startswith("|")
           for code in re.findall(r"`[^`]*`", text) if re.search(r"(?<!\\)\|", code)]
    assert bad == []


def test_the_checks_notice_a_broken_link_and_anchor(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Title\n\n## Two words\n\n[ok](#two-words) [bad](#nope) [gone](b.md)\n")
    assert broken_links(tmp_path / "a.md") == ["#nope: no heading with id #nope in a.md", "b.md: no such file"]
