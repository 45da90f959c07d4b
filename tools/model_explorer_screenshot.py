"""Regenerate docs/images/model-explorer.png: Model Explorer (the [view] extra) showing the demo's
fused graph with opdiff's verdict node data, as `opdiff view` serves it on 127.0.0.1 and headless
Chromium draws it (docs/model-explorer.md shows it).

    python tools/model_explorer_screenshot.py [--out docs/images/model-explorer.png] [--port 8131]

Needs Chromium and ai-edge-model-explorer. The demo comparison runs in a temporary folder; the
server is stopped at the end.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.support: the DevTools page the browser tests drive

from opdiff.demo.report import write_case  # noqa: E402
from tests.support.chromium_session import ChromiumPage  # noqa: E402

# Model Explorer's page has drawn the graph once its renderer's canvases are there
GRAPH_DRAWN = "document.querySelectorAll('canvas').length > 0"
SETTLE_S = 8.0  # the layout animates into place after the first frame


def _view_url(server: subprocess.Popen[str], port: int, timeout: float = 120.0) -> str:
    """The URL `opdiff view` prints once Model Explorer listens (it loads the graph and the node data)."""
    assert server.stdout is not None
    pattern = re.compile(rf"http://127\.0\.0\.1:{port}/\?data=\S+")
    deadline = time.monotonic() + timeout
    for line in server.stdout:
        found = pattern.search(line)
        if found:
            return found.group(0)
        if time.monotonic() > deadline:
            break
    raise RuntimeError(f"opdiff view printed no URL for port {port} (exit {server.poll()})")


def record_view(out: Path, port: int) -> Path:
    """Compare the demo with --report model-explorer, serve it with opdiff view, and save a PNG."""
    with tempfile.TemporaryDirectory(prefix="opdiff-me-shot-") as folder:
        case = write_case(Path(folder) / "demo", seed=0, fault="block2/conv1", fault_scale=1.5)
        result = Path(folder) / "out"
        subprocess.run([sys.executable, "-m", "opdiff", "compare", "-m", str(case["npu"]), "-g", str(case["golden"]),
                        "-f", str(case["rule"]), "-out", str(result), "--report", "model-explorer"], check=True, capture_output=True)
        server = subprocess.Popen([sys.executable, "-u", "-m", "opdiff", "view", str(result), "--no-browser", "--port", str(port)],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            with ChromiumPage(_view_url(server, port), window=(1400, 900), timeout=120, ready=GRAPH_DRAWN) as page:
                time.sleep(SETTLE_S)
                partial = out.with_name(out.name + ".partial.png")
                page.screenshot(partial)
                partial.replace(out)
        finally:
            server.terminate()
            server.wait(timeout=30)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "model-explorer.png")
    parser.add_argument("--port", type=int, default=8131, help="the port opdiff view listens on, on 127.0.0.1")
    args = parser.parse_args()
    print(f"wrote {record_view(args.out, args.port)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
