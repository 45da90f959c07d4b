"""The public names are listed once per place that must hold them: ``opdiff.__all__`` (the lazy
exports), the facade ``opdiff.api`` and the type stub ``__init__.pyi``. They must agree; so must
the lazy exports of opdiff.dumps and opdiff.runs and their stubs."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import opdiff
import opdiff.api
from tests.support.paths import ROOT

STUB = ROOT / "python" / "opdiff" / "__init__.pyi"


def test_the_package_exports_exactly_the_facade() -> None:
    assert set(opdiff.__all__) - {"__version__"} == set(opdiff.api.__all__)
    for name in opdiff.api.__all__:
        assert getattr(opdiff, name) is getattr(opdiff.api, name)


def test_the_stub_declares_every_exported_name() -> None:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    imported = {alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert imported == set(opdiff.api.__all__)


LAZY_PACKAGES = ("opdiff.dumps", "opdiff.runs")  # subpackages that export their names lazily, like the root


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_a_lazy_subpackage_stub_names_each_export_where_it_is_defined(package: str) -> None:
    module = importlib.import_module(package)
    stub = ROOT / "python" / Path(*package.split(".")) / "__init__.pyi"
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    declared = {alias.asname or alias.name: node.module for node in tree.body if isinstance(node, ast.ImportFrom)
                for alias in node.names}
    assert declared == module._EXPORTS  # the same name -> module table the package resolves with
    assert set(declared) == set(module.__all__)
    for name, defining in declared.items():
        assert getattr(module, name) is getattr(importlib.import_module(defining), name)
