// A read-only view of bytes with bounds-checked slicing: every parser works on these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

namespace opdiff {

struct ByteSpan {
  const std::byte* data = nullptr;
  uint64_t size = 0;

  bool empty() const { return size == 0; }
  // [offset, offset + length) when it lies inside, else nullopt (no overflow on huge inputs).
  std::optional<ByteSpan> slice(uint64_t offset, uint64_t length) const {
    if (offset > size || length > size - offset) return std::nullopt;
    return ByteSpan{data + offset, length};
  }
  std::optional<ByteSpan> from(uint64_t offset) const {
    if (offset > size) return std::nullopt;
    return ByteSpan{data + offset, size - offset};
  }
};

// A little-endian fixed-width value at `offset`, when it fits. Dumps are written in the device's
// native order, which is little-endian on every Ascend host (x86-64, aarch64).
template <typename T>
std::optional<T> load_le(ByteSpan bytes, uint64_t offset) {
  auto part = bytes.slice(offset, sizeof(T));
  if (!part) return std::nullopt;
  T value;
  std::memcpy(&value, part->data, sizeof(T));
  return value;
}

}  // namespace opdiff
