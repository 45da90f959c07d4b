"""tools/console_screenshot.py still regenerates the README's picture from a real demo run."""

from __future__ import annotations

import html
import subprocess
import sys
from pathlib import Path

from tests.support.doc_blocks import ROOT


def svg_text(path: Path) -> str:
    return html.unescape(path.read_text(encoding="utf-8")).replace("\xa0", " ")


def test_the_screenshot_tool_records_the_demo_report(tmp_path: Path) -> None:
    out = tmp_path / "demo-console.svg"
    subprocess.run([sys.executable, str(ROOT / "tools" / "console_screenshot.py"), "--out", str(out)],
                   check=True, capture_output=True, timeout=120)
    text = svg_text(out)
    assert text.startswith("<svg") and "first failing tensor in execution order" in text
    assert "culprit op" in text and "block2/relu1_fused" in text
    assert not list(tmp_path.glob("*.partial"))


def test_the_committed_screenshot_is_a_demo_report() -> None:
    text = svg_text(ROOT / "docs" / "images" / "demo-console.svg")
    assert "opdiff compare" in text and "culprit op" in text
