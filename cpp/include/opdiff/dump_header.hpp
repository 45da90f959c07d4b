// The DumpData header of an Ascend dump (schema: python/opdiff/dumps/proto/dump_data.proto),
// decoded by the bounds-checked wire reader. Numbers are kept as stored; meaning is given elsewhere.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "opdiff/byte_span.hpp"

namespace opdiff {

// Which list of the header a tensor comes from.
enum class TensorRole : uint8_t { input, output, buffer, workspace };

const char* role_name(TensorRole role);

// One entry of input[], output[], buffer[] or space[]; fields a role lacks stay at their defaults.
struct HeaderTensor {
  TensorRole role = TensorRole::output;
  int64_t data_type = 0;  // Ascend DT_* number (buffers and workspaces: raw bytes)
  int64_t format = 0;     // Ascend FORMAT_* number (proto3 default 0 = NCHW; ND for buffers, workspaces)
  std::vector<uint64_t> shape;
  std::vector<uint64_t> original_shape;
  uint64_t size = 0;
  int64_t sub_format = 0;
  uint64_t address = 0;
  uint64_t offset = 0;
  int64_t kind = 0;       // buffer_type / workspace type
  std::string origin_name;  // original_op.name (outputs), origin name (nano outputs)
  // original_op.format (outputs): the origin format the device wrote, when the dump has an original_op
  // (proto3 leaves 0, NCHW, off the wire: an original_op without the field says NCHW).
  std::optional<int64_t> origin_format;
  ByteSpan data;          // the `data` field (v1 files carry the tensor bytes here)
  bool has_data = false;
};

struct DumpHeader {
  std::string version;
  uint64_t dump_time = 0;
  std::string op_name;
  std::vector<std::pair<std::string, std::string>> attrs;
  std::vector<HeaderTensor> inputs, outputs, buffers, workspaces;
};

// Decodes a serialised DumpData. Throws ParseError on anything malformed; unknown fields are
// skipped as protobuf requires. Shapes are limited to kMaxRank dims, the file to kMaxTensors tensors.
DumpHeader decode_dump_header(ByteSpan message);

inline constexpr uint64_t kMaxRank = 64;
// Tensors one file may list (all roles together). A header entry can be two bytes while its
// decoded form takes hundreds, so without a cap a 1 MB header costs ~200 MB; real ops list at
// most a few thousand.
inline constexpr uint64_t kMaxTensors = 1 << 16;

}  // namespace opdiff
