// The first `count` elements of another source: the reference tool's `-max N`, which compares only
// the first N elements of each flattened tensor.
#pragma once

#include <algorithm>
#include <cstdint>

#include "opdiff/element_source.hpp"

namespace opdiff {

class PrefixSource final : public ElementSource {
 public:
  // `inner` must outlive this source; `count` is clipped to its size.
  PrefixSource(const ElementSource& inner, uint64_t count) : inner_(inner), size_(std::min(count, inner.size())) {}

  uint64_t size() const override { return size_; }
  DType dtype() const override { return inner_.dtype(); }
  ElementRun run(uint64_t start, uint64_t count, std::byte* scratch) const override {
    return inner_.run(start, count, scratch);
  }
  bool uses_scratch() const override { return inner_.uses_scratch(); }
  void release_resident() const override { inner_.release_resident(); }
  void release_all() const override { inner_.release_all(); }
  uint64_t mapped_bytes() const override { return inner_.mapped_bytes(); }
  // Sibling ranges inside the prefix are those of the inner source (the schedule keeps its ranges
  // inside size()).
  uint64_t sibling_stride() const override { return inner_.sibling_stride(); }
  uint32_t sibling_count() const override { return inner_.sibling_count(); }
  uint32_t siblings_from(uint64_t plane) const override { return inner_.siblings_from(plane); }
  void run_siblings(uint64_t first, uint64_t stride, uint32_t n, uint64_t count, std::byte* scratch,
                    ElementRun* runs) const override {
    inner_.run_siblings(first, stride, n, count, scratch, runs);
  }

 private:
  const ElementSource& inner_;
  uint64_t size_;
};

}  // namespace opdiff
