"""Error messages a person reads: one line on stderr, never wrapped mid-sentence at any terminal
width, the exit code the docs give; an unexpected exception is one line too (exit 1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from opdiff.cli import report_internal_error
from tests.support.child_env import child_env

LONG = "a_folder_whose_name_is_long_enough_to_pass_the_width_of_a_narrow_terminal_by_itself"


@pytest.mark.parametrize("columns", ["60", "200"])
@pytest.mark.parametrize("command", [
    ["compare", "-m", "{missing}", "-g", "{missing}"],
    ["overflow", "{file}"],
    ["info", "{missing}"],
    ["graph", "{file}"],
    ["file-compare", "-m", "{file}", "-g", "{file}"],
], ids=lambda c: c[0] if isinstance(c, list) else c)
def test_errors_are_one_line_whatever_the_width(tmp_path: Path, command: list, columns: str) -> None:
    not_a_folder = tmp_path / f"{LONG}.txt"
    not_a_folder.write_text("not a dump\n")
    argv = [part.format(missing=tmp_path / LONG / "nowhere", file=not_a_folder) for part in command]
    result = subprocess.run([sys.executable, "-m", "opdiff", *argv], capture_output=True, text=True, timeout=120,
                            env=child_env(COLUMNS=columns, PATH="/usr/bin:/bin"))
    assert result.returncode == (11 if command[0] == "info" else 2), (result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "error: " in lines[0], result.stderr
    assert LONG in lines[0]  # the file's name whole, on the error's own line


@pytest.mark.cli_output
def test_an_internal_error_is_one_line_naming_where_it_happened(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        {}["missing key"]
    except KeyError as error:
        code = report_internal_error(error)
    assert code == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "internal error, a bug in opdiff: KeyError: 'missing key' at test_cli_errors.py:" in err
