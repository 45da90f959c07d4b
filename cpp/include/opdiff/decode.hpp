// Block decoding of any element type to float32 or float64: the one place where stored
// bytes become numbers. Kernels with faster per-ISA paths must produce the same values.
#pragma once

#include <cstddef>
#include <cstdint>

#include "opdiff/element_source.hpp"

namespace opdiff {

// Decode `count` elements of `run` into `out`. For Precision::needs_float64 types the
// float32 variant rounds; callers pick the variant by dtype_info(...).precision.
void decode_to_float32(const ElementRun& run, size_t count, float* out);
void decode_to_float64(const ElementRun& run, size_t count, double* out);

}  // namespace opdiff
