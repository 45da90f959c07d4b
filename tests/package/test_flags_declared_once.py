"""Every flag and default is declared once: `-out`/`--output` and `-j`/`--threads` in
commands/args/, AllClose's default tolerances in numerics/core.py, and no signature of the package
restates them (`= _core.DEFAULT_RTOL`)."""

from __future__ import annotations

import re

from tests.support.paths import ROOT

PACKAGE = ROOT / "python" / "opdiff"


def _sources() -> dict[str, str]:
    return {path.relative_to(PACKAGE).as_posix(): path.read_text(encoding="utf-8") for path in PACKAGE.rglob("*.py")}


def _declaring(flag: str) -> list[str]:
    pattern = re.compile(rf"""["']{re.escape(flag)}["']""")
    return sorted(name for name, text in _sources().items() if "add_argument" in text and pattern.search(text))


def test_output_and_threads_are_declared_once() -> None:
    assert _declaring("--threads") == ["commands/args/threads.py"]
    assert _declaring("-out") == ["commands/args/output.py"]
    assert _declaring("--output") == ["commands/args/output.py"]


def test_no_signature_restates_the_default_tolerances() -> None:
    restating = [name for name, text in _sources().items() if re.search(r"=\s*_core\.DEFAULT_[RA]TOL", text)]
    assert restating == ["numerics/core.py"]  # the one place that names them
