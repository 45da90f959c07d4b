// Merging partial sums, and the exact double-precision pass used by the scalar path and as the
// fallback of the SIMD paths. This file defines the metric semantics the fast kernels must match.
#include <algorithm>
#include <cmath>
#include <limits>

#include "opdiff/block_sums.hpp"
#include "opdiff/kernels.hpp"

namespace opdiff {

namespace {

// Chan et al.'s exact merge of (mean, M2) of two ranges with na and nb elements. With an infinite
// mean the weighted sum gives numpy's mean (inf + inf = inf, inf - inf = NaN) and M2 is NaN.
void merge_moments(double& mean, double& m2, double next_mean, double next_m2, double na, double nb) {
  const double n = na + nb;
  if (std::isfinite(mean) && std::isfinite(next_mean)) {
    const double delta = next_mean - mean;
    m2 += next_m2 + delta * delta * (na * nb / n);
    mean += delta * (nb / n);
  } else {
    mean = (na * mean + nb * next_mean) / n;
    m2 = std::numeric_limits<double>::quiet_NaN();
  }
}

}  // namespace

void merge_block_sums(BlockSums& into, const BlockSums& next) {
  if (next.count == 0) return;
  if (into.count == 0) {
    into = next;
    return;
  }
  const double na = double(into.count), nb = double(next.count);
  merge_moments(into.mean_x, into.m2_x, next.mean_x, next.m2_x, na, nb);
  merge_moments(into.mean_y, into.m2_y, next.mean_y, next.m2_y, na, nb);
  into.count += next.count;
  into.sum_xx += next.sum_xx;
  into.sum_yy += next.sum_yy;
  into.sum_xy += next.sum_xy;

  into.sum_abs_diff += next.sum_abs_diff;
  into.sum_sq_diff += next.sum_sq_diff;
  into.sum_rel += next.sum_rel;
  update_max(next.max_abs_diff, next.max_abs_diff_index, into.max_abs_diff, into.max_abs_diff_index);
  update_max(next.max_rel, next.max_rel_index, into.max_rel, into.max_rel_index);

  into.min_x = std::min(into.min_x, next.min_x);
  into.max_x = std::max(into.max_x, next.max_x);
  into.min_y = std::min(into.min_y, next.min_y);
  into.max_y = std::max(into.max_y, next.max_y);
  into.nan_x += next.nan_x;
  into.pos_inf_x += next.pos_inf_x;
  into.neg_inf_x += next.neg_inf_x;
  into.nan_y += next.nan_y;
  into.pos_inf_y += next.pos_inf_y;
  into.neg_inf_y += next.neg_inf_y;
  into.close += next.close;
}

namespace {

void count_special(double v, uint64_t& nan, uint64_t& pos_inf, uint64_t& neg_inf) {
  if (v != v)
    ++nan;
  else if (v == HUGE_VAL)
    ++pos_inf;
  else if (v == -HUGE_VAL)
    ++neg_inf;
}

// Pass 1 over a block, as the definition reads: every element may be NaN or Inf.
void special_block_sums(const double* x, const double* y, size_t n, uint64_t index_base, const PairParams& params,
                        BlockSums& b, double& sum_x, double& sum_y) {
  for (size_t i = 0; i < n; ++i) {
    const double xi = x[i], yi = y[i];
    sum_x += xi;
    sum_y += yi;
    b.sum_xx += xi * xi;
    b.sum_yy += yi * yi;
    b.sum_xy += xi * yi;
    count_special(xi, b.nan_x, b.pos_inf_x, b.neg_inf_x);
    count_special(yi, b.nan_y, b.pos_inf_y, b.neg_inf_y);
    if (xi < b.min_x) b.min_x = xi;  // comparisons with NaN are false: NaN is skipped
    if (xi > b.max_x) b.max_x = xi;
    if (yi < b.min_y) b.min_y = yi;
    if (yi > b.max_y) b.max_y = yi;

    const double diff = xi - yi;
    const double abs_diff = std::fabs(diff);
    const double abs_y = std::fabs(yi);
    b.sum_abs_diff += abs_diff;
    b.sum_sq_diff += diff * diff;
    update_max(abs_diff, index_base + i, b.max_abs_diff, b.max_abs_diff_index);

    // Relative error: the reference's |x / y - 1|, taken as 0 where |y| <= eps (NaN golden
    // included). |x - y| / |y| is the same number with one rounding less; only an infinite golden
    // needs the reference's own form (x / inf - 1 = -1, not inf / inf).
    double rel = 0;
    if (abs_y > kEps64) rel = std::isinf(yi) ? std::fabs(xi / yi - 1.0) : abs_diff / abs_y;
    b.sum_rel += rel;
    update_max(rel, index_base + i, b.max_rel, b.max_rel_index);

    if (abs_diff <= params.atol + params.rtol * abs_y || xi == yi) ++b.close;
  }
}

// The portable path's fast loops, for a block of finite values. They perform, per accumulator, the
// same operations in the same order as special_block_sums followed by the centred-moment pass, so
// the sums come out bit for bit the same; what differs is the schedule:
// * the accumulators are split over two loops (moments and extremes; then differences, relative
//   errors and the centred moments, once the means are known), so that each loop keeps its
//   accumulators in registers and its add chains overlap;
// * selects instead of branches (min/max, argmax, the zero golden), so nothing in a loop depends
//   on the data's values;
// * nothing for NaN and Inf: a block holding one is told by its sum of x or y, which an infinite
//   or NaN term makes infinite or NaN for good, and is then redone by special_block_sums.
// For finite x and y, x == y implies |x - y| = 0 <= atol + rtol |y| when atol and rtol are finite
// and >= 0, so the closeness test needs no equality term.

// Loop 1: plain sums and extremes. False when the block holds a NaN or an Inf. (Out of line, as is
// loop 2: one call per block costs nothing, and tools/mca_aarch64.py finds the loops by name.)
[[gnu::noinline]] bool finite_moments(const double* x, const double* y, size_t n, BlockSums& b, double& sum_x_out, double& sum_y_out) {
  double sum_x = 0, sum_y = 0, sum_xx = 0, sum_yy = 0, sum_xy = 0;
  double min_x = b.min_x, max_x = b.max_x, min_y = b.min_y, max_y = b.max_y;
  for (size_t i = 0; i < n; ++i) {
    const double xi = x[i], yi = y[i];
    sum_x += xi;
    sum_y += yi;
    sum_xx += xi * xi;
    sum_yy += yi * yi;
    sum_xy += xi * yi;
    min_x = xi < min_x ? xi : min_x;
    max_x = xi > max_x ? xi : max_x;
    min_y = yi < min_y ? yi : min_y;
    max_y = yi > max_y ? yi : max_y;
  }
  if (!std::isfinite(sum_x) || !std::isfinite(sum_y)) return false;
  sum_x_out = sum_x;
  sum_y_out = sum_y;
  b.sum_xx = sum_xx;
  b.sum_yy = sum_yy;
  b.sum_xy = sum_xy;
  b.min_x = min_x;
  b.max_x = max_x;
  b.min_y = min_y;
  b.max_y = max_y;
  return true;
}

// Loop 2: differences, relative errors, closeness, and the centred moments about b.mean_x, b.mean_y.
// False when some |x - y| overflowed to Inf (finite float64 values far apart): such a block is
// redone by special_block_sums, so that here every |x - y| is finite.
[[gnu::noinline]] bool finite_differences(const double* x, const double* y, size_t n, uint64_t index_base, double atol, double rtol,
                        BlockSums& b) {
  const double mean_x = b.mean_x, mean_y = b.mean_y;
  double sum_abs_diff = 0, sum_sq_diff = 0, sum_rel = 0, m2_x = 0, m2_y = 0;
  double max_abs_diff = b.max_abs_diff, max_rel = b.max_rel;  // -1: the first element always wins
  size_t max_abs_diff_at = 0, max_rel_at = 0;
  uint64_t close = 0;
  for (size_t i = 0; i < n; ++i) {
    const double xi = x[i], yi = y[i];
    const double diff = xi - yi;
    const double abs_diff = std::fabs(diff);
    const double abs_y = std::fabs(yi);
    sum_abs_diff += abs_diff;
    sum_sq_diff += diff * diff;
    const bool abs_wins = abs_diff > max_abs_diff;  // strictly: the first of equal maxima stays
    max_abs_diff = abs_wins ? abs_diff : max_abs_diff;
    max_abs_diff_at = abs_wins ? i : max_abs_diff_at;

    // A golden at or below eps divides by Inf instead and so contributes +0 (|x - y| is finite
    // here): the division is done either way, and a select of the divisor is all that depends on y.
    const double rel = abs_diff / (abs_y > kEps64 ? abs_y : HUGE_VAL);
    sum_rel += rel;
    const bool rel_wins = rel > max_rel;
    max_rel = rel_wins ? rel : max_rel;
    max_rel_at = rel_wins ? i : max_rel_at;

    close += abs_diff <= atol + rtol * abs_y;

    const double cx = xi - mean_x, cy = yi - mean_y;
    m2_x += cx * cx;
    m2_y += cy * cy;
  }
  if (!std::isfinite(sum_abs_diff)) return false;
  b.sum_abs_diff = sum_abs_diff;
  b.sum_sq_diff = sum_sq_diff;
  b.sum_rel = sum_rel;
  b.max_abs_diff = max_abs_diff;
  b.max_abs_diff_index = index_base + max_abs_diff_at;
  b.max_rel = max_rel;
  b.max_rel_index = index_base + max_rel_at;
  b.close = close;
  b.m2_x = m2_x;
  b.m2_y = m2_y;
  return true;
}

// Second pass over the (cache-resident) block for centred moments.
void centred_moments(const double* x, const double* y, size_t n, BlockSums& b) {
  for (size_t i = 0; i < n; ++i) {
    const double cx = x[i] - b.mean_x, cy = y[i] - b.mean_y;
    b.m2_x += cx * cx;
    b.m2_y += cy * cy;
  }
}

bool usable_tolerances(const PairParams& params) {
  return std::isfinite(params.atol) && std::isfinite(params.rtol) && params.atol >= 0 && params.rtol >= 0;
}

}  // namespace

void accumulate_exact(const double* x, const double* y, size_t n, uint64_t index_base, const PairParams& params,
                      BlockSums& out) {
  if (n == 0) return;
  BlockSums b;
  b.count = n;
  double sum_x = 0, sum_y = 0;
  bool done = usable_tolerances(params) && finite_moments(x, y, n, b, sum_x, sum_y);
  if (done) {
    b.mean_x = sum_x / double(n);
    b.mean_y = sum_y / double(n);
    done = finite_differences(x, y, n, index_base, params.atol, params.rtol, b);
  }
  if (!done) {
    b = BlockSums{};
    b.count = n;
    sum_x = sum_y = 0;
    special_block_sums(x, y, n, index_base, params, b, sum_x, sum_y);
    b.mean_x = sum_x / double(n);
    b.mean_y = sum_y / double(n);
    centred_moments(x, y, n, b);
  }
  merge_block_sums(out, b);
}

void accumulate_kl_exact(const double* x, const double* y, size_t n, const KlParams& params, KlSums& out) {
  for (size_t i = 0; i < n; ++i) {
    double a = params.raw_x ? x[i] : (x[i] - params.lo_x) * params.scale_x;
    double b = params.raw_y ? y[i] : (y[i] - params.lo_y) * params.scale_y;
    a = std::max(a, kEps32);
    b = std::max(b, kEps32);
    out.sum_a += a;
    out.sum_b += b;
    out.sum_a_log_ratio += a * (std::log(a) - std::log(b));
  }
}

}  // namespace opdiff
