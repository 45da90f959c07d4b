"""Regenerate python/opdiff/_core.pyi, the type stubs of the compiled module, with pybind11-stubgen.

    pip install pybind11-stubgen
    python tools/gen_stubs.py          # rewrite the committed stub from the built module
    python tools/gen_stubs.py --check  # exit 1 when the committed stub differs from a fresh one

Run after changing cpp/bindings/ and rebuilding (pip install --no-build-isolation -e .). The suite
checks the stub's names against the module (tests/package/test_typing.py), so a forgotten run fails there;
the text itself depends on the pybind11 version, hence only this optional exact check.
"""

from __future__ import annotations

import argparse
import ast
import enum
import importlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Optional

ROOT = Path(__file__).resolve().parent.parent
STUB = ROOT / "python" / "opdiff" / "_core.pyi"


def fresh_stub() -> str:
    """The stub pybind11-stubgen writes for the importable opdiff._core."""
    with tempfile.TemporaryDirectory() as out:
        # --exit-code: any signature stubgen cannot express is an error, not a silent `...`.
        subprocess.run(
            [sys.executable, "-m", "pybind11_stubgen", "opdiff._core", "--exit-code", "-o", out],
            check=True,
        )
        return with_sorted_imports(with_array_buffers(with_enum_members((Path(out) / "opdiff" / "_core.pyi").read_text())))


def with_sorted_imports(text: str) -> str:
    """The stub with its imports in the project's order (ruff's fixes), so that --check compares
    with what is committed."""
    fixed = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--fix-only", "--quiet", "--stdin-filename", str(STUB), "-"],
        input=text, capture_output=True, text=True, check=True, cwd=ROOT,
    )
    return fixed.stdout


def with_enum_members(text: str) -> str:
    """The stub with each enum.Enum class (py::native_enum) written as Python declares one: its
    members as ``name = value`` in definition order. pybind11-stubgen writes them as ClassVar
    annotations, which type checkers do not take for members, plus a ``__new__`` of no use."""
    core = importlib.import_module("opdiff._core")
    lines = text.splitlines(keepends=True)
    classes = [node for node in ast.parse(text).body if isinstance(node, ast.ClassDef)
               and isinstance(getattr(core, node.name, None), type) and issubclass(getattr(core, node.name), enum.Enum)]
    for node in sorted(classes, key=lambda n: n.lineno, reverse=True):
        cls = getattr(core, node.name)
        body = [f"class {node.name}(enum.Enum):\n"]
        if cls.__doc__:
            body += ['    """\n', f"    {cls.__doc__.strip()}\n", '    """\n']
        body += [f"    {member.name} = {member.value!r}\n" for member in cls]
        assert node.end_lineno is not None
        lines[node.lineno - 1 : node.end_lineno] = body
    return "".join(lines)


def with_array_buffers(text: str) -> str:
    """The stub with every buffer parameter also taking a numpy array: one is a buffer, but the
    numpy stubs declare its ``__buffer__`` for Python 3.12 on only, and the package supports 3.10."""
    return text.replace("typing_extensions.Buffer", "typing_extensions.Buffer | numpy.typing.NDArray[typing.Any]")


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only report whether the committed stub is current")
    args = parser.parse_args(argv)
    text = fresh_stub()
    if args.check:
        current = STUB.exists() and STUB.read_text() == text
        print(f"{STUB.relative_to(ROOT)} is {'current' if current else 'STALE: run python tools/gen_stubs.py'}")
        return 0 if current else 1
    scratch = STUB.with_suffix(".pyi.tmp")
    scratch.write_text(text)
    os.replace(scratch, STUB)
    print(f"wrote {STUB.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
