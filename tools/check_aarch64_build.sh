#!/usr/bin/env bash
# Cross-compiles the project for aarch64 Linux with zig's clang (pip install ziglang): a full CMake
# configure and build of every target (opdiff_core and the _core module) as CMake sets them up on a
# non-x86 host, so the x86 kernel files must drop out and the scalar path must compile alone.
# Nothing is run (no aarch64 machine here); this proves the aarch64 wheel of cibuildwheel compiles.
#
#   tools/check_aarch64_build.sh            # build folder build/aarch64-check (reused: incremental)
#
# Environment: PYTHON (default python3; must have ziglang and pybind11), OPDIFF_AARCH64_BUILD (folder).
# The module compiles against the host Python's headers: a compile check, not a loadable module.
# Fails when any source fails to compile, when an x86 kernel file is built, or when an object is not aarch64.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
BUILD="${OPDIFF_AARCH64_BUILD:-$ROOT/build/aarch64-check}"
started=$(date +%s)

"$PYTHON" -c "import ziglang, pybind11" 2>/dev/null \
  || { echo "check_aarch64_build: needs ziglang and pybind11 in $PYTHON (pip install ziglang pybind11)" >&2; exit 2; }
mkdir -p "$BUILD/bin"
# CMake wants one executable per tool: small wrappers around `python -m ziglang`.
py="$(command -v "$PYTHON")"
for tool in c++ ar ranlib; do
  target=""
  [[ $tool == c++ ]] && target="-target aarch64-linux-gnu"
  printf '#!/bin/sh\nexec "%s" -m ziglang %s %s "$@"\n' "$py" "$tool" "$target" >"$BUILD/bin/zig-$tool"
  chmod +x "$BUILD/bin/zig-$tool"
done
cat >"$BUILD/toolchain.cmake" <<EOF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_CXX_COMPILER "$BUILD/bin/zig-c++")
set(CMAKE_AR "$BUILD/bin/zig-ar")
set(CMAKE_RANLIB "$BUILD/bin/zig-ranlib")
EOF

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S "$ROOT" -B "$BUILD/cmake" "${generator[@]}" --toolchain "$BUILD/toolchain.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DSKBUILD_PROJECT_NAME=opdiff \
  -DSKBUILD_PROJECT_VERSION="$("$PYTHON" -c "import re,sys; print(re.search(r'__version__ = \"(.+?)\"', open(sys.argv[1]).read()).group(1))" "$ROOT/python/opdiff/__init__.py")" \
  -DPython_EXECUTABLE="$py" -Dpybind11_DIR="$("$PYTHON" -m pybind11 --cmakedir)" >"$BUILD/configure.log" 2>&1 \
  || { cat "$BUILD/configure.log" >&2; echo "check_aarch64_build: configure failed" >&2; exit 1; }
cmake --build "$BUILD/cmake" --parallel "${OPDIFF_JOBS:-2}"

objects=$(find "$BUILD/cmake" -name '*.cpp.o' | sort)
status=0
if grep -q 'kernel_avx' <<<"$objects"; then
  echo "check_aarch64_build: an x86 kernel file was compiled for aarch64 (CMakeLists.txt must exclude it)" >&2
  status=1
fi
count=0
while read -r obj; do
  count=$((count + 1))
  # pybind11 compiles the module's sources for link-time optimisation (LLVM bitcode); the link
  # into an aarch64 module below is what turns them into aarch64 code.
  if ! file "$obj" | grep -qE 'ARM aarch64|LLVM IR bitcode'; then
    echo "check_aarch64_build: $obj is neither an aarch64 object nor LTO bitcode" >&2
    status=1
  fi
done <<<"$objects"
module=$(find "$BUILD/cmake" -maxdepth 1 -name '_core*.so' | head -1)
[[ -n "$module" ]] && file "$module" | grep -q 'ARM aarch64' || { echo "check_aarch64_build: no aarch64 _core module" >&2; status=1; }
echo "check_aarch64_build: $count objects and $(basename "${module:-none}") for aarch64 in $(( $(date +%s) - started )) s: $([[ $status == 0 ]] && echo ok || echo FAILED)"
exit $status
