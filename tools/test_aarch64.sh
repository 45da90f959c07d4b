#!/usr/bin/env bash
# Builds the package for aarch64 and runs its kernel, dtype, decode and layout tests there (pytest
# marker `kernels`), under the scalar and the NEON path (the kernel tests take each path by
# parameter; the others run once with OPDIFF_SIMD=scalar, then with NEON active): natively on an
# aarch64 host, elsewhere cross-built with Debian's gcc/g++-aarch64-linux-gnu and run by
# qemu-aarch64 (user mode) on an aarch64 CPython 3.11 taken from Debian's arm64 packages (apt-get
# download + dpkg -x into a sysroot; installing python3:arm64 would replace the host's interpreter),
# with numpy, ml_dtypes, pytest and the rest the tests import as manylinux_2_28_aarch64 wheels. It stands in for cibuildwheel's
# aarch64 build, which needs a container engine.
#
#   tools/test_aarch64.sh                 # everything it needs is fetched once into the cache
#
# Environment: OPDIFF_AARCH64_CACHE (default build/aarch64: sysroot, wheels, build folder; reused,
# so a second run only rebuilds what changed), PYTHON (host interpreter for pip; default python3),
# OPDIFF_JOBS (parallel compile jobs, default 2).
# Fails when a step fails, when the emulated process does not run the NEON path, when fewer than
# 50 tests pass, when any fails, or when no NEON-path kernel test is among the passes. Its last line
# is pytest's summary.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${OPDIFF_AARCH64_CACHE:-$ROOT/build/aarch64}"
PYTHON="${PYTHON:-python3}"
JOBS="${OPDIFF_JOBS:-2}"
SYSROOT="$CACHE/sysroot"
SITE="$CACHE/site"       # aarch64 wheels
STAGE="$CACHE/stage"     # the package as installed: python/opdiff plus the cross-built _core
BUILD="$CACHE/cmake"
started=$(date +%s)
mkdir -p "$CACHE"
say() { echo "test_aarch64: $*"; }

native=0
[[ "$(uname -m)" == aarch64 ]] && native=1

# 1. Tools: the cross compiler and qemu from Debian (skipped when present), CMake 3.18+.
need=()
if (( !native )); then
  command -v aarch64-linux-gnu-g++ >/dev/null || need+=(g++-aarch64-linux-gnu)
  command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
