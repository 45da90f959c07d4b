// Where the metric engine gets elements from: a tensor seen in logical (row-major) order.
// A plain array hands out pointers into its own bytes; a tensor stored in a blocked layout
// (NC1HWC0, FRACTAL_Z, ...) gathers each requested range into a small scratch buffer, so a
// comparison never materialises a whole tensor.
#pragma once

#include <cstddef>
#include <cstdint>

#include "opdiff/dtype.hpp"

namespace opdiff {

// `count` elements of `dtype`, starting `first` elements after `data` (first is non-zero only
// for int4, whose elements may start mid-byte). Complex dtypes never appear here: a complex
// tensor is exposed as its float components.
struct ElementRun {
  const std::byte* data = nullptr;
  DType dtype = DType::float32;
  uint64_t first = 0;
};

// The same run moved `elements` further.
inline ElementRun advanced(const ElementRun& run, uint64_t elements) {
  if (run.dtype == DType::int4) {
    const uint64_t index = run.first + elements;
    return {run.data + index / 2, run.dtype, index % 2};
  }
  return {run.data + elements * (dtype_info(run.dtype).bits / 8), run.dtype, 0};
}

class ElementSource {
 public:
  virtual ~ElementSource() = default;
  // Number of logical elements (components, for complex data).
  virtual uint64_t size() const = 0;
  // Element type handed out by run(); may differ from the stored type (a layout gather of
  // int4 may unpack to int8).
  virtual DType dtype() const = 0;
  // Elements [start, start + count) in logical order. `scratch` has room for
  // count * kScratchBytesPerElement bytes; a source may use it or point into its own storage.
  // Safe to call from several threads at once.
  virtual ElementRun run(uint64_t start, uint64_t count, std::byte* scratch) const = 0;
  // Whether run() uses its scratch buffer (callers skip allocating one when it does not).
  virtual bool uses_scratch() const { return true; }
  // Lets go of memory held for ranges already read (for a mapped file: its resident pages, which
  // stay in the page cache). Streaming callers call it now and then so that memory stays bounded
  // whatever the tensor size; safe while other threads read (pages fault back in).
  virtual void release_resident() const {}
  // Lets go of every resident page, whatever may still be read (they fault back in if it is).
  virtual void release_all() const { release_resident(); }
  // Bytes of a mapped file behind this source: what holding all its pages resident costs (0 for
  // memory it does not map: an array, a file read whole).
  virtual uint64_t mapped_bytes() const { return 0; }

  // Ranges worth reading together. With sibling_stride() = s > 0, the ranges [b + k * s,
  // b + k * s + count) for k < sibling_count() read the same stored bytes (the channels of one C0
  // group of NC1HWC0 when a channel is longer than a chunk: read one by one, each pass streams
  // the whole group for one channel of it); run_siblings() reads them in one pass.
  virtual uint64_t sibling_stride() const { return 0; }
  virtual uint32_t sibling_count() const { return 1; }
  // How many planes, from plane number `plane` (in logical order) on, read the same stored bytes:
  // the rest of its sibling group, at most sibling_count().
  virtual uint32_t siblings_from(uint64_t /*plane*/) const { return 1; }
  // runs[k] = run(first + k * stride, count, scratch + k * count * kScratchBytesPerElement) for
  // k < n: the same elements, n ranges at once. `scratch` has room for n times the bytes run()
  // may use. Safe to call from several threads at once.
  virtual void run_siblings(uint64_t first, uint64_t stride, uint32_t n, uint64_t count, std::byte* scratch,
                            ElementRun* runs) const {
    for (uint32_t k = 0; k < n; ++k)
      runs[k] = run(first + k * stride, count, scratch + k * count * kScratchBytesPerElement);
  }

  static constexpr size_t kScratchBytesPerElement = 8;
  // sibling_count() is never above this (callers keep a run per sibling on the stack).
  static constexpr uint32_t kMaxSiblings = 16;
};

// A contiguous array in logical order: hands out pointers, never copies.
class ContiguousSource final : public ElementSource {
 public:
  // `dtype` may be complex: it is then exposed as 2 * count float components.
  ContiguousSource(const std::byte* data, DType dtype, uint64_t count);

  uint64_t size() const override { return size_; }
  DType dtype() const override { return dtype_; }
  ElementRun run(uint64_t start, uint64_t count, std::byte* scratch) const override;
  bool uses_scratch() const override { return false; }

 private:
  const std::byte* data_;
  DType dtype_;
  uint64_t size_;
};

}  // namespace opdiff
