"""The package's layers hold: `lint-imports` with the contracts in pyproject.toml (layers top to
bottom, no import cycle anywhere, and the forbidden imports), over every import statement,
those inside functions included. docs/architecture.md explains the layers."""

from __future__ import annotations

import pytest

from tests.support.paths import ROOT

importlinter_cli = pytest.importorskip("importlinter.cli")

PYPROJECT = ROOT / "pyproject.toml"


def test_every_import_linter_contract_is_kept(capsys: pytest.CaptureFixture[str]) -> None:
    code = importlinter_cli.lint_imports(config_filename=str(PYPROJECT), no_cache=True)
    output = capsys.readouterr().out
    assert code == 0, output
    assert "broken" not in output.split("Contracts:")[-1].replace("0 broken", ""), output
