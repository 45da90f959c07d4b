"""No behaviour change: what `opdiff compare` and `opdiff demo` write for the snapshot's generated
cases (tests/support/behaviour_snapshot.py) matches the committed hashes byte for byte, apart from
timestamps. A deliberate change regenerates them with
`python -m tests.support.behaviour_snapshot --update` and says so in its commit."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.behaviour_snapshot import SNAPSHOT, take_snapshot


def test_outputs_match_the_committed_snapshot(tmp_path: Path) -> None:
    committed = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    kept = tmp_path / "outputs"
    hashes = take_snapshot(tmp_path / "cases", keep=kept)
    assert sorted(hashes) == sorted(committed), "the snapshot's runs changed"
    differing = {name: sorted(kind for kind in set(hashes[name]) | set(committed[name])
                              if hashes[name].get(kind) != committed[name].get(kind))
                 for name in hashes if hashes[name] != committed[name]}
    assert not differing, f"outputs differ from the snapshot: {differing}; the normalised outputs are in {kept}"
