"""Benchmark: how reading the rule and planning a comparison scale with the number of ops (issue 36,
item 3: planning time per op within 1.5x from 2,000 to 20,000 and 200,000 ops; the 2,000-op rule read
in at most 20 ms).

    python bench/bench_planning.py [--ops 2000,20000,200000] [--repeats 3] [--workdir /tmp]

Per size, a chained fusion set of that many ops (bench/side_by_side/bench_data.py, 16 elements a
tensor: the files cost nothing to read, the names and the rule are what is measured), then in this
process, best of --repeats: the rule read (opdiff.read_graph of the atc JSON), the two folders'
indexing and the matching (opdiff.match.planning.plan, which reads the rule itself). Prints each
phase's seconds and microseconds per op, and the per-op ratio to the smallest size. The generated
data is deleted at the end.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))  # side_by_side, run from anywhere

from side_by_side.bench_data import DataSet, write_fusion_set

from opdiff.graph import read_graph
from opdiff.match.planning import plan

PER_OP_TARGET = 1.5  # planning time per op at the largest size / at the smallest
RULE_READ_TARGET_S = 0.020  # the 2,000-op rule


def _best(repeats: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def _measure(data: DataSet, repeats: int) -> Dict[str, float]:
    rule = _best(repeats, lambda: read_graph(data.rule))
    planned = _best(repeats, lambda: plan(data.my, data.golden, fusion_rule=data.rule))
    return {"rule": rule, "plan": planned}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", default="2000,20000,200000", help="op counts, comma-separated (the first is the base)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args()
    console = Console()
    sizes = [int(text) for text in args.ops.split(",") if text]
    rows: List[Dict[str, float]] = []
    root = Path(tempfile.mkdtemp(prefix="opdiff-planning-", dir=args.workdir))
    try:
        for ops in sizes:
            started = time.perf_counter()
            data = write_fusion_set(root / str(ops), f"{ops} ops", [16] * ops)
            console.print(f"  {ops:,} ops written in {time.perf_counter() - started:.1f} s")
            rows.append({"ops": ops, **_measure(data, args.repeats)})
            shutil.rmtree(root / str(ops))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    console.print(_table(rows))
    return 0


def _table(rows: List[Dict[str, float]]) -> Table:
    table = Table(title="rule read and planning against the number of ops (best of the repeats)")
    for column in ("ops", "rule read", "µs/op", "plan (rule, index, match)", "µs/op", "per op vs the first", "target"):
        table.add_column(column, justify="right")
    base = rows[0]["plan"] / rows[0]["ops"]
    for row in rows:
        ops = row["ops"]
        ratio = row["plan"] / ops / base
        rule_note = ""
        if ops == 2000:
            rule_note = f"rule [{'green' if row['rule'] <= RULE_READ_TARGET_S else 'red'}]<= 20 ms[/]; "
        table.add_row(f"{ops:,.0f}", f"{row['rule'] * 1e3:.1f} ms", f"{row['rule'] / ops * 1e6:.1f}", f"{row['plan'] * 1e3:.0f} ms",
                      f"{row['plan'] / ops * 1e6:.1f}", f"{ratio:.2f}x",
                      rule_note + f"[{'green' if ratio <= PER_OP_TARGET else 'red'}]<= {PER_OP_TARGET}x[/]")
    return table


if __name__ == "__main__":
    sys.exit(main())
