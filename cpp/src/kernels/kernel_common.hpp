// Pieces shared by the SIMD kernel files (no intrinsics here; each kernel file includes this and
// compiles it with its own flags).
//
// The SIMD kernels work on blocks of kKernelBlock elements whose values are exact in float32:
// * moments (sum, sum of squares, cross products) are accumulated in double; float32 products are
//   exact in double. A block's M2 = S2 - S1^2/n loses precision only when the mean dwarfs the
//   spread (S2 > 2^24 M2); such blocks are recomputed by the exact two-pass loop;
// * |x - y|, (x - y)^2 and the relative error are formed in float32 (correctly rounded, so
//   relative error 2^-24 per term) and summed in float32 over at most 8 vectors before being
//   added to double accumulators;
// * a block whose sums are not finite (NaN/Inf inputs, or differences beyond float32's range) is
//   recomputed by the exact double loop, so special values follow the reference semantics exactly.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "opdiff/block_sums.hpp"
#include "opdiff/decode.hpp"
#include "opdiff/kernels.hpp"

namespace opdiff::kernels {
// Internal linkage on purpose: each kernel file compiles this header with its own ISA flags, and
// shared inline definitions would let the linker keep the AVX-512 build of a helper for the AVX2
// and scalar paths too (illegal instructions on older CPUs). Every kernel file gets its own copy.
namespace {

inline constexpr float kRelativeEpsF32 = 2.220446049250313e-16f;  // 2^-52, exact in float32

// Streams from DRAM stall the metric loops (the hardware prefetcher alone left ~20% on the table
// for 16M-element pairs): hint the line kPrefetchElements ahead of element i.
inline constexpr size_t kPrefetchElements = 1024;
template <typename T>
inline void prefetch_ahead(const T* base, size_t i, size_t element_bytes) {
  __builtin_prefetch(reinterpret_cast<const char*>(base) + (i + kPrefetchElements) * element_bytes);
}

// Reduced sums of one SIMD block, before they become BlockSums.
struct RawBlock {
  size_t count = 0;
  double s1x = 0, s2x = 0, s1y = 0, s2y = 0, sxy = 0;  // sums of x, x^2, y, y^2, x*y
  double sum_abs_diff = 0, sum_sq_diff = 0, sum_rel = 0;
  double max_abs_diff = 0, max_rel = 0;
  double min_x = 0, max_x = 0, min_y = 0, max_y = 0;
  uint64_t close = 0;

