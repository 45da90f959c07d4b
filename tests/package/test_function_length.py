"""No hand-written function is longer than 80 lines in Python or 120 in C++ (generated code aside):
a reader sees a function whole. The C++ scan finds function bodies by their braces, with strings
and comments left out; namespace, class, struct and enum bodies are containers, not functions."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Iterator, List, Tuple

from tests.support.paths import ROOT

PYTHON_LIMIT = 80
CPP_LIMIT = 120
_CONTAINER = re.compile(r"\b(namespace|struct|class|union|enum)\b[^()]*$")
_STRIPPED = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def python_functions(path: Path) -> Iterator[Tuple[str, int]]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None:
            yield f"{path.relative_to(ROOT)}:{node.lineno} {node.name}", node.end_lineno - node.lineno + 1


def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))  # keep the line numbers


def cpp_functions(text: str) -> Iterator[Tuple[int, int]]:
    """(first line, length) of every function body in C++ source `text`."""
    code = _STRIPPED.sub(_blank, text)
    stack: List[Tuple[str, int]] = []  # (container | function | block, line)
    head_start = 0
    for position, char in enumerate(code):
        if char in ";{}":
            head = code[head_start:position]
            head_start = position + 1
        if char == "{":
            line = code.count("\n", 0, position) + 1
            in_function = any(kind == "function" for kind, _ in stack)
            if in_function:
                stack.append(("block", line))
            elif _CONTAINER.search(head.strip()) or head.rstrip().endswith("=") or "(" not in head:
                stack.append(("container", line))
            else:
                stack.append(("function", line))
        elif char == "}" and stack:
            kind, line = stack.pop()
            if kind == "function":
                yield line, code.count("\n", 0, position) + 1 - line + 1


def test_the_cpp_scan_sees_a_long_function_and_not_its_container() -> None:
    body = "\n".join(f"  int x{k} = {k};" for k in range(130))
    text = f'namespace a {{\nstruct S {{\n  int f() {{ return 1; }}\n}};\nvoid long_one() {{\n  const char* s = "{{";\n{body}\n}}\n}}\n'
    lengths = [length for _, length in cpp_functions(text)]
    assert lengths == [1, 133]


def test_no_python_function_is_longer_than_80_lines() -> None:
    files = [path for path in (ROOT / "python" / "opdiff").rglob("*.py") if not path.name.endswith("_pb2.py")]
    long = [f"{where}: {length} lines" for path in files for where, length in python_functions(path) if length > PYTHON_LIMIT]
    assert long == []


def test_no_cpp_function_is_longer_than_120_lines() -> None:
    files = sorted(path for folder in ("src", "include", "bindings") for path in (ROOT / "cpp" / folder).rglob("*.[ch]pp"))
    long = [f"{path.relative_to(ROOT)}:{line}: {length} lines" for path in files
            for line, length in cpp_functions(path.read_text(encoding="utf-8")) if length > CPP_LIMIT]
    assert long == []
