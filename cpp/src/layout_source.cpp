#include "opdiff/layout_source.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include "opdiff/dump_error.hpp"
#include "opdiff/tensor_file.hpp"

namespace opdiff {
namespace {

// Fixed-size element copies: memcpy with a compile-time size becomes one load and store.
template <size_t Bytes>
struct Unit {
  std::byte bytes[Bytes];
};

}  // namespace

LayoutSource::LayoutSource(ByteSpan stored, DType stored_dtype, LayoutPlan plan, std::shared_ptr<const void> keep_alive,
                           std::function<void()> release)
    : stored_(stored),
      stored_dtype_(stored_dtype),
      plan_(std::move(plan)),
      keep_alive_(std::move(keep_alive)),
      release_(std::move(release)) {
  const DTypeInfo& info = dtype_info(stored_dtype);
  logical_count_ = checked_element_count(plan_.shape);
  components_ = info.components;
  unit_bytes_ = info.bits / 8;
  run_dtype_ = info.component;
  if (stored_dtype == DType::int4 && !plan_.identity) run_dtype_ = DType::int8;
  if (logical_count_ > 0 && storage_bytes(stored_dtype, plan_.max_offset + 1) > stored.size)
    throw ParseError("tensor bytes do not cover the layout");
}

// Calls visit(out_index, stored_offset) for logical elements [first, first + count), walking
// the logical index like an odometer so each element costs one table load and an add.
template <typename Visit>
void LayoutSource::walk(uint64_t first, uint64_t count, Visit&& visit) const {
  const size_t rank = plan_.shape.size();
  if (rank == 0) {  // a scalar
    for (uint64_t i = 0; i < count; ++i) visit(i, 0);
    return;
  }
  uint64_t index[kMaxRank];
  uint64_t rest = first;
  for (size_t a = rank; a-- > 0;) {
    index[a] = rest % plan_.shape[a];
    rest /= plan_.shape[a];
  }
  const size_t last = rank - 1;
  const uint64_t inner_extent = plan_.shape[last];
  uint64_t done = 0;
  while (done < count) {
    uint64_t base = 0;
    for (size_t a = 0; a < last; ++a) {
      if (int(a) == plan_.coupled_axis) continue;
      base += plan_.offsets[a][index[a]];
    }
    const uint64_t take = std::min(count - done, inner_extent - index[last]);
    if (plan_.coupled_axis < 0) {
      const uint64_t* inner = plan_.offsets[last].data() + index[last];
      for (uint64_t i = 0; i < take; ++i) visit(done + i, base + inner[i]);
    } else {
      // Grouped FRACTAL_Z: the channel term depends on the group of the output channel.
      const size_t c = size_t(plan_.coupled_axis), n = size_t(plan_.key_axis);
      const uint64_t c_extent = plan_.shape[c];
      for (uint64_t i = 0; i < take; ++i) {
        uint64_t position[kMaxRank];
        std::memcpy(position, index, rank * sizeof(uint64_t));
        position[last] += i;
        uint64_t offset = base + (last == c ? 0 : plan_.offsets[last][position[last]]);
        offset += plan_.offsets[c][plan_.keys[position[n]] * c_extent + position[c]];
        visit(done + i, offset);
      }
    }
    done += take;
    index[last] += take;
    for (size_t a = last; a > 0 && index[a] == plan_.shape[a]; --a) {
      index[a] = 0;
      ++index[a - 1];
    }
  }
}

template <typename U>
void LayoutSource::gather(uint64_t first, uint64_t count, U* out) const {
  const U* stored = reinterpret_cast<const U*>(stored_.data);
  walk(first, count, [&](uint64_t i, uint64_t offset) { std::memcpy(out + i, stored + offset, sizeof(U)); });
}

void LayoutSource::gather_int4(uint64_t first, uint64_t count, int8_t* out) const {
  const auto* stored = reinterpret_cast<const uint8_t*>(stored_.data);
  walk(first, count, [&](uint64_t i, uint64_t offset) {
    const uint8_t nibble = (stored[offset / 2] >> ((offset % 2) * 4)) & 0x0F;
    out[i] = static_cast<int8_t>(nibble >= 8 ? int(nibble) - 16 : int(nibble));
  });
}

ElementRun LayoutSource::run(uint64_t start, uint64_t count, std::byte* scratch) const {
  if (plan_.identity) return advanced({stored_.data, run_dtype_, 0}, start);
  if (stored_dtype_ == DType::int4) {
    gather_int4(start, count, reinterpret_cast<int8_t*>(scratch));
    return {scratch, DType::int8, 0};
  }
  // Complex elements are gathered whole; runs then start and end on element boundaries.
  if (start % components_ || count % components_)
    throw std::logic_error("complex tensors are read in whole elements");
  const uint64_t first = start / components_, elements = count / components_;
  switch (unit_bytes_) {
    case 1: gather(first, elements, reinterpret_cast<Unit<1>*>(scratch)); break;
    case 2: gather(first, elements, reinterpret_cast<Unit<2>*>(scratch)); break;
    case 4: gather(first, elements, reinterpret_cast<Unit<4>*>(scratch)); break;
    case 8: gather(first, elements, reinterpret_cast<Unit<8>*>(scratch)); break;
    case 16: gather(first, elements, reinterpret_cast<Unit<16>*>(scratch)); break;
    default: throw std::logic_error("unsupported element width");
  }
  return {scratch, run_dtype_, 0};
}

}  // namespace opdiff
