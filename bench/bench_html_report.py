"""How big the HTML report of a large comparison is and how fast it opens in headless Chromium.

    python bench/bench_html_report.py [--rows 1000 20000] [--graph-ops 5000] [--repeats 3]

For each size: the file size, the time to write it, and over `repeats` loads in a fresh headless
Chromium the in-page render time (navigation start until the table, chart and findings are drawn,
performance.now()) and the wall time of the whole browser process: start-up, load, render and the
--dump-dom serialisation of the page (the embedded data included, which is most of the difference
for big pages). A second wall time takes a screenshot instead (load, render, paint; nothing
serialised), and beside it the same minus a blank page's: what the report itself costs to open. The target of issue 6: a 20,000-row report
opens in under 3 s and stays under 10 MB.

The graph table (issue 26): a report whose comparison has a graph of N ops (tests.support.
large_graph_report: "/" scopes three deep, one culprit), its size, and in headless Chromium the
time from navigation start until the graph is laid out and drawn, as it first opens (scopes
folded) and with every scope unfolded (#graph=unfolded: the full layout), with dagre's share
(the layout of what is visible) beside it. Target: the folded graph is shown within 5 s on 2 cores.
Give `--rows` with no sizes to run the graph table alone.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests package's helpers, run from anywhere

from opdiff.advisor.tensor_advisor import advise
from opdiff.report.tensor.html_writer import write_html_report
from tests.support.chromium import dump_dom, find_chromium, screenshot
from tests.support.large_graph_report import large_graph_report
from tests.support.large_report import large_report


def _shot_seconds(page: Path, folder: Path) -> float:
    start = time.perf_counter()
    screenshot(page, folder / "shot.png", window=(1400, 1000), timeout=120)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[1000, 20000])
    parser.add_argument("--graph-ops", type=int, nargs="*", default=[5000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    console = Console(width=160)
    chromium = find_chromium()
    if chromium is None:
        console.print("[red]no chromium binary found[/] (apt-get install chromium)")
        return 2
    table = Table(title=f"HTML report: size and load time in headless Chromium ({chromium})")
    for column in ("rows", "size MB", "write s", "render ms (median)", "render ms (max)", "dump-dom wall s (median)",
                   "dump-dom wall s (max)", "screenshot wall s (median)", "over blank s", "rows shown"):
        table.add_column(column, justify="right")
    with tempfile.TemporaryDirectory(prefix="html-report-bench-") as folder:
        blank = Path(folder) / "blank.html"
        blank.write_text("<!DOCTYPE html><title>blank</title><p>blank</p>", encoding="utf-8")
        blank_walls = [dump_dom(blank).seconds for _ in range(args.repeats)]
        blank_shot = statistics.median(_shot_seconds(blank, Path(folder)) for _ in range(args.repeats))
        table.add_row("blank page", "0.00", "", "", "", f"{statistics.median(blank_walls):.2f}", f"{max(blank_walls):.2f}",
                      f"{blank_shot:.2f}", "", "")
        for rows in args.rows:
            report = large_report(rows)
            findings = advise(report)
            start = time.perf_counter()
            page = write_html_report(report, Path(folder) / f"r{rows}.html", findings)
            write_s = time.perf_counter() - start
            renders, walls, shown = [], [], ""
            for _ in range(args.repeats):
                load = dump_dom(page, timeout=120)
                found = re.search(r'data-render-ms="([0-9.]+)"', load.dom)
                if found is None or 'data-ready="1"' not in load.dom:
                    console.print(f"[red]the page of {rows} rows did not finish rendering[/]")
                    return 1
                renders.append(float(found.group(1)))
                walls.append(load.seconds)
                shown = re.search(r'id="row-count"[^>]*>([^<]*)<', load.dom).group(1)  # type: ignore[union-attr]
            shot = statistics.median(_shot_seconds(page, Path(folder)) for _ in range(args.repeats))
            table.add_row(str(rows), f"{page.stat().st_size / 1e6:.2f}", f"{write_s:.2f}", f"{statistics.median(renders):.0f}",
                          f"{max(renders):.0f}", f"{statistics.median(walls):.2f}", f"{max(walls):.2f}", f"{shot:.2f}",
                          f"{shot - blank_shot:.2f}", shown)
    console.print(table)
    if args.graph_ops:
        console.print(_graph_table(args.graph_ops, args.repeats, str(chromium)))
    return 0


def _graph_load(page: Path, fragment: str) -> Dict[str, float]:
    """One headless load: the in-page figures the graph view leaves on its elements, and the wall time."""
    load = dump_dom(page, fragment=fragment, timeout=300)
    svg = re.search(r'<svg id="graph"[^>]*>', load.dom)
    ready = re.search(r'data-graph-ready-ms="([0-9.]+)"', load.dom)
    if svg is None or ready is None or 'data-ready="1"' not in svg.group(0):
        raise RuntimeError(f"the graph of {page.name} was not drawn")
    figures = {name: float(value) for name, value in re.findall(r'data-(layout-ms|visible)="([0-9.]+)"', svg.group(0))}
    return {"ready_ms": float(ready.group(1)), "wall_s": load.seconds, **figures}


def _graph_table(sizes: List[int], repeats: int, chromium: str) -> Table:
    table = Table(title=f"HTML report with its graph: size and time to show the graph in headless Chromium ({chromium})")
    for column in ("ops", "size MB", "write s", "view", "items laid out", "shown ms (median)", "shown ms (max)",
                   "dagre layout ms (median)", "dump-dom wall s (median)"):
        table.add_column(column, justify="right")
    with tempfile.TemporaryDirectory(prefix="html-graph-bench-") as folder:
        for ops in sizes:
            report, fm = large_graph_report(ops)
            findings = advise(report, fm)
            start = time.perf_counter()
            page = write_html_report(report, Path(folder) / f"g{ops}.html", findings)
            write_s = time.perf_counter() - start
            for view, fragment in (("folded (first open)", ""), ("every scope unfolded", "graph=unfolded")):
                loads = [_graph_load(page, fragment) for _ in range(repeats)]
                ready = [load["ready_ms"] for load in loads]
                table.add_row(str(ops), f"{page.stat().st_size / 1e6:.2f}", f"{write_s:.2f}", view, f"{loads[0]['visible']:.0f}",
                              f"{statistics.median(ready):.0f}", f"{max(ready):.0f}",
                              f"{statistics.median(load['layout-ms'] for load in loads):.0f}",
                              f"{statistics.median(load['wall_s'] for load in loads):.2f}")
    return table


if __name__ == "__main__":
    sys.exit(main())
