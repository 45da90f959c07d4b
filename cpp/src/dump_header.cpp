#include "opdiff/dump_header.hpp"

#include <string>

#include "opdiff/dump_error.hpp"
#include "opdiff/protobuf_wire.hpp"

namespace opdiff {

const char* role_name(TensorRole role) {
  switch (role) {
    case TensorRole::input: return "input";
    case TensorRole::output: return "output";
    case TensorRole::buffer: return "buffer";
    case TensorRole::workspace: return "workspace";
  }
  return "?";
}

namespace {

std::string text_value(const WireField& field) {
  const ByteSpan bytes = bytes_value(field);
  return std::string(reinterpret_cast<const char*>(bytes.data), bytes.size);
}

// Enums and int32 fields arrive as varints; negative int32 values are sign-extended to 64 bits.
int64_t signed_value(const WireField& field) { return static_cast<int64_t>(varint_value(field)); }

std::vector<uint64_t> decode_shape(ByteSpan message) {
  std::vector<uint64_t> dims;
  WireReader reader(message);
  while (!reader.done()) {
    const WireField field = reader.next();
    if (field.number == 1) append_repeated_varint(field, dims, kMaxRank);
  }
  return dims;
}

// OriginalOp: 1 name, 4 format (2 output_index and 3 data_type are not needed).
void decode_original_op(ByteSpan message, HeaderTensor& tensor) {
  tensor.origin_format = 0;
  WireReader reader(message);
  while (!reader.done()) {
    const WireField field = reader.next();
    if (field.number == 1) tensor.origin_name = text_value(field);
    if (field.number == 4) tensor.origin_format = signed_value(field);
  }
}

void set_data(HeaderTensor& tensor, const WireField& field) {
  tensor.data = bytes_value(field);
  tensor.has_data = true;
}

HeaderTensor decode_output(ByteSpan message) {
  HeaderTensor t;
  t.role = TensorRole::output;
  WireReader reader(message);
  while (!reader.done()) {
    const WireField f = reader.next();
    switch (f.number) {
      case 1: t.data_type = signed_value(f); break;
      case 2: t.format = signed_value(f); break;
      case 3: t.shape = decode_shape(bytes_value(f)); break;
      case 4: decode_original_op(bytes_value(f), t); break;
      case 5: set_data(t, f); break;
      case 6: t.size = varint_value(f); break;
      case 7: t.original_shape = decode_shape(bytes_value(f)); break;
      case 8: t.sub_format = signed_value(f); break;
      case 9: t.address = varint_value(f); break;
      case 11: t.offset = varint_value(f); break;
      default: break;  // dim_range and unknown fields: not needed to read the tensor
    }
  }
  return t;
}

HeaderTensor decode_input(ByteSpan message) {
  HeaderTensor t;
  t.role = TensorRole::input;
  WireReader reader(message);
  while (!reader.done()) {
    const WireField f = reader.next();
    switch (f.number) {
      case 1: t.data_type = signed_value(f); break;
      case 2: t.format = signed_value(f); break;
      case 3: t.shape = decode_shape(bytes_value(f)); break;
      case 4: set_data(t, f); break;
      case 5: t.size = varint_value(f); break;
      case 6: t.original_shape = decode_shape(bytes_value(f)); break;
      case 7: t.sub_format = signed_value(f); break;
      case 8: t.address = varint_value(f); break;
      case 9: t.offset = varint_value(f); break;
      default: break;
    }
  }
  return t;
}

// OpBuffer and Workspace share one layout: 1 type, 2 data, 3 size.
HeaderTensor decode_raw_block(ByteSpan message, TensorRole role) {
  HeaderTensor t;
  t.role = role;
  t.data_type = 4;  // DT_UINT8: raw bytes
  t.format = 2;     // ND
  WireReader reader(message);
  while (!reader.done()) {
    const WireField f = reader.next();
    switch (f.number) {
      case 1: t.kind = signed_value(f); break;
      case 2: set_data(t, f); break;
      case 3: t.size = varint_value(f); break;
      default: break;
    }
  }
  t.shape = {t.size};
  return t;
}

std::pair<std::string, std::string> decode_attr(ByteSpan message) {
  std::pair<std::string, std::string> attr;
  WireReader reader(message);
  while (!reader.done()) {
    const WireField f = reader.next();
    if (f.number == 1) attr.first = text_value(f);
    if (f.number == 2) attr.second = text_value(f);
  }
  return attr;
}

void count_tensor(uint64_t& count) {
  if (++count > kMaxTensors) throw ParseError("more than " + std::to_string(kMaxTensors) + " tensors in one file");
}

}  // namespace

DumpHeader decode_dump_header(ByteSpan message) {
  DumpHeader header;
  uint64_t tensors = 0;
  WireReader reader(message);
  while (!reader.done()) {
    const WireField f = reader.next();
    if (f.number == 3 || f.number == 4 || f.number == 5 || f.number == 8) count_tensor(tensors);
    switch (f.number) {
      case 1: header.version = text_value(f); break;
      case 2: header.dump_time = varint_value(f); break;
      case 3: header.outputs.push_back(decode_output(bytes_value(f))); break;
      case 4: header.inputs.push_back(decode_input(bytes_value(f))); break;
      case 5: header.buffers.push_back(decode_raw_block(bytes_value(f), TensorRole::buffer)); break;
      case 6: header.op_name = text_value(f); break;
      case 7: header.attrs.push_back(decode_attr(bytes_value(f))); break;
      case 8: header.workspaces.push_back(decode_raw_block(bytes_value(f), TensorRole::workspace)); break;
      default: break;  // dfx_message and future fields
    }
  }
  return header;
}

}  // namespace opdiff
