"""Regenerate docs/images/graph-view.png: the HTML report's graph view of a real `opdiff demo`
comparison, as headless Chromium shows it with the advisor's culprit selected (docs/graph-view.md
shows it).

    python tools/graph_screenshot.py [--out docs/images/graph-view.png] [--width 1400] [--height 2000]

Needs a Chromium binary (Debian's chromium). The demo's data is written to a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.support: the Chromium helper the browser tests use

from opdiff.demo.report import write_case  # noqa: E402
from tests.support.chromium import screenshot  # noqa: E402


def record_graph(out: Path, width: int, height: int) -> Path:
    """Compare the demo case with --report html and save a PNG of its graph view."""
    with tempfile.TemporaryDirectory(prefix="opdiff-graph-shot-") as folder:
        case = write_case(Path(folder) / "demo", seed=0, fault="block2/conv1", fault_scale=1.5)
        result = Path(folder) / "out"
        subprocess.run([sys.executable, "-m", "opdiff", "compare", "-m", str(case["npu"]), "-g", str(case["golden"]),
                        "-f", str(case["rule"]), "-out", str(result), "--report", "html,json"], check=True, capture_output=True)
        (page,) = result.glob("result_*.html")
        (document,) = result.glob("result_*.json")
        findings = json.loads(document.read_text())["findings"]
        culprit = next((finding["op"] for finding in findings if finding["kind"] == "culprit op"), None)
        fragment = f"op={quote(culprit)}" if culprit else ""  # its rows and original ops in the side panel
        partial = out.with_name(out.name + ".partial.png")
        screenshot(page, partial, fragment=fragment, window=(width, height))
        partial.replace(out)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "graph-view.png")
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=2000)
    args = parser.parse_args()
    print(f"wrote {record_graph(args.out, args.width, args.height)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
