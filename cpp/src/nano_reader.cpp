// Nano dumps (docs/reference/reference-tool.md §1.6): u64 head length, a TLV head describing inputs and
// outputs, then their bytes. All fields native (little-endian) and packed without padding.
#include <string>

#include "opdiff/ascend_enums.hpp"
#include "opdiff/dump_error.hpp"
#include "opdiff/tensor_file.hpp"

namespace opdiff {
namespace {

constexpr uint32_t kNanoMagic = 0x5A5A5A5Au;
constexpr uint32_t kTagInputs = 4, kTagOutputs = 5;
constexpr uint32_t kTagShape = 0, kTagOriginalShape = 1, kTagOriginName = 2;

// Sequential little-endian reads inside one span, failing with a message on truncation.
class Cursor {
 public:
  Cursor(ByteSpan bytes, const char* what) : bytes_(bytes), what_(what) {}
  template <typename T>
  T read() {
    auto value = load_le<T>(bytes_, position_);
    if (!value) throw ParseError(std::string("nano dump: truncated ") + what_);
    position_ += sizeof(T);
    return *value;
  }
  ByteSpan take(uint64_t length) {
    auto part = bytes_.slice(position_, length);
    if (!part) throw ParseError(std::string("nano dump: truncated ") + what_);
    position_ += length;
    return *part;
  }
  bool done() const { return position_ >= bytes_.size; }

 private:
  ByteSpan bytes_;
  const char* what_;
  uint64_t position_ = 0;
};

std::vector<uint64_t> read_dims(ByteSpan value) {
  if (value.size % 8 != 0 || value.size / 8 > kMaxRank) throw ParseError("nano dump: bad shape record");
  std::vector<uint64_t> dims(value.size / 8);
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = *load_le<uint64_t>(value, i * 8);
  return dims;
}

void read_tensor_tlvs(Cursor& record, HeaderTensor& tensor) {
  const uint32_t list_length = record.read<uint32_t>();
  Cursor list(record.take(list_length), "tensor TLV list");
  while (!list.done()) {
    const uint32_t tag = list.read<uint32_t>();
    const ByteSpan value = list.take(list.read<uint32_t>());
    if (tag == kTagShape) tensor.shape = read_dims(value);
    if (tag == kTagOriginalShape) tensor.original_shape = read_dims(value);
    if (tag == kTagOriginName) tensor.origin_name.assign(reinterpret_cast<const char*>(value.data), value.size);
  }
}

int64_t proto_data_type(int32_t nano) {
  auto number = ascend_dtype_from_nano(nano);
  if (!number) throw ParseError("nano dump: unknown data type number " + std::to_string(nano));
  return *number;
}

HeaderTensor read_input(Cursor& c) {
  HeaderTensor t;
  t.role = TensorRole::input;
  t.data_type = proto_data_type(c.read<int32_t>());
  t.format = c.read<int32_t>();
  c.read<int32_t>();  // address type
  t.address = c.read<uint64_t>();
  t.offset = c.read<uint64_t>();
  t.size = c.read<uint64_t>();
  read_tensor_tlvs(c, t);
  return t;
}

HeaderTensor read_output(Cursor& c) {
  HeaderTensor t;
  t.role = TensorRole::output;
  t.data_type = proto_data_type(c.read<int32_t>());
  t.format = c.read<int32_t>();
  c.read<int32_t>();  // address type
  c.read<int32_t>();  // original index
  c.read<int32_t>();  // original data type
  c.read<int32_t>();  // original format
  t.address = c.read<uint64_t>();
  t.offset = c.read<uint64_t>();
  t.size = c.read<uint64_t>();
  read_tensor_tlvs(c, t);
  return t;
}

void read_tensor_list(ByteSpan value, TensorRole role, std::vector<TensorEntry>& out) {
  Cursor c(value, role == TensorRole::input ? "input list" : "output list");
  const uint32_t count = c.read<uint32_t>();
  // Each record takes at least 40 bytes: a count larger than that is a lie, refused before reserving.
  if (uint64_t(count) * 40 > value.size || count + out.size() > kMaxTensors)
    throw ParseError("nano dump: tensor count " + std::to_string(count) + " exceeds the record or the limit");
  for (uint32_t i = 0; i < count; ++i) {
    TensorEntry entry;
    entry.header = role == TensorRole::input ? read_input(c) : read_output(c);
    entry.index = i;
    out.push_back(std::move(entry));
  }
}

}  // namespace

void read_nano_dump(ByteSpan file, TensorFile& out) {
  const uint64_t head_length = *load_le<uint64_t>(file, 0);
  auto head = file.slice(8, head_length);
  if (!head) throw ParseError("nano dump: head length " + std::to_string(head_length) + " runs past the end");
  Cursor c(*head, "head");
  if (c.read<uint32_t>() != kNanoMagic) throw ParseError("nano dump: bad magic");
  out.version = std::to_string(c.read<uint32_t>());
  std::vector<TensorEntry> inputs, outputs;
  while (!c.done()) {
    const uint32_t tag = c.read<uint32_t>();
    const ByteSpan value = c.take(c.read<uint32_t>());
    if (tag == kTagInputs) read_tensor_list(value, TensorRole::input, inputs);
    if (tag == kTagOutputs) read_tensor_list(value, TensorRole::output, outputs);
  }
  out.form = FileForm::nano;
  out.tensors = std::move(inputs);
  for (auto& entry : outputs) out.tensors.push_back(std::move(entry));
  uint64_t position = 8 + head_length;
  for (auto& entry : out.tensors) {
    auto payload = file.slice(position, entry.header.size);
    if (!payload) throw ParseError("nano dump: truncated payload of " + std::string(role_name(entry.header.role)) + " " + std::to_string(entry.index));
    entry.bytes = *payload;
    position += entry.header.size;
    check_entry_payload(entry, entry.bytes.size);
  }
  if (position != file.size)
    throw ParseError("nano dump: head and tensors take " + std::to_string(position) + " bytes, the file has " +
                     std::to_string(file.size));
}

}  // namespace opdiff