  bool finite() const {
    return std::isfinite(s1x) && std::isfinite(s1y) && std::isfinite(s2x) && std::isfinite(s2y) &&
           std::isfinite(sxy) && std::isfinite(sum_abs_diff) && std::isfinite(sum_sq_diff) && std::isfinite(sum_rel);
  }
};

// M2 from plain sums, when that is accurate (relative error below ~2^-28).
inline bool m2_from_sums(double s1, double s2, double n, double& m2) {
  m2 = s2 - s1 * s1 / n;
  return s2 <= 0x1p24 * m2 || s2 == 0;
}

// BlockSums of a finite block whose variances the plain sums give accurately; false otherwise
// (the caller then recomputes the block exactly). Indices of the maxima are filled in by the caller.
inline bool to_block_sums(const RawBlock& r, BlockSums& b) {
  const double n = double(r.count);
  if (!m2_from_sums(r.s1x, r.s2x, n, b.m2_x) || !m2_from_sums(r.s1y, r.s2y, n, b.m2_y)) return false;
  b.count = r.count;
  b.mean_x = r.s1x / n;
  b.mean_y = r.s1y / n;
  b.sum_xx = r.s2x;
  b.sum_yy = r.s2y;
  b.sum_xy = r.sxy;
  b.sum_abs_diff = r.sum_abs_diff;
  b.sum_sq_diff = r.sum_sq_diff;
  b.sum_rel = r.sum_rel;
  b.max_abs_diff = r.max_abs_diff;
  b.max_rel = r.max_rel;
  b.min_x = r.min_x;
  b.max_x = r.max_x;
  b.min_y = r.min_y;
  b.max_y = r.max_y;
  b.close = r.close;
  return true;
}

// Whether a block maximum must be located: it beats what the range before it holds (ties keep the
// earlier index, as numpy's argmax; a NaN maximum already stands).
inline bool beats(double block_max, double running_max) {
  return running_max == running_max && block_max > running_max;
}

// The exact double loop over `n` elements of the original runs: the fallback for blocks with
// special values, and the tail shorter than one vector.
inline void accumulate_exact_runs(const ElementRun& x, const ElementRun& y, size_t n, uint64_t index_base,
                                  const PairParams& params, BlockSums& out) {
  double xs[kKernelBlock], ys[kKernelBlock];
  for (size_t done = 0; done < n; done += kKernelBlock) {
    const size_t m = std::min(kKernelBlock, n - done);
    decode_to_float64(advanced(x, done), m, xs);
    decode_to_float64(advanced(y, done), m, ys);
    accumulate_exact(xs, ys, m, index_base + done, params, out);
  }
}

// Folds a SIMD block's sums into `out`, or recomputes the block exactly when they cannot be trusted
// (special values, differences past float32's range, a variance the plain sums lose).
// find(target, relative) gives the block position of the first |x - y| or relative error equal to
// `target`; it is only called when the block's maximum beats the running one.
template <typename Find>
void finish_block(const RawBlock& raw, const ElementRun& x, const ElementRun& y, uint64_t index_base,
                  const PairParams& params, BlockSums& out, Find find) {
  BlockSums b;
  if (!raw.finite() || !to_block_sums(raw, b)) {
    accumulate_exact_runs(x, y, raw.count, index_base, params, out);
    return;
  }
  if (beats(b.max_abs_diff, out.max_abs_diff)) b.max_abs_diff_index = index_base + find(raw.max_abs_diff, false);
  if (beats(b.max_rel, out.max_rel)) b.max_rel_index = index_base + find(raw.max_rel, true);
  merge_block_sums(out, b);
}

// Both sides as float64 values: in place for float64 data, else widened into `staging`.
inline const double* stage_float64(const ElementRun& run, size_t n, double* staging) {
  if (run.dtype == DType::float64) return reinterpret_cast<const double*>(run.data);
  decode_to_float64(run, n, staging);
  return staging;
}

inline bool needs_float64(const ElementRun& x, const ElementRun& y) {
  return dtype_info(x.dtype).precision == Precision::needs_float64 ||
         dtype_info(y.dtype).precision == Precision::needs_float64;
}

inline void accumulate_kl_exact_runs(const ElementRun& x, const ElementRun& y, size_t n, const KlParams& params,
                                     KlSums& out) {
  double xs[kKernelBlock], ys[kKernelBlock];
  for (size_t done = 0; done < n; done += kKernelBlock) {
    const size_t m = std::min(kKernelBlock, n - done);
    decode_to_float64(advanced(x, done), m, xs);
    decode_to_float64(advanced(y, done), m, ys);
    accumulate_kl_exact(xs, ys, m, params, out);
  }
}

// A natural-log table for the vector logs: m in [1, 2) split into 16 intervals by the top 4
// mantissa bits; inv_c[j] ~ 1/c_j for the interval's centre c_j and log_c[j] = -ln(inv_c[j])
// exactly for the rounded inv_c, so ln m = log_c[j] + ln(1 + r), r = m * inv_c[j] - 1, |r| < 1/31.
struct LogTable {
  alignas(64) double inv_c[16];
  alignas(64) double log_c[16];
  LogTable() {
    for (int j = 0; j < 16; ++j) {
      const double centre = 1.0 + (j + 0.5) / 16.0;
      inv_c[j] = 1.0 / centre;
      log_c[j] = -std::log(inv_c[j]);
    }
  }
};

inline const LogTable& log_table() {
  static const LogTable table;
  return table;
}

// ln(1 + r) for |r| < 1/31 by its Taylor series to r^6 (truncation error < 4e-12, far below what
// KL needs: its tolerance is 1e-9 absolute): coefficients.
inline constexpr double kLogC2 = -1.0 / 2, kLogC3 = 1.0 / 3, kLogC4 = -1.0 / 4, kLogC5 = 1.0 / 5, kLogC6 = -1.0 / 6;
inline constexpr double kLn2 = 0.6931471805599453094;

// That series on an ISA's double vectors: `Ops` gives the type V, fma(a, b, c) = a * b + c (one
// rounding), mul(a, b) and splat(value).
template <typename Ops>
typename Ops::V log1p_series(typename Ops::V r) {
  typename Ops::V p = Ops::fma(Ops::splat(kLogC6), r, Ops::splat(kLogC5));
  p = Ops::fma(p, r, Ops::splat(kLogC4));
  p = Ops::fma(p, r, Ops::splat(kLogC3));
  p = Ops::fma(p, r, Ops::splat(kLogC2));
  p = Ops::mul(p, r);
  return Ops::fma(p, r, r);
}

// The KL pass takes ln q of q = a / b, which is near 1 wherever the two sides agree (the common
// case). When every lane of a vector has |q - 1| < kLogNearOne, the same series runs on r = q - 1
// itself (exact: Sterbenz) and the table step (exponent, mantissa, lookups) is skipped: the same
// truncation bound as the table path (|r| < 1/32), and far below it for q closer to 1, where the
// table path's r is up to 1/32 whatever q is.
inline constexpr double kLogNearOne = 1.0 / 32;

}  // namespace
}  // namespace opdiff::kernels
