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
