import os

import pytest

import opdiff
from tests.support.child_env import make_pythonpath_absolute
from tests.support.simd import SIMD_PATHS

make_pythonpath_absolute()

# tools/check_wheel.sh and cibuildwheel set this: the suite must then test the installed wheel, and a
# run that silently imported the source tree's python/opdiff would prove nothing about the wheel.
if os.environ.get("OPDIFF_TEST_INSTALLED") == "1":
    _source_tree = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python")
    if os.path.abspath(opdiff.__file__).startswith(_source_tree + os.sep):
        raise pytest.UsageError(f"OPDIFF_TEST_INSTALLED=1 but opdiff was imported from the source tree: {opdiff.__file__}")

@pytest.fixture(params=SIMD_PATHS)
def simd(request: pytest.FixtureRequest) -> str:
    """Every SIMD path this CPU can run."""
    return request.param


# What rich takes when COLUMNS is unset and output is not a terminal. Tests marked cli_output read
# command output at the caller's width (.ci/run runs them at 60, 80 and 200 columns too); every other
# test gets this one, so that no result depends on the terminal the suite runs in.
FIXED_COLUMNS = "80"


@pytest.fixture(autouse=True)
def fixed_terminal_width(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("cli_output") is None:
        monkeypatch.setenv("COLUMNS", FIXED_COLUMNS)
