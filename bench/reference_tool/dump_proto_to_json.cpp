// Stand-in for CANN's libascend_dump_parser.so, so that msaccucmp (mindstudio-probe) can read NPU
// dumps in the cross-check and benchmarks. Written from the contract in
// docs/reference/reference-tool.md §0; bench tooling only, never used by opdiff itself.
//
// ParseDumpProtoToJson gets a whole dump file: a native u64 header length, then that many bytes of
// a serialised toolkit.dumpdata.DumpData. It writes the header as proto3 JSON (field names as in the
// .proto, enums as integers, default-valued scalars printed) to json_path and returns 0.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include <google/protobuf/util/json_util.h>

#include "dump_data.pb.h"

namespace {

enum ParseStatus : int32_t { kOk = 0, kBadArgument = 1, kTruncated = 2, kBadHeader = 3, kJsonFailed = 4, kWriteFailed = 5 };

}  // namespace

extern "C" __attribute__((visibility("default"))) int32_t ParseDumpProtoToJson(const char* whole_file, size_t len,
                                                                                const char* json_path) {
  if (whole_file == nullptr || json_path == nullptr) return kBadArgument;
  uint64_t header_len = 0;
  if (len < sizeof(header_len)) return kTruncated;
  std::memcpy(&header_len, whole_file, sizeof(header_len));  // native byte order, as the device writes it
  if (header_len > len - sizeof(header_len)) return kTruncated;

  toolkit::dumpdata::DumpData header;
  if (!header.ParseFromArray(whole_file + sizeof(header_len), static_cast<int>(header_len))) return kBadHeader;

  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_enums_as_ints = true;
  options.always_print_primitive_fields = true;
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(header, &json, options).ok()) return kJsonFailed;

  std::ofstream out(json_path, std::ios::binary | std::ios::trunc);
  out.write(json.data(), static_cast<std::streamsize>(json.size()));
  return out.good() ? kOk : kWriteFailed;
}
