"""Environments for child processes that tests start with a deliberately minimal environment."""

from __future__ import annotations

import os
from typing import Dict

# Under tools/sanitize_tests.sh the core is built with ASan, which loads only after its runtime
# is preloaded: a child given a clean environment must still get these. PYTHONPATH too: a suite run
# against a source tree (PYTHONPATH=python, the core built in place) must have its children import
# the same opdiff, not an installed one.
SANITIZER_VARIABLES = ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "PYTHONPATH")


def child_env(**variables: str) -> Dict[str, str]:
    """`variables` plus the sanitizer runtime's variables of this process, if any."""
    inherited = {name: os.environ[name] for name in SANITIZER_VARIABLES if name in os.environ}
    return {**inherited, **variables}


def make_pythonpath_absolute() -> None:
    """A suite run against a source tree (PYTHONPATH=python, the core built in place) must have every
    child import the same opdiff, also a child that starts in another folder: the path is made
    absolute before any child starts."""
    if os.environ.get("PYTHONPATH"):
        parts = os.environ["PYTHONPATH"].split(os.pathsep)
        os.environ["PYTHONPATH"] = os.pathsep.join(os.path.abspath(part) for part in parts if part)


def with_checkout_on_path(root: str) -> Dict[str, str]:
    """This process's environment with the checkout `root` last on PYTHONPATH, so a child imports
    the tests package from it and opdiff as this process does (the installed copy, or a source
    tree the caller put on PYTHONPATH): never the checkout's python/ folder, which holds no core
    unless it was built in place."""
    parts = [part for part in os.environ.get("PYTHONPATH", "").split(os.pathsep) if part]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(parts + [root])}
