"""The public names of each package are written once, in one pattern: the lazy-export table
``_EXPORTS`` of its ``__init__.py`` (name -> defining module), whose keys are ``__all__``, and the
stub ``__init__.pyi`` that imports each name from the same module. The facade ``opdiff.api``
imports the root's names at once."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import opdiff
import opdiff.api
from tests.support.paths import ROOT

PACKAGE_ROOT = ROOT / "python" / "opdiff"
# Every package whose __init__.py exports names does it through opdiff._lazy_exports.
LAZY_PACKAGES = sorted(
    ".".join(("opdiff", *path.parent.relative_to(PACKAGE_ROOT).parts))
    for path in PACKAGE_ROOT.rglob("__init__.py")
    if "__all__" in path.read_text(encoding="utf-8")
)


def test_every_exporting_package_is_lazy() -> None:
    assert LAZY_PACKAGES == ["opdiff", "opdiff.dumps", "opdiff.graph", "opdiff.plugins", "opdiff.producers", "opdiff.runs"]


def test_the_facade_imports_exactly_the_root_exports() -> None:
    assert set(opdiff.api.__all__) == set(opdiff._EXPORTS)
    for name in opdiff.api.__all__:
        assert getattr(opdiff.api, name) is getattr(opdiff, name)


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_a_lazy_package_stub_names_each_export_where_it_is_defined(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__all__ == sorted(module._EXPORTS) + (["__version__"] if package == "opdiff" else [])
    stub = PACKAGE_ROOT.parent / Path(*package.split(".")) / "__init__.pyi"
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    declared = {alias.asname or alias.name: node.module for node in tree.body if isinstance(node, ast.ImportFrom)
                for alias in node.names}
    assert declared == module._EXPORTS  # the same name -> module table the package resolves with
    for name, defining in declared.items():
        assert getattr(module, name) is getattr(importlib.import_module(defining), name)