fi
command -v cmake >/dev/null || need+=(cmake)
command -v file >/dev/null || need+=(file)
if (( ${#need[@]} )); then
  say "installing ${need[*]}"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"; } >/dev/null
fi

# 2. The aarch64 CPython (interpreter, standard library, headers) and the shared libraries it and
# the module load. apt runs with its own state folder: the host's package lists and dpkg
# configuration are not touched (no `dpkg --add-architecture`).
PACKAGES=(python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libpython3.11-dev libc6 libgcc-s1 libstdc++6
  libexpat1 zlib1g libffi8 libssl3 libbz2-1.0 liblzma5 libsqlite3-0 libuuid1 libcrypt1 libncursesw6 libtinfo6)
if (( !native )) && [[ ! -f "$SYSROOT/.complete" ]]; then
  say "fetching Debian arm64 packages into $SYSROOT"
  apt_dir="$CACHE/apt"
  mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
  touch "$apt_dir/state/status"
  apt_options=(-q -o "Dir::State=$apt_dir/state" -o "Dir::State::status=$apt_dir/state/status" -o "Dir::Cache=$apt_dir/cache"
    -o APT::Architecture=arm64 -o APT::Architectures::=arm64 -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
  apt-get "${apt_options[@]}" update >/dev/null
  (cd "$apt_dir/debs" && apt-get "${apt_options[@]}" download "${PACKAGES[@]}" >/dev/null)
  rm -rf "$SYSROOT"
  for deb in "$apt_dir"/debs/*.deb; do dpkg -x "$deb" "$SYSROOT"; done
  touch "$SYSROOT/.complete"
fi
if (( native )); then
  # Natively, the host's interpreter runs everything; the wheels and the module are for its version.
  PY=("$(command -v "$PYTHON")")
  INCLUDE="$("${PY[@]}" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
  PYVER="$("${PY[@]}" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
  SOABI="$("${PY[@]}" -c 'import sysconfig; print(sysconfig.get_config_var("SOABI"))')"
else
  PY=(env PYTHONHOME="$SYSROOT/usr" qemu-aarch64 -L "$SYSROOT" "$SYSROOT/usr/bin/python3.11")
  INCLUDE="$SYSROOT/usr/include/python3.11"
  PYVER=3.11
  SOABI=cpython-311-aarch64-linux-gnu
fi

# 3. Wheels for aarch64 CPython 3.11: what the package and the selected tests import.
WHEELS=(numpy ml_dtypes "protobuf>=7.35.1" rich pytest hypothesis jsonschema)  # jsonschema: collected modules import it
if [[ ! -f "$SITE/.complete" ]]; then
  say "fetching aarch64 wheels into $SITE"
  rm -rf "$SITE"
  # (pip then checks the host's own packages against these and may complain: not ours to fix)
  "$PYTHON" -m pip install -q --disable-pip-version-check --target "$SITE" --platform manylinux_2_28_aarch64 \
    --python-version "$PYVER" --only-binary=:all: "${WHEELS[@]}" 2>&1 | grep -v -e "^WARNING: Location" \
    -e "Running pip as the 'root'" -e "dependency resolver does not" -e "which is incompatible" || true
  [[ -d "$SITE/numpy" && -d "$SITE/pytest" ]] || { say "the wheel download failed"; exit 1; }
  touch "$SITE/.complete"
fi
# pybind11's headers and CMake files (pure Python, host side).
if [[ ! -d "$CACHE/host/pybind11" ]]; then
  "$PYTHON" -m pip install -q --disable-pip-version-check --target "$CACHE/host" "pybind11>=2.12" 2>&1 \
    | grep -v -e "^WARNING: Location" -e "Running pip as the 'root'" || true
fi
PYBIND11_DIR="$(PYTHONPATH="$CACHE/host" "$PYTHON" -m pybind11 --cmakedir)"

# 4. Configure and build with the package's own CMakeLists.txt (Release, as the wheel).
VERSION="$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$ROOT/python/opdiff/__init__.py")"
cmake_args=(-S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DSKBUILD_PROJECT_NAME=opdiff -DSKBUILD_PROJECT_VERSION="$VERSION"
  -Dpybind11_DIR="$PYBIND11_DIR" -DPython_INCLUDE_DIR="$INCLUDE" -DPython_EXECUTABLE="$(command -v "$PYTHON")")
if (( !native )); then
  cat >"$CACHE/toolchain.cmake" <<EOF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Debian's pyconfig.h includes <aarch64-linux-gnu/python3.11/pyconfig.h> from the sysroot.
set(CMAKE_CXX_FLAGS_INIT "-isystem $SYSROOT/usr/include")
EOF
  # pybind11 names the module after the host interpreter's SOABI unless told the target's.
  cmake_args+=(--toolchain "$CACHE/toolchain.cmake" -DPYTHON_MODULE_EXTENSION=".$SOABI.so")
fi
command -v ninja >/dev/null && [[ ! -f "$BUILD/CMakeCache.txt" || -f "$BUILD/build.ninja" ]] && cmake_args+=(-G Ninja)
cmake "${cmake_args[@]}" >"$CACHE/configure.log" 2>&1 || { cat "$CACHE/configure.log" >&2; say "configure failed"; exit 1; }
cmake --build "$BUILD" --parallel "$JOBS" >"$CACHE/build.log" 2>&1 || { tail -50 "$CACHE/build.log" >&2; say "build failed"; exit 1; }
module="$BUILD/_core.$SOABI.so"
[[ -f "$module" ]] || { say "no _core.$SOABI.so in $BUILD"; exit 1; }
file -b "$module" | grep -q 'ARM aarch64' || { say "$module is not an aarch64 module: $(file -b "$module")"; exit 1; }
rm -rf "$STAGE" && mkdir -p "$STAGE"
cp -r "$ROOT/python/opdiff" "$STAGE/opdiff"
find "$STAGE/opdiff" -name '_core*.so' -delete
cp "$module" "$STAGE/opdiff/"
say "built $(basename "$module") ($(file -b "$module" | cut -d, -f1-2)) in $(( $(date +%s) - started )) s"

# 5. The emulated process must pick NEON by itself and when asked; an unknown OPDIFF_SIMD value only
# warns, so the active path is asserted, not printed. (The tests need no path here: they import their
# helpers as the package tests.support, and pytest puts $ROOT on sys.path for that.)
export PYTHONPATH="$STAGE:$SITE" PYTHONDONTWRITEBYTECODE=1
check='import opdiff; info = opdiff.simd_info()
assert info["active"] == "neon", info
assert info["supported"] == ["neon", "scalar"], info
print("simd_info:", info)'
env -u OPDIFF_SIMD "${PY[@]}" -c "$check"
OPDIFF_SIMD=neon "${PY[@]}" -c "$check; assert info['forced_by'] == 'neon', info"

# 6. The marked tests. Kernel tests run once per path the CPU supports (their ids name scalar or
# neon); the others (layouts, decoding) use the active path, so they run twice: first with
# OPDIFF_SIMD=scalar (quietly: only a failure is shown), then, with everything, on NEON.
say "the marked tests that take the active path, under OPDIFF_SIMD=scalar"
if ! (cd "$ROOT" && OPDIFF_SIMD=scalar "${PY[@]}" -m pytest -m kernels -k "not neon and not scalar" -p no:cacheprovider -q \
  "$ROOT/tests" >"$CACHE/pytest-scalar.log" 2>&1); then
  cat "$CACHE/pytest-scalar.log" >&2
  say "FAILED under OPDIFF_SIMD=scalar" >&2
  exit 1
fi
say "$(tail -1 "$CACHE/pytest-scalar.log" | tr -d '=' | sed 's/^ *//')"
say "every marked test, NEON active"
log="$CACHE/pytest.log"
set +e
(cd "$ROOT" && env -u OPDIFF_SIMD "${PY[@]}" -m pytest -m kernels -p no:cacheprovider -v -o console_output_style=classic --durations=8 \
  "$ROOT/tests" 2>&1) | tee "$log"
status=${PIPESTATUS[0]}
set -e
passed=$(sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p' "$log" | tail -1)
neon=$(grep -c '\[.*neon.*\] PASSED' "$log" || true)
if (( status != 0 )) || (( ${passed:-0} < 50 )) || (( neon == 0 )); then
  say "FAILED: pytest exit $status, ${passed:-0} passed (at least 50 needed), $neon neon-path tests passed" >&2
  exit 1
fi
