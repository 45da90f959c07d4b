"""docs/cli.md lists every option of every sub-command, in that command's section: the parser is
built from opdiff.cli, so a new flag without documentation fails here."""

from __future__ import annotations

import argparse
import re
from typing import Dict, List

from opdiff.cli import build_parser
from tests.support.doc_blocks import ROOT

CLI_PAGE = ROOT / "docs" / "cli.md"


def sub_parsers() -> Dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    commands: Dict[str, argparse.ArgumentParser] = {}
    for name, sub in action.choices.items():  # an alias maps to its command's parser: keep the first name
        if all(sub is not seen for seen in commands.values()):
            commands[name] = sub
    return commands


def sections() -> Dict[str, str]:
    """The text of each `## opdiff NAME` section of the CLI page, by NAME."""
    parts = re.split(r"^## opdiff (\S+)\s*$", CLI_PAGE.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def table_text(section: str) -> str:
    """The first cells of the section's table rows: where an option counts as listed (a mention in
    a description does not)."""
    return "\n".join(re.split(r"(?<!\\)\|", line)[1] for line in section.splitlines() if line.startswith("|"))


def listed(names: List[str], text: str) -> List[str]:
    """The names not written as `NAME` (in backticks, followed by a space, a backtick or an escaped |)."""
    return [name for name in names if not re.search("`" + re.escape(name) + r"(?=[ `\\])", text)]


def test_every_sub_command_has_a_section() -> None:
    assert set(sub_parsers()) == set(sections())


def test_every_option_of_every_sub_command_is_listed() -> None:
    pages = sections()
    missing = {}
    for name, parser in sub_parsers().items():
        names = [option for action in parser._actions if not isinstance(action, argparse._HelpAction)
                 for option in (action.option_strings or [action.metavar or action.dest])]
        absent = listed(names, table_text(pages[name]))
        if absent:
            missing[name] = absent
    assert not missing, f"options missing from docs/cli.md: {missing}"


def test_global_options_are_listed() -> None:
    top = table_text(CLI_PAGE.read_text(encoding="utf-8").split("## opdiff ", 1)[0])
    options = [o for action in build_parser()._actions for o in action.option_strings]
    assert listed(options, top) == []


def test_the_check_notices_a_missing_option() -> None:
    assert listed(["--threads", "-o"], table_text("| `--threads THREADS` | x |\n| `-out DIR` | y |")) == ["-o"]
    assert listed(["--fail"], table_text("| `--top N` | see `--fail` |")) == ["--fail"]
