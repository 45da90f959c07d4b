#include "opdiff/layout_source.hpp"

#include <unistd.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "opdiff/dump_error.hpp"
#include "opdiff/metrics.hpp"
#include "opdiff/tensor_file.hpp"

namespace opdiff {

LayoutSource::LayoutSource(ByteSpan stored, DType stored_dtype, LayoutPlan plan, std::shared_ptr<const void> keep_alive,
                           std::function<void(ByteSpan)> release)
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

namespace {

void lower_to(std::atomic<uint64_t>& value, uint64_t bound) {
  uint64_t seen = value.load(std::memory_order_relaxed);
  while (bound < seen && !value.compare_exchange_weak(seen, bound, std::memory_order_relaxed)) {
  }
}

void raise_to(std::atomic<uint64_t>& value, uint64_t bound) {
  uint64_t seen = value.load(std::memory_order_relaxed);
  while (bound > seen && !value.compare_exchange_weak(seen, bound, std::memory_order_relaxed)) {
  }
}

}  // namespace

void LayoutSource::note_read(uint64_t start, uint64_t end) const {
  if (!release_) return;
  lower_to(lowest_start_, start);
  raise_to(highest_end_, end);
}

void LayoutSource::note_sibling_read(uint64_t first, uint64_t end) const {
  if (!release_) return;
  lower_to(lowest_sibling_first_, first);
  raise_to(highest_end_, end);
}

ElementRun LayoutSource::run(uint64_t start, uint64_t count, std::byte* scratch) const {
  note_read(start, start + count);
  if (plan_.identity) return advanced({stored_.data, run_dtype_, 0}, start);
  if (stored_dtype_ == DType::int4) {
    gather_.gather_int4(stored_.data, start, count, reinterpret_cast<int8_t*>(scratch));
    return {scratch, DType::int8, 0};
  }
  // Complex elements are gathered whole; runs then start and end on element boundaries.
  if (start % components_ || count % components_)
    throw std::logic_error("complex tensors are read in whole elements");
  const uint64_t first = start / components_, elements = count / components_;
  gather_.gather(stored_.data, unit_bytes_, first, elements, scratch);
  return {scratch, run_dtype_, 0};
}

uint64_t LayoutSource::sibling_stride() const {
  if (plan_.identity || gather_.tile_axis() < 0 || gather_.plane() < kChunkElements) return 0;
  return gather_.plane() * components_;
}

uint32_t LayoutSource::sibling_count() const { return sibling_stride() ? gather_.siblings() : 1; }

uint32_t LayoutSource::siblings_from(uint64_t plane) const { return sibling_stride() ? gather_.siblings_from(plane) : 1; }

void LayoutSource::run_siblings(uint64_t first, uint64_t stride, uint32_t n, uint64_t count, std::byte* scratch,
                                ElementRun* runs) const {
  if (n == 0) return;
  if (stride == 0 || stride != sibling_stride() || first % components_ || count % components_ ||
      first + (n - 1) * stride + count > size()) {
    ElementSource::run_siblings(first, stride, n, count, scratch, runs);
    return;
  }
  note_sibling_read(first, first + (n - 1) * stride + count);
  const uint64_t step = count * kScratchBytesPerElement;  // bytes between ranges, as the default
  if (stored_dtype_ == DType::int4) {
    gather_.gather_siblings_int4(stored_.data, first, n, count, reinterpret_cast<int8_t*>(scratch), step);
  } else {
    gather_.gather_siblings(stored_.data, unit_bytes_, first / components_, n, count / components_, scratch,
                            step / unit_bytes_);
  }
  for (uint32_t k = 0; k < n; ++k) runs[k] = {scratch + k * step, run_dtype_, 0};
}

void LayoutSource::release_behind(uint64_t budget_bytes) const {
  if (!release_) return;
  const uint64_t start = lowest_start_.exchange(UINT64_MAX, std::memory_order_relaxed);
  const uint64_t sibling_first = lowest_sibling_first_.exchange(UINT64_MAX, std::memory_order_relaxed);
  if (start == UINT64_MAX && sibling_first == UINT64_MAX) return;  // nothing read since the last release
  const uint64_t first = std::min(start, sibling_first) / components_;
  const uint64_t end = highest_end_.load(std::memory_order_relaxed) / components_;
  if (plan_.identity || !gather_.ordered() || first >= logical_count_ || end == 0) {
    release_(stored_);
    return;
  }
  // Ranges run concurrently and a little out of order; `start` is the lowest one started since
  // the last release (`sibling_first` the lowest sibling group piece), so what lies below the
  // lowest offset still ahead of it is behind every reader.
  uint64_t low = UINT64_MAX;
  if (start != UINT64_MAX) low = gather_.lowest_from(start / components_);
  if (sibling_first != UINT64_MAX) low = std::min(low, gather_.lowest_in_sibling_order(sibling_first / components_));
  const uint64_t high = gather_.highest_before(end);
  if (high > low && storage_bytes(stored_dtype_, high - low) > budget_bytes) {
    release_(stored_);
    return;
  }
  // Whole pages strictly below `low` only (a release rounds its end up to a page).
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(stored_.data);
  const uintptr_t edge = (begin + storage_bytes(stored_dtype_, low) - (stored_dtype_ == DType::int4 && low % 2)) & ~(page - 1);
  if (edge > begin) release_({stored_.data, uint64_t(edge - begin)});
}

}  // namespace opdiff
