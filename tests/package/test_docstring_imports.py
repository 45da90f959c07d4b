"""Docstring examples keep the layers too. `lint-imports` (test_import_layers.py) reads import
statements, not the examples in docstrings, which tests/docs/test_doctests.py runs: an example in
graph/ that imported a writer of a higher layer (or the tests' helpers) would tie the layer to it
unseen. This test reads every example's imports (and the `opdiff.X` names it uses, through the
package's lazy exports) against the layers of pyproject.toml: an example may use its own layer
member and the layers below, never a higher layer, a sibling (`|`) or the tests."""

from __future__ import annotations

import ast
import doctest
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

import pytest

from opdiff import _EXPORTS as ROOT_EXPORTS
from tests.support.paths import ROOT

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest's own dependency
    import tomli as tomllib

PACKAGE = ROOT / "python" / "opdiff"
# Read from the source, not imported: a module that needs an extra (onnx, Model Explorer) is checked too.
SOURCES = sorted(PACKAGE.rglob("*.py"))
# Below every layer: the core extension and the lazy-export helper every package root uses.
BELOW_ALL = ("opdiff._core", "opdiff._lazy_exports")


def layers() -> List[Tuple[str, ...]]:
    """The members of each layer of the "layers" contract, top to bottom."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    return [tuple(member.strip() for member in layer.split("|")) for layer in contract["layers"]]


LAYERS = layers()


def place(module: str) -> Optional[Tuple[int, str]]:
    """(layer number counted from the top, member) of `module`; None outside every layer."""
    for number, members in enumerate(LAYERS):
        for member in members:
            if module == member or module.startswith(member + "."):
                return number, member
    return None


def used_modules(source: str) -> Iterator[str]:
    """The modules an example's source imports, and the defining modules of the `opdiff.X` names it uses."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "opdiff":
                yield from (ROOT_EXPORTS.get(alias.name, f"opdiff.{alias.name}") for alias in node.names)
            else:
                yield node.module
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "opdiff":
            yield ROOT_EXPORTS.get(node.attr, f"opdiff.{node.attr}")


def broken_rule(importer: str, imported: str) -> Optional[str]:
    """Why `importer`'s examples may not use `imported`; None where they may."""
    top = imported.split(".")[0]
    if top == "tests":
        return "the tests' helpers are no part of the package"
    if top != "opdiff" or imported == "opdiff" or imported.startswith(BELOW_ALL):
        return None
    mine, theirs = place(importer), place(imported)
    if mine is None or theirs is None or mine[1] == theirs[1] or theirs[0] > mine[0]:
        return None
    return f"{theirs[1]} is {'a sibling of' if theirs[0] == mine[0] else 'a layer above'} {mine[1]}"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def docstrings(path: Path) -> Iterator[Tuple[str, str]]:
    """(where, docstring) of the module, its classes and functions, nested ones included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node)
            if text:
                yield f"{path.name}:{getattr(node, 'lineno', 1)}", text


def breaks(path: Path) -> List[str]:
    """Each use in the docstring examples of the module at `path` that the layers forbid, as one line."""
    module, found = module_name(path), []
    for where, text in docstrings(path):
        for example in doctest.DocTestParser().get_examples(text):
            for imported in used_modules(example.source):
                why = broken_rule(module, imported)
                if why is not None:
                    found.append(f"{where}: {imported} ({why})")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: module_name(path))
def test_docstring_examples_use_only_their_layer_and_those_below(path: Path) -> None:
    assert breaks(path) == []


def test_the_check_sees_imports_above_siblings_the_tests_and_lazy_names() -> None:
    source = "import opdiff.engine.comparison\nfrom opdiff.dumps import Tensor\nfrom tests.support import paths\nopdiff.compare\nopdiff.read_graph\n"
    assert [(imported, broken_rule("opdiff.graph.read", imported)) for imported in used_modules(source)] == [
        ("opdiff.engine.comparison", "opdiff.engine is a layer above opdiff.graph"),
        ("opdiff.dumps", "opdiff.dumps is a sibling of opdiff.graph"),
        ("tests.support", "the tests' helpers are no part of the package"),
        ("opdiff.engine.comparison", "opdiff.engine is a layer above opdiff.graph"),
        ("opdiff.graph.read", None),
    ]
