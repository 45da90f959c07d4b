"""Records what the portable scalar path computes for tests/scalar_baseline_cases.py into
tests/data/scalar_baseline.json, every float as float.hex(). Run it once on the build whose results
are the reference (it was run on main at 82a63c3, before the scalar loop was restructured);
tests/test_scalar_bit_identity.py then requires every later build to reproduce them bit for bit.

    python tools/record_scalar_baseline.py [OUT.json]
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from scalar_baseline_cases import CASES, encode, flatten  # noqa: E402

from opdiff._metrics import compute_metrics  # noqa: E402


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "data" / "scalar_baseline.json"
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    results = {}
    for name, (build, threads) in CASES.items():
        x, y = build()
        m = compute_metrics(x, y, simd="scalar", threads=threads)
        results[name] = {path: encode(value) for path, value in flatten(m.as_dict())}
    record = {"recorded_at_commit": commit, "machine": platform.machine(), "cases": results}
    out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"{len(results)} cases written to {out}")


if __name__ == "__main__":
    main()
