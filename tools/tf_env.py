#!/usr/bin/env python3
"""A virtual environment with tensorflow-cpu (pyproject's ``tf`` extra), pytest and the running
interpreter's opdiff copied into it; prints that environment's python. The TensorFlow tests
(marker ``tf``) run there, so the main suite's environment never holds TensorFlow:

    TF_PYTHON=$(python tools/tf_env.py) && "$TF_PYTHON" -m pytest tests/producers/test_tf_*.py -m tf

Built once per requirement set under the system's temporary folder (or --dir) and reused; opdiff
is copied in afresh on every call (tools/onnx_env.py does both, for the ONNX version pairs). Exit
status 3 with pip's last words when the environment cannot be built (offline, no wheel for this
Python): .ci/run then fails.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import List

# tools/ is this script's folder, first on sys.path when it runs
from onnx_env import _dependencies, _extra, build, copy_opdiff, environment_folder

# the test runner itself: the TF tests need nothing else of the test extra
TEST_RUNNER = "pytest>=7"


def requirements(extras: List[str]) -> List[str]:
    """What pip installs: opdiff's dependencies, the ``tf`` extra, pytest and `extras`."""
    return _dependencies() + _extra("tf") + [TEST_RUNNER] + extras


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--extra", action="append", default=[], metavar="REQUIREMENT", help="another package to install (repeatable)")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()), help="where environments are kept (default: the temporary folder)")
    args = parser.parse_args()
    wanted = requirements(args.extra)
    python = build(environment_folder("tf", wanted, args.dir), wanted)
    copy_opdiff(python)
    print(python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
