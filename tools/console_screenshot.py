"""Regenerate docs/images/demo-console.svg: the console report of a real `opdiff demo` run, recorded
with rich and saved as SVG (the README shows it).

    python tools/console_screenshot.py [--out docs/images/demo-console.svg] [--width 100]

The demo runs in a temporary folder under the name `demo`, so the picture shows the paths a reader
gets from `opdiff demo --dir demo`.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
from pathlib import Path

from rich.console import Console

from opdiff.commands.demo import show_demo
from opdiff.demo.report import run_demo

ROOT = Path(__file__).resolve().parent.parent


def record_demo(out: Path, width: int) -> int:
    """Run the demo with a recording console and write the SVG atomically; returns 0."""
    console = Console(record=True, width=width, force_terminal=True, color_system="truecolor", file=io.StringIO())
    with tempfile.TemporaryDirectory(prefix="opdiff-screenshot-") as folder:
        here = Path.cwd()
        os.chdir(folder)
        try:
            show_demo(run_demo(Path("demo"), seed=0, fault="block2/conv1", fault_scale=1.5), console)
            code = 0
        finally:
            os.chdir(here)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    console.save_svg(str(partial), title="opdiff demo")
    partial.replace(out)
    return code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "demo-console.svg")
    parser.add_argument("--width", type=int, default=100, help="terminal columns of the picture")
    args = parser.parse_args()
    code = record_demo(args.out, args.width)
    print(f"wrote {args.out}")
    return code


if __name__ == "__main__":
    sys.exit(main())
