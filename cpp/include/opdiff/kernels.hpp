// The per-ISA kernel table. Each kernel file (kernel_scalar.cpp, kernel_avx2.cpp, kernel_avx512.cpp,
// kernel_neon.cpp) fills one; simd_dispatch.cpp picks one at load time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "opdiff/block_sums.hpp"
#include "opdiff/element_source.hpp"
#include "opdiff/metrics.hpp"

namespace opdiff {

struct PairParams {
  double rtol = MetricsOptions::kDefaultRtol, atol = MetricsOptions::kDefaultAtol;
};

struct KernelTable {
  const char* name;
  // Pass 1 over n elements of x and y; the first element has flat index `index_base`.
  void (*accumulate)(const ElementRun& x, const ElementRun& y, size_t n, uint64_t index_base,
                     const PairParams& params, BlockSums& out);
  // Pass 2 (KL divergence) over n elements; only called when both sides are finite.
  void (*accumulate_kl)(const ElementRun& x, const ElementRun& y, size_t n, const KlParams& params, KlSums& out);
  // Layout gather, 2-byte elements: `blocks` 16 x 16 transposes side by side (block b reads 16 rows
  // of 16 contiguous elements from `from` + (16 b + k) * stride_bytes and writes them as 16 columns
  // at `to` + 32 b + c * row_bytes). nullptr: the gather's own 8 x 8 blocks serve.
  void (*transpose16_blocks)(const std::byte* from, uint64_t stride_bytes, uint64_t blocks, std::byte* to,
                             uint64_t row_bytes);
};

// Exact (double) reference implementation of pass 1 on decoded values: the scalar kernel and
// the fallback of the SIMD kernels for ranges holding NaN, Inf or values past float32's range.
void accumulate_exact(const double* x, const double* y, size_t n, uint64_t index_base, const PairParams& params,
                      BlockSums& out);
void accumulate_kl_exact(const double* x, const double* y, size_t n, const KlParams& params, KlSums& out);

// Elements processed per block inside a kernel (staging buffers hold this many).
inline constexpr size_t kKernelBlock = 4096;

extern const KernelTable kScalarKernels;
#if defined(OPDIFF_HAVE_X86_KERNELS)
extern const KernelTable kAvx2Kernels;
extern const KernelTable kAvx512Kernels;
#endif
#if defined(OPDIFF_HAVE_NEON_KERNELS)
extern const KernelTable kNeonKernels;
#endif

}  // namespace opdiff
