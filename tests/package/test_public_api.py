"""The public names are listed once per place that must hold them: ``opdiff.__all__`` (the lazy
exports), the facade ``opdiff.api`` and the type stub ``__init__.pyi``. They must agree."""

from __future__ import annotations

import ast

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
