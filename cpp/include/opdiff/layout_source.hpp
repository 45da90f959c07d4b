// A stored tensor seen through a LayoutPlan: the ElementSource the metric engine and the
// converters read. Identity plans hand out pointers into the stored bytes; others gather each
// requested range into the caller's scratch, one run of the innermost logical axis at a time.
#pragma once

#include <functional>
#include <memory>

#include "opdiff/byte_span.hpp"
#include "opdiff/element_source.hpp"
#include "opdiff/layout.hpp"

namespace opdiff {

class LayoutSource final : public ElementSource {
 public:
  // `stored` holds the stored elements of `stored_dtype` (checked to cover plan.max_offset).
  // `keep_alive` owns the memory behind `stored` (the mapped file); `release` drops its resident
  // pages (see ElementSource::release_resident).
  LayoutSource(ByteSpan stored, DType stored_dtype, LayoutPlan plan, std::shared_ptr<const void> keep_alive = {},
               std::function<void()> release = {});

  uint64_t size() const override { return logical_count_ * components_; }
  // The stored component type; int4 is unpacked to int8 when gathered.
  DType dtype() const override { return run_dtype_; }
  ElementRun run(uint64_t start, uint64_t count, std::byte* scratch) const override;
  void release_resident() const override {
    if (release_) release_();
  }

  const LayoutPlan& plan() const { return plan_; }
  uint64_t logical_count() const { return logical_count_; }
  DType stored_dtype() const { return stored_dtype_; }

 private:
  template <typename Unit>
  void gather(uint64_t first, uint64_t count, Unit* out) const;
  void gather_int4(uint64_t first, uint64_t count, int8_t* out) const;
  template <typename Visit>
  void walk(uint64_t first, uint64_t count, Visit&& visit) const;

  ByteSpan stored_;
  DType stored_dtype_;
  DType run_dtype_;
  LayoutPlan plan_;
  uint64_t logical_count_ = 0;
  uint32_t components_ = 1;
  uint32_t unit_bytes_ = 1;  // bytes of one stored element (complex: both components)
  std::shared_ptr<const void> keep_alive_;
  std::function<void()> release_;
};

}  // namespace opdiff
