// A stored tensor seen through a LayoutPlan: the ElementSource the metric engine and the
// converters read. Identity plans hand out pointers into the stored bytes; others gather each
// requested range into the caller's scratch through a LayoutGather (contiguous runs and tiles).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "opdiff/byte_span.hpp"
#include "opdiff/element_source.hpp"
#include "opdiff/layout.hpp"
#include "opdiff/layout_gather.hpp"

namespace opdiff {

class LayoutSource final : public ElementSource {
 public:
  // `stored` holds the stored elements of `stored_dtype` (checked to cover plan.max_offset).
  // `keep_alive` owns the memory behind `stored` (the mapped file); `release` drops the resident
  // pages of a part of `stored` (see release_resident); it is empty when `stored` is not mapped.
  LayoutSource(ByteSpan stored, DType stored_dtype, LayoutPlan plan, std::shared_ptr<const void> keep_alive = {},
               std::function<void(ByteSpan)> release = {});
  // The gather reads the plan's tables in place: the source stays where it was built.
  LayoutSource(const LayoutSource&) = delete;
  LayoutSource& operator=(const LayoutSource&) = delete;

  uint64_t size() const override { return logical_count_ * components_; }
  // The stored component type; int4 is unpacked to int8 when gathered.
  DType dtype() const override { return run_dtype_; }
  // A gathering source writes count * (bytes of dtype()) to `scratch`, never more: callers that
  // know they read a LayoutSource may pass a buffer of that size and ranges of any length.
  ElementRun run(uint64_t start, uint64_t count, std::byte* scratch) const override;
  // Tiled layouts whose planes (one index of the tile axis, e.g. one channel of NC1HWC0 -> NCHW)
  // are at least a chunk long: ranges one plane apart share their stored C0 groups.
  uint64_t sibling_stride() const override;
  uint32_t sibling_count() const override;
  uint32_t siblings_from(uint64_t plane) const override;
  void run_siblings(uint64_t first, uint64_t stride, uint32_t n, uint64_t count, std::byte* scratch,
                    ElementRun* runs) const override;
  // Drops the resident pages no later range can need: a blocked layout revisits its stored blocks
  // (each C0 group of channels is read once per channel), so only the part before the lowest
  // offset still ahead goes. Whatever is kept beyond that stays under kResidentBudget, or
  // everything is dropped as for a contiguous tensor (memory stays bounded, pages fault back in).
  void release_resident() const override { release_behind(kResidentBudget); }
  void release_all() const override { release_behind(0); }
  uint64_t mapped_bytes() const override { return release_ ? stored_.size : 0; }
  // The same with another bound on what may stay resident.
  void release_behind(uint64_t budget_bytes) const;

  const LayoutPlan& plan() const { return plan_; }
  const LayoutGather& gather() const { return gather_; }
  uint64_t logical_count() const { return logical_count_; }
  DType stored_dtype() const { return stored_dtype_; }

  // 32 MiB: a 16M-element fp16 C1 block stays; two threads over pairs keep RSS well under 256 MB.
  static constexpr uint64_t kResidentBudget = uint64_t{32} << 20;

 private:
  // Widens the range of components read (for release_behind); sibling reads are noted apart,
  // since what lies behind them is judged in sibling order (ElementSource::run_siblings).
  void note_read(uint64_t start, uint64_t end) const;
  void note_sibling_read(uint64_t first, uint64_t end) const;

  ByteSpan stored_;
  DType stored_dtype_;
  DType run_dtype_;
  LayoutPlan plan_;
  LayoutGather gather_{plan_};
  uint64_t logical_count_ = 0;
  uint32_t components_ = 1;
  uint32_t unit_bytes_ = 1;  // bytes of one stored element (complex: both components)
  std::shared_ptr<const void> keep_alive_;
  std::function<void(ByteSpan)> release_;
  // Range of components read since the last release (lowest start) and ever (highest end).
  mutable std::atomic<uint64_t> lowest_start_{UINT64_MAX};
  mutable std::atomic<uint64_t> highest_end_{0};
  mutable std::atomic<uint64_t> lowest_sibling_first_{UINT64_MAX};
};

}  // namespace opdiff
