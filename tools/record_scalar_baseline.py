"""Records what the portable scalar path computes for tests/support/scalar_baseline_cases.py into
tests/data/scalar_baseline.json, every float as float.hex(). Run it with the build whose results are
the reference importable (it was the _core module of main at 82a63c3, before the scalar loop was
restructured); tests/kernels/test_scalar_bit_identity.py then requires every later build to reproduce them
bit for bit. A case added later is recorded the same way, by that same old module.

    python tools/record_scalar_baseline.py [--out OUT.json] [--commit SHA_OF_THE_BUILD]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests package, run as a script from anywhere

from opdiff.numerics.core_adapter import compute_metrics  # noqa: E402
from tests.support.scalar_baseline_cases import CASES, encode, flatten  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "scalar_baseline.json")
    parser.add_argument("--commit", help="the commit the imported build was made from (default: this checkout's HEAD)")
    args = parser.parse_args()
    commit = args.commit or subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                           text=True).stdout.strip()
    results = {}
    for name, (build, threads) in CASES.items():
        x, y = build()
        m = compute_metrics(x, y, simd="scalar", threads=threads)
        results[name] = {path: encode(value) for path, value in flatten(m.as_dict())}
    record = {"recorded_at_commit": commit, "machine": platform.machine(), "cases": results}
    args.out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"{len(results)} cases written to {args.out}")


if __name__ == "__main__":
    main()
