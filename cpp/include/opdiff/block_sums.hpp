// Partial results of the metric pass over one range of elements, and how two are merged.
// Variances are kept as (mean, M2) and merged with Chan et al.'s formulas, so they stay accurate
// when means are large; the sums the cosine needs are plain sums (no cancellation in x^2, y^2;
// x*y is exact in double for float32 inputs).
#pragma once

#include <cstdint>
#include <limits>

namespace opdiff {

struct BlockSums {
  uint64_t count = 0;
  double mean_x = 0, m2_x = 0;  // m2 = sum (x - mean_x)^2
  double mean_y = 0, m2_y = 0;
  double sum_xx = 0, sum_yy = 0, sum_xy = 0;

  double sum_abs_diff = 0;      // sum |x - y|
  double sum_sq_diff = 0;       // sum (x - y)^2
  double sum_rel = 0;           // sum t, t = |x - y| / |y| where |y| > eps, else 0
  double max_abs_diff = -1;     // NaN once any |x - y| is NaN; -1 = nothing seen
  uint64_t max_abs_diff_index = 0;
  double max_rel = -1;
  uint64_t max_rel_index = 0;

  double min_x = std::numeric_limits<double>::infinity(), max_x = -std::numeric_limits<double>::infinity();
  double min_y = std::numeric_limits<double>::infinity(), max_y = -std::numeric_limits<double>::infinity();
  uint64_t nan_x = 0, pos_inf_x = 0, neg_inf_x = 0;
  uint64_t nan_y = 0, pos_inf_y = 0, neg_inf_y = 0;
  uint64_t close = 0;           // elements within atol + rtol |y|

  bool all_finite() const { return nan_x + pos_inf_x + neg_inf_x + nan_y + pos_inf_y + neg_inf_y == 0; }
};

// Folds `next` (the range right after `into`'s) into `into`. Order matters for ties only:
// the earlier index wins, as numpy's argmax.
void merge_block_sums(BlockSums& into, const BlockSums& next);

// Running maximum that lets NaN win (numpy's max propagates NaN) and keeps the first index.
inline void update_max(double value, uint64_t index, double& best, uint64_t& best_index) {
  if (best != best) return;  // already NaN
  if (value != value || value > best) {
    best = value;
    best_index = index;
  }
}

// Sums for the KL divergence pass: a = normalised x floored at eps32, b likewise for y.
struct KlSums {
  double sum_a = 0, sum_b = 0;
  double sum_a_log_ratio = 0;  // sum a * (ln a - ln b)
};

// How values are normalised for KL: p = (v - lo) * scale, or p = v when the side is constant.
struct KlParams {
  double lo_x = 0, scale_x = 1;
  bool raw_x = false;
  double lo_y = 0, scale_y = 1;
  bool raw_y = false;
};

inline constexpr double kEps64 = 2.220446049250313e-16;  // numpy float64 eps (2^-52), the reference's EPS
inline constexpr double kEps32 = 1.1920928955078125e-07;  // float32 eps (2^-23), the KL floor

}  // namespace opdiff
