"""The core boundary: three adapters import the binding `opdiff._core` — numerics/core.py,
dumps/core_files.py and the batch engine (engine/tensor_engine.py) — and no other module does,
not inside a function nor for type checking alone. import-linter cannot see the extension module
(it has no Python source), so this reads every import statement of the package itself."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator

from tests.support.paths import ROOT

PACKAGE = ROOT / "python" / "opdiff"
ADAPTERS = {"numerics/core.py", "dumps/core_files.py", "engine/tensor_engine.py"}


def _names_the_core(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return any(alias.name == "opdiff._core" for alias in node.names)
    if not isinstance(node, ast.ImportFrom):
        return False
    if node.level > 0:  # from .. import _core, from .._core import x
        return (node.module or "").split(".")[-1] == "_core" or any(alias.name == "_core" for alias in node.names)
    return node.module == "opdiff._core" or (node.module == "opdiff" and any(alias.name == "_core" for alias in node.names))


def _imports_the_core(tree: ast.AST) -> Iterator[int]:
    return (node.lineno for node in ast.walk(tree) if _names_the_core(node))  # type: ignore[attr-defined]


def core_importers(package: Path) -> set[str]:
    found = set()
    for path in package.rglob("*.py"):
        if any(_imports_the_core(ast.parse(path.read_text(encoding="utf-8")))):
            found.add(path.relative_to(package).as_posix())
    return found


def test_only_the_three_adapters_import_the_core() -> None:
    assert core_importers(PACKAGE) == ADAPTERS


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    import opdiff._core as c\n    return c\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("from opdiff import _core\n", encoding="utf-8")
    (tmp_path / "c.py").write_text("import opdiff.dumps\n", encoding="utf-8")
    assert core_importers(tmp_path) == {"a.py", "b.py"}
