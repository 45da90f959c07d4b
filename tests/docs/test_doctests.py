"""Every docstring example in the package runs (so the documented examples cannot rot)."""

import doctest
import importlib
import importlib.util
import pkgutil

import pytest

import opdiff
from opdiff.producers.onnx.support import onnx_available

MODULES = sorted(
    name for _, name, _ in pkgutil.walk_packages(opdiff.__path__, prefix="opdiff.") if not name.endswith("__main__")
)

# The Model Explorer extension's modules that import model_explorer when loaded (the [view] extra)
VIEWER_MODULES_NEEDING_MODEL_EXPLORER = ("opdiff.viewer.main", "opdiff.viewer.graph")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    if name.startswith("opdiff.producers") and not onnx_available():
        pytest.skip('needs the onnx extra: pip install "opdiff[onnx]"')
    if name in VIEWER_MODULES_NEEDING_MODEL_EXPLORER and importlib.util.find_spec("model_explorer") is None:
        pytest.skip('needs the view extra (Model Explorer): pip install "opdiff[view]"')
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
