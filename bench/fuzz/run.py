"""Run one fuzz target with atheris (libFuzzer), or replay inputs through it.

    python bench/fuzz/run.py --list
    python bench/fuzz/run.py dump --seconds 600                # the long run (bench)
    python bench/fuzz/run.py npy --seconds 5                   # what the test suite does per target
    python bench/fuzz/run.py om --replay crash-1234abcd        # re-run saved inputs without atheris

The seed corpus is written by the project's writers into --corpus (default: a temporary folder);
libFuzzer adds the inputs it finds interesting there. A finding (an exception other than the
reader's own error, a crash, a hang over --timeout, RSS over --rss-limit-mb) stops the run with
exit status 1 and leaves the input as `crash-*`, `timeout-*` or `oom-*` in --artifacts; each one
belongs in tests/data/fuzz/TARGET/ as a regression input (tests/test_fuzz_targets.py replays them).

Coverage feedback comes from atheris' instrumentation of the opdiff Python package. The C++ core
is not instrumented for coverage (that needs clang's -fsanitize=fuzzer-no-link; the project builds
with GCC): the core is reached by mutation alone. For memory errors in the core, run this under
the sanitizer build (tools/sanitize_tests.sh --fuzz TARGET SECONDS).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional

HERE = Path(__file__).resolve().parent


def _load_targets(instrument: bool):
    sys.path.insert(0, str(HERE))
    if not instrument:
        import targets
        return targets
    import atheris

    import targets

    # Coverage of the Python code loaded (opdiff's readers and graph decoding, numpy, protobuf)
    # steers the mutations. instrument_imports(include=["opdiff"]) instruments opdiff's modules
    # but registers no coverage here (atheris 3.0): libFuzzer then sees no features and reduces
    # the seed corpus to one empty input. instrument_all() does register them.
    atheris.instrument_all()
    return targets


def replay(target_name: str, files: List[Path]) -> int:
    targets = _load_targets(instrument=False)
    target = targets.TARGETS[target_name]
    for path in files:
        target.check(path.read_bytes())
        print(f"{path}: no finding")
    return 0


def fuzz(target_name: str, seconds: int, corpus: Optional[Path], artifacts: Path, timeout: int, rss_limit_mb: int,
         max_len: int, seed: int) -> int:
    import atheris

    targets = _load_targets(instrument=True)
    target = targets.TARGETS[target_name]
    scratch = Path(tempfile.mkdtemp(prefix=f"opdiff-fuzz-{target_name}-"))
    corpus = corpus or scratch / "corpus"
    targets.seed_files(target, corpus)
    artifacts.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    print(f"fuzzing {target_name} ({target.description}) for {seconds} s; corpus {corpus}", flush=True)
    args = [
        sys.argv[0],
        f"-max_total_time={seconds}",
        f"-timeout={timeout}",
        f"-rss_limit_mb={rss_limit_mb}",
        f"-max_len={max_len}",
        f"-seed={seed}",
        f"-artifact_prefix={artifacts}{os.sep}",
        "-print_final_stats=1",
        str(corpus),
    ]
    atheris.Setup(args, target.check)
    try:
        atheris.Fuzz()  # exits the process: 0 when time is up, non-zero on a finding
    finally:
        print(f"stopped after {time.monotonic() - started:.0f} s", flush=True)
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", nargs="?", help="header, dump, npy, om or layout")
    parser.add_argument("--list", action="store_true", help="list the targets")
    parser.add_argument("--seconds", type=int, default=60, help="how long to fuzz (default 60)")
    parser.add_argument("--corpus", type=Path, help="corpus folder, kept between runs (default: temporary)")
    parser.add_argument("--artifacts", type=Path, default=Path.cwd() / "fuzz-artifacts", help="where findings are saved")
    parser.add_argument("--timeout", type=int, default=20, help="seconds one input may take before it is a hang")
    parser.add_argument("--rss-limit-mb", type=int, default=2048, help="RSS beyond this is a finding (hostile sizes)")
    parser.add_argument("--max-len", type=int, default=1 << 16, help="largest input libFuzzer makes")
    parser.add_argument("--seed", type=int, default=1, help="libFuzzer's random seed")
    parser.add_argument("--replay", type=Path, nargs="+", metavar="FILE", help="run these inputs once, without atheris")
    args = parser.parse_args(argv)
    if args.list or not args.target:
        targets = _load_targets(instrument=False)
        for name, target in targets.TARGETS.items():
            print(f"{name:8} {target.description}")
        return 0
    if args.replay:
        return replay(args.target, args.replay)
    return fuzz(args.target, args.seconds, args.corpus, args.artifacts, args.timeout, args.rss_limit_mb, args.max_len, args.seed)


if __name__ == "__main__":
    sys.exit(main())
