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

}  // namespace

void accumulate_exact(const double* x, const double* y, size_t n, uint64_t index_base, const PairParams& params,
                      BlockSums& out) {
  if (n == 0) return;
  BlockSums b;
  b.count = n;
  double sum_x = 0, sum_y = 0;
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
  // Second pass over the (cache-resident) block for centred moments.
  b.mean_x = sum_x / double(n);
  b.mean_y = sum_y / double(n);
  for (size_t i = 0; i < n; ++i) {
    const double cx = x[i] - b.mean_x, cy = y[i] - b.mean_y;
    b.m2_x += cx * cx;
    b.m2_y += cy * cy;
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
