#!/usr/bin/env bash
# Runs the test suite (or a fuzz target) against a core built with AddressSanitizer and
# UndefinedBehaviorSanitizer (CMake option OPDIFF_SANITIZE), in its own venv and build folder so
# the normal install is untouched.
#
#   tools/sanitize_tests.sh                      # build, then python -m pytest tests
#   tools/sanitize_tests.sh tests/dumps          # build, then only these (any pytest arguments)
#   tools/sanitize_tests.sh --replay dump DIR    # build, then replay a fuzz corpus (bench/fuzz/run.py)
#
# Environment: OPDIFF_SANITIZE_VENV (default build/asan-venv), CXX (the compiler whose libasan to
# preload; default c++), OPDIFF_SANITIZE_SKIP_BUILD=1 to reuse the last build.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${OPDIFF_SANITIZE_VENV:-$ROOT/build/asan-venv}"
BUILD_DIR="$ROOT/build/asan"
PYTHON="${PYTHON:-python3}"

started=$(date +%s)
if [[ "${OPDIFF_SANITIZE_SKIP_BUILD:-0}" != 1 ]]; then
  [[ -x "$VENV/bin/python" ]] || "$PYTHON" -m venv --system-site-packages "$VENV"
  isolation=()
  # Without network, reuse the build backend already installed (it is in CI and dev setups).
  if "$VENV/bin/python" -c "import scikit_build_core, pybind11" 2>/dev/null; then isolation=(--no-build-isolation); fi
  "$VENV/bin/pip" install -q "${isolation[@]}" -Cbuild-dir="$BUILD_DIR" -Ccmake.define.OPDIFF_SANITIZE=ON "$ROOT[test]"
fi
built=$(date +%s)

# Python itself is not instrumented, so the ASan runtime must be loaded before anything else;
# libstdc++ too, or ASan's __cxa_throw interceptor finds no real one (python does not link it)
# and the first C++ exception aborts.
libasan="$("${CXX:-c++}" -print-file-name=libasan.so)"
libstdcxx="$("${CXX:-c++}" -print-file-name=libstdc++.so)"
if [[ ! -e "$libasan" || ! -e "$libstdcxx" ]]; then
  echo "sanitize_tests: no libasan.so or libstdc++.so for ${CXX:-c++} (install the compiler's ASan runtime)" >&2
  exit 2
fi
export LD_PRELOAD="$libasan $libstdcxx"
# detect_leaks=0: the interpreter (uninstrumented) and pybind11 keep objects alive until exit on
# purpose; LeakSanitizer would report those, burying anything real. Errors stop the process.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

cd "$ROOT"
status=0
if [[ "${1:-}" == "--replay" ]]; then
  # Not fuzzing itself: under a preloaded GCC libasan atheris gets no coverage (see bench/fuzz/run.py).
  "$VENV/bin/python" bench/fuzz/run.py "${2:?target}" --replay "${@:3}" || status=$?
else
  [[ $# -gt 0 ]] || set -- tests
  # -p no:cacheprovider: the sanitizer run leaves the normal run's cache alone.
  "$VENV/bin/python" -m pytest -p no:cacheprovider "$@" || status=$?
fi
finished=$(date +%s)
echo "sanitize_tests: build $((built - started)) s, run $((finished - built)) s, exit status $status"
exit $status
