#include "opdiff/element_source.hpp"

namespace opdiff {

ContiguousSource::ContiguousSource(const std::byte* data, DType dtype, uint64_t count)
    : data_(data), dtype_(dtype_info(dtype).component), size_(count * dtype_info(dtype).components) {}

ElementRun ContiguousSource::run(uint64_t start, uint64_t /*count*/, std::byte* /*scratch*/) const {
  return advanced({data_, dtype_, 0}, start);
}

}  // namespace opdiff
