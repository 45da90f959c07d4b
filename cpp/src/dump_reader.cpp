// The two protobuf-based dump forms: v2 (u64 header length, header, raw tensor bytes) and v1
// (the whole file is a DumpData whose `data` fields hold the tensor bytes).
#include <string>

#include "opdiff/dump_error.hpp"
#include "opdiff/tensor_file.hpp"

namespace opdiff {
namespace {

void take_header(DumpHeader&& header, TensorFile& out) {
  out.version = std::move(header.version);
  out.op_name = std::move(header.op_name);
  out.dump_time = header.dump_time;
  out.attrs = std::move(header.attrs);
  out.tensors.clear();
  for (auto* list : {&header.inputs, &header.outputs, &header.buffers, &header.workspaces}) {
    uint32_t index = 0;
    for (auto& tensor : *list) {
      TensorEntry entry;
      entry.header = std::move(tensor);
      entry.index = index++;
      // DT_UNDEFINED with bytes: the reference reads it as `size` raw int8 values.
      if (entry.header.data_type == 0 && entry.header.size > 0) entry.header.shape = {entry.header.size};
      out.tensors.push_back(std::move(entry));
    }
  }
}

std::string where(const TensorEntry& entry) {
  return std::string(role_name(entry.header.role)) + " " + std::to_string(entry.index);
}

}  // namespace

void read_dump_v2(ByteSpan file, TensorFile& out) {
  if (file.size < 8)
    throw FramingError("file of " + std::to_string(file.size) + " bytes is shorter than the 8-byte header length");
  const uint64_t header_length = *load_le<uint64_t>(file, 0);
  auto header_bytes = file.slice(8, header_length);
  if (!header_bytes)
    throw FramingError("header length " + std::to_string(header_length) + " runs past the end of the file (" +
                       std::to_string(file.size) + " bytes)");
  try {
    take_header(decode_dump_header(*header_bytes), out);
  } catch (const ParseError& error) {
    throw FramingError(std::string("header: ") + error.what());
  }
  out.form = FileForm::dump_v2;
  uint64_t position = 8 + header_length;
  for (auto& entry : out.tensors) {
    auto payload = file.slice(position, entry.header.size);
    if (!payload)
      throw ParseError("truncated payload: " + where(entry) + " needs bytes [" + std::to_string(position) + ", " +
                       std::to_string(position) + "+" + std::to_string(entry.header.size) + "), the file has " +
                       std::to_string(file.size));
    entry.bytes = *payload;
    position += entry.header.size;
    check_entry_payload(entry, entry.bytes.size);
  }
}

void read_dump_v1(ByteSpan file, TensorFile& out) {
  take_header(decode_dump_header(file), out);
  out.form = FileForm::dump_v1;
  for (auto& entry : out.tensors) {
    if (!entry.header.has_data && entry.header.size > 0)
      throw ParseError(where(entry) + " has size " + std::to_string(entry.header.size) + " but no data field");
    entry.bytes = entry.header.data;
    check_entry_payload(entry, entry.bytes.size);
  }
  // Random bytes often parse as some protobuf; a v1 dump names its op and carries tensors.
  if (out.op_name.empty() || out.tensors.empty()) throw ParseError("not a v1 dump: no op name or no tensors");
}

}  // namespace opdiff
