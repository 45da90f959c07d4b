// A minimal, bounds-checked reader of the protobuf wire format: enough to walk a message field by
// field. It never allocates and never reads outside the span it was given; malformed input
// becomes ParseError.
#pragma once

#include <cstdint>
#include <vector>

#include "opdiff/byte_span.hpp"

namespace opdiff {

enum class WireType : uint8_t { varint = 0, fixed64 = 1, length_delimited = 2, start_group = 3, end_group = 4, fixed32 = 5 };

struct WireField {
  uint32_t number = 0;
  WireType type = WireType::varint;
  uint64_t value = 0;  // varint, fixed32 and fixed64 payloads
  ByteSpan bytes;      // length-delimited payload
};

class WireReader {
 public:
  explicit WireReader(ByteSpan message) : message_(message) {}
  bool done() const { return position_ >= message_.size; }
  // The next field; throws ParseError on a truncated or invalid encoding.
  WireField next();

 private:
  uint64_t read_varint();
  ByteSpan message_;
  uint64_t position_ = 0;
};

// Decodes one varint from `bytes` starting at `position` (advanced past it).
uint64_t decode_varint(ByteSpan bytes, uint64_t& position);

// A repeated uint64 field may arrive packed (one length-delimited run) or one value per field;
// appends the values of `field` to `out`, at most `limit` in total.
void append_repeated_varint(const WireField& field, std::vector<uint64_t>& out, uint64_t limit);

// Field payload accessors that check the wire type.
uint64_t varint_value(const WireField& field);
ByteSpan bytes_value(const WireField& field);

}  // namespace opdiff
