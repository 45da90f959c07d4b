#!/usr/bin/env bash
# Builds the libascend_dump_parser.so stand-in (dump_proto_to_json.cpp) over the system protobuf:
#   apt-get install libprotobuf-dev protobuf-compiler
#   bench/reference_tool/build.sh [OUT_DIR]      (default: bench/reference_tool/build)
# msaccucmp finds the library through LD_LIBRARY_PATH=OUT_DIR.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
proto_dir="$here/../../python/opdiff/dumps/proto"
out="${1:-$here/build}"
mkdir -p "$out/gen"
# The reference only needs the field names; the package must be toolkit.dumpdata, as CANN's.
grep -q '^package toolkit.dumpdata;' "$proto_dir/dump_data.proto"
protoc --proto_path="$proto_dir" --cpp_out="$out/gen" "$proto_dir/dump_data.proto"
g++ -std=c++17 -O2 -fPIC -shared -fvisibility=hidden -I"$out/gen" \
    "$here/dump_proto_to_json.cpp" "$out/gen/dump_data.pb.cc" \
    -o "$out/libascend_dump_parser.so" $(pkg-config --cflags --libs protobuf 2>/dev/null || echo -lprotobuf) -lpthread
echo "$out/libascend_dump_parser.so"
