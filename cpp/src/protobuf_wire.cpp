#include "opdiff/protobuf_wire.hpp"

#include <string>

#include "opdiff/dump_error.hpp"

namespace opdiff {

uint64_t decode_varint(ByteSpan bytes, uint64_t& position) {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (position >= bytes.size) throw ParseError("protobuf: truncated varint");
    const auto byte = static_cast<uint8_t>(bytes.data[position++]);
    // The tenth byte may carry only the top bit of a 64-bit value.
    if (shift == 63 && byte > 1) throw ParseError("protobuf: varint longer than 64 bits");
    value |= uint64_t(byte & 0x7F) << shift;
    if (!(byte & 0x80)) return value;
  }
  throw ParseError("protobuf: varint longer than 10 bytes");
}

uint64_t WireReader::read_varint() { return decode_varint(message_, position_); }

WireField WireReader::next() {
  WireField field;
  const uint64_t key = read_varint();
  const uint64_t number = key >> 3;
  if (number == 0 || number > 0x1FFFFFFF) throw ParseError("protobuf: invalid field number " + std::to_string(number));
  field.number = static_cast<uint32_t>(number);
  field.type = static_cast<WireType>(key & 7);
  switch (field.type) {
    case WireType::varint:
      field.value = read_varint();
      break;
    case WireType::fixed64: {
      auto value = load_le<uint64_t>(message_, position_);
      if (!value) throw ParseError("protobuf: truncated fixed64 field " + std::to_string(number));
      field.value = *value;
      position_ += 8;
      break;
    }
    case WireType::fixed32: {
      auto value = load_le<uint32_t>(message_, position_);
      if (!value) throw ParseError("protobuf: truncated fixed32 field " + std::to_string(number));
      field.value = *value;
      position_ += 4;
      break;
    }
    case WireType::length_delimited: {
      const uint64_t length = read_varint();
      auto payload = message_.slice(position_, length);
      if (!payload)
        throw ParseError("protobuf: field " + std::to_string(number) + " claims " + std::to_string(length) +
                         " bytes, only " + std::to_string(message_.size - position_) + " left");
      field.bytes = *payload;
      position_ += length;
      break;
    }
    default:
      // Groups are deprecated and never used by DumpData; wire types 6 and 7 do not exist.
      throw ParseError("protobuf: unsupported wire type " + std::to_string(key & 7) + " in field " +
                       std::to_string(number));
  }
  return field;
}

uint64_t varint_value(const WireField& field) {
  if (field.type != WireType::varint)
    throw ParseError("protobuf: field " + std::to_string(field.number) + " should be a varint");
  return field.value;
}

ByteSpan bytes_value(const WireField& field) {
  if (field.type != WireType::length_delimited)
    throw ParseError("protobuf: field " + std::to_string(field.number) + " should be length-delimited");
  return field.bytes;
}

void append_repeated_varint(const WireField& field, std::vector<uint64_t>& out, uint64_t limit) {
  auto push = [&](uint64_t value) {
    if (out.size() >= limit) throw ParseError("protobuf: more than " + std::to_string(limit) + " repeated values");
    out.push_back(value);
  };
  if (field.type == WireType::varint) {
    push(field.value);
    return;
  }
  const ByteSpan packed = bytes_value(field);
  uint64_t position = 0;
  while (position < packed.size) push(decode_varint(packed, position));
}

}  // namespace opdiff
