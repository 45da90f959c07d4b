"""The typed public API: the committed _core stubs match the compiled module, and mypy checks user code
against py.typed and those stubs (tests/typing/typed_usage.py passes, typed mistakes are caught)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Dict, List, Set

import pytest

import opdiff
from opdiff import _core
from tests.support import paths

PACKAGE = Path(opdiff.__file__).resolve().parent
STUB = PACKAGE / "_core.pyi"
USAGE = paths.TESTS / "typing" / "typed_usage.py"
REGENERATE = "stale stub: rebuild, then run python tools/gen_stubs.py"


def stub_tree() -> ast.Module:
    return ast.parse(STUB.read_text(), filename=str(STUB))


def defined_names(body: List[ast.stmt]) -> Dict[str, ast.stmt]:
    names: Dict[str, ast.stmt] = {}
    for node in body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, ast.Assign):  # enum members: ``name = value``
            names.update((target.id, node) for target in node.targets if isinstance(target, ast.Name))
    return names


def public(names: Set[str]) -> Set[str]:
    return {name for name in names if not name.startswith("_")}


def doc_parameters(function: object) -> List[str]:
    """Parameter names from the signature line pybind11 puts first in a function's docstring."""
    doc = getattr(function, "__doc__", None) or ""
    inside = doc.split("\n", 1)[0]
    inside = inside[inside.index("(") + 1 : inside.rindex(") ->")]
    names, depth, start = [], 0, 0
    for position, char in enumerate(inside + ","):
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        elif char == "," and depth == 0:
            parameter = inside[start:position].strip()
            if parameter:
                names.append(re.split(r"[:=]", parameter, maxsplit=1)[0].strip())
            start = position + 1
    return names


def stub_parameters(node: ast.FunctionDef) -> List[str]:
    return [arg.arg for arg in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]


def test_py_typed_is_shipped() -> None:
    assert (PACKAGE / "py.typed").is_file()
    assert STUB.is_file()


def test_stub_names_match_the_module() -> None:
    stub = defined_names(stub_tree().body)
    assert public(set(stub)) == public(set(dir(_core))), REGENERATE


def test_stub_all_matches_the_module() -> None:
    declared = next(
        node.value for node in stub_tree().body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "__all__"
    )
    assert sorted(ast.literal_eval(declared)) == sorted(public(set(dir(_core)))), REGENERATE


def test_stub_classes_match_the_module() -> None:
    for name, node in defined_names(stub_tree().body).items():
        if isinstance(node, ast.ClassDef):
            real = public(set(vars(getattr(_core, name))))
            assert public(set(defined_names(node.body))) == real, f"{name}: {REGENERATE}"


def test_stub_parameters_match_the_module() -> None:
    checked = 0
    for name, node in defined_names(stub_tree().body).items():
        functions = [(name, node, getattr(_core, name))] if isinstance(node, ast.FunctionDef) else []
        if isinstance(node, ast.ClassDef):
            members = defined_names(node.body)
            functions = [
                (f"{name}.{member}", members[member], getattr(getattr(_core, name), member))
                for member in members
                if isinstance(members[member], ast.FunctionDef) and not isinstance(getattr(getattr(_core, name), member), property)
            ]
        for label, function_node, real in functions:
            assert isinstance(function_node, ast.FunctionDef)
            assert stub_parameters(function_node) == doc_parameters(real), f"{label}: {REGENERATE}"
            checked += 1
    assert checked >= 15  # the module's functions and methods, so an empty stub cannot pass


def run_mypy(tmp_path: Path, *files: Path) -> subprocess.CompletedProcess:
    pytest.importorskip("mypy", reason='needs mypy: pip install "opdiff[test]"')
    if "libasan" in os.environ.get("LD_PRELOAD", ""):
        # The sanitizer pass of .ci/run tests the core; mypy never loads it, so it would only cost time.
        pytest.skip("type checking does not touch the core: skipped in the sanitizer pass")
    config = tmp_path / "mypy.ini"
    # The package itself is not under test here (follow_imports=silent), only what a user sees of it.
    lines = ["[mypy]", "[mypy-opdiff.*]", "follow_imports = silent"]
    if str(PACKAGE.parent) not in (sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]):
        # An editable install is an import hook mypy cannot follow: point it at the source folder.
        lines.insert(1, f"mypy_path = {PACKAGE.parent}")
    config.write_text("\n".join(lines) + "\n")
    command = [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", str(tmp_path / "cache"),
               "--no-error-summary", "--hide-error-context", *map(str, files)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path)


def test_mypy_accepts_typed_usage_and_catches_mistakes(tmp_path: Path) -> None:
    mistakes = tmp_path / "mistakes.py"
    mistakes.write_text(
        "import numpy as np\nimport opdiff\nfrom opdiff import _core\n"
        "name: str = opdiff.metrics(np.ones(2), np.ones(2)).cosine_similarity\n"  # a float
        "_core.open_tensor_file(3)\n"  # wants a str path
        "opdiff.compare('my', 'golden', threads='all')\n"  # wants an int
    )
    result = run_mypy(tmp_path, USAGE, mistakes)
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert not [line for line in errors if "typed_usage.py" in line], result.stdout + result.stderr
    caught = sorted(int(line.split(":")[1]) for line in errors if "mistakes.py" in line)
    assert caught == [4, 5, 6], result.stdout + result.stderr
