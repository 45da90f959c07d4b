"""The fuzz targets of bench/fuzz: their seeds read cleanly, every saved finding replays without
one (tests/data/fuzz/TARGET/*), and a few seconds of atheris per target find nothing.

The long runs (10 minutes per target) are `python bench/fuzz/run.py TARGET --seconds 600`.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import paths
from tests.support.own_peak import with_own_peak

ROOT = paths.ROOT
RUNNER = ROOT / "bench" / "fuzz" / "run.py"
FINDINGS = paths.DATA / "fuzz"
SHORT_RUN_SECONDS = 4

sys.path.insert(0, str(ROOT / "bench" / "fuzz"))
import targets  # noqa: E402

TARGET_NAMES = sorted(targets.TARGETS)

pytestmark = pytest.mark.fuzz


@pytest.mark.parametrize("name", TARGET_NAMES)
def test_seeds_pass_their_check(name, tmp_path):
    target = targets.TARGETS[name]
    seeds = target.seeds(tmp_path)
    assert seeds, "a target without seeds fuzzes blind"
    for seed in seeds:
        target.check(seed)


def _findings():
    return sorted((p.parent.name, p) for p in FINDINGS.glob("*/*") if p.is_file() and p.parent.name in targets.TARGETS)


@pytest.mark.parametrize("name,path", _findings(), ids=lambda v: v.name if isinstance(v, Path) else v)
def test_saved_findings_replay_cleanly(name, path):
    """Each input a fuzz run once failed on (a crash, a wrong error type, a disagreement)."""
    targets.TARGETS[name].check(path.read_bytes())


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris is not installed (pip install atheris)")
@pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                    reason="under a preloaded GCC libasan atheris gets no coverage (see bench/fuzz/run.py)")
@pytest.mark.parametrize("name", TARGET_NAMES)
def test_short_fuzz_run_finds_nothing(name, tmp_path):
    # with_own_peak: libFuzzer's -rss_limit_mb reads ru_maxrss, which would start at this process's peak
    result = subprocess.run(
        with_own_peak([sys.executable, str(RUNNER), name, "--seconds", str(SHORT_RUN_SECONDS), "--artifacts",
                       str(tmp_path / "findings"), "--corpus", str(tmp_path / "corpus")]),
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    findings = sorted(p.name for p in (tmp_path / "findings").glob("*"))
    assert result.returncode == 0 and not findings, f"{findings}\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}"
    assert "Done" in result.stderr, result.stderr[-3000:]  # libFuzzer ran to its time limit
    # Coverage reached libFuzzer (without it the seeds are dropped and it mutates one empty input).
    assert "INITED cov:" in result.stderr, result.stderr[-3000:]
