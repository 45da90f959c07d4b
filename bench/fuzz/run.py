"""Run one fuzz target with atheris (libFuzzer), or replay inputs through it.

    python bench/fuzz/run.py --list
    python bench/fuzz/run.py dump --seconds 600                # the long run (bench)
    python bench/fuzz/run.py npy --seconds 5                   # what the test suite does per target
    python bench/fuzz/run.py om --replay crash-1234abcd CORPUS # re-run inputs (files, folders) without atheris

The seed corpus is written by the project's writers into --corpus (default: a temporary folder);
libFuzzer adds the inputs it finds interesting there. A finding (an exception other than the
reader's own error, a crash, a hang over --timeout, RSS over --rss-limit-mb) stops the run with
exit status 1 and leaves the input as `crash-*`, `timeout-*` or `oom-*` in --artifacts; each one
belongs in tests/data/fuzz/TARGET/ as a regression input (tests/reliability/test_fuzz_targets.py replays them).

Coverage feedback comes from atheris' instrumentation of the Python code loaded (opdiff's readers
and graph decoding among it). The C++ core is not instrumented for coverage (that needs clang's
-fsanitize=fuzzer-no-link; the project builds with GCC): the core is reached by mutation alone.
Fuzzing under the GCC sanitizer build is blind (a preloaded libasan brings its own coverage
callbacks, which take atheris' counters away from libFuzzer), so memory errors in the core are
looked for by replaying a finished run's corpus there:

    tools/sanitize_tests.sh --replay dump CORPUS_DIR
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
# Coverage of these steers the mutations: opdiff's Python readers, and the Python parsers the
# checks compare against or go through (np.load's header, zip archives of OM2, JSON), and the
# checks themselves (the header target calls only C code: its own branches are all it gets);
# protobuf's text format parser, pure Python, for the prototxt mutations of the caffe target.
COVERED_MODULES = ("opdiff", "numpy.lib", "ast", "zipfile", "json", "targets", "fuzz_dumps", "google.protobuf.text_format")


def _load_targets(instrument: bool):
    sys.path.insert(0, str(HERE))
    import targets

    if instrument:
        instrument_modules(COVERED_MODULES)
    return targets


def _functions_of(module: types.ModuleType) -> Iterator[types.FunctionType]:
    """The Python functions defined in `module`, methods and properties of its classes included."""
    for value in vars(module).values():
        members = vars(value).values() if inspect.isclass(value) else [value]
        for member in members:
            if isinstance(member, property):
                candidates = [member.fget, member.fset]
            else:
                candidates = [getattr(member, "__func__", member)]  # staticmethod, classmethod
            for function in candidates:
                if inspect.isfunction(function) and function.__module__ == module.__name__:
                    yield function


def instrument_modules(prefixes: Tuple[str, ...]) -> int:
    """Instruments every function of the loaded modules named by `prefixes`; returns how many.

    atheris.instrument_imports(include=["opdiff"]) rewrites opdiff's modules but registers no
    coverage here (atheris 3.0): libFuzzer then sees no features and reduces the seed corpus to
    one empty input. instrument_all() works but takes a minute (every loaded function); the
    modules that parse the inputs take a few seconds.
    """
    import atheris

    count = 0
    for name, module in list(sys.modules.items()):
        if module is not None and any(name == p or name.startswith(p + ".") for p in prefixes):
            for function in _functions_of(module):
                atheris.instrument_func(function)
                count += 1
    return count


def replay(target_name: str, paths: List[Path]) -> int:
    """Runs each input (a file, or every file of a folder) once; raises on the first finding."""
    targets = _load_targets(instrument=False)
    target = targets.TARGETS[target_name]
    files = [f for p in paths for f in (sorted(p.iterdir()) if p.is_dir() else [p]) if f.is_file()]
    for path in files:
        target.check(path.read_bytes())
    print(f"{target_name}: {len(files)} inputs replayed, no finding")
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
    parser.add_argument("target", nargs="?", help="the target (--list lists them)")
    parser.add_argument("--list", action="store_true", help="list the targets")
    parser.add_argument("--seconds", type=int, default=60, help="how long to fuzz (default 60)")
    parser.add_argument("--corpus", type=Path, help="corpus folder, kept between runs (default: temporary)")
    parser.add_argument("--artifacts", type=Path, default=Path.cwd() / "fuzz-artifacts", help="where findings are saved")
    parser.add_argument("--timeout", type=int, default=20, help="seconds one input may take before it is a hang")
    parser.add_argument("--rss-limit-mb", type=int, default=2048, help="RSS beyond this is a finding (hostile sizes)")
    parser.add_argument("--max-len", type=int, default=1 << 16, help="largest input libFuzzer makes")
    parser.add_argument("--seed", type=int, default=1, help="libFuzzer's random seed")
    parser.add_argument("--replay", type=Path, nargs="+", metavar="FILE", help="run these inputs (files or folders) once, without atheris")
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
