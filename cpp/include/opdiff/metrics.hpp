// Comparing two tensors: every metric in one pass (a second pass for KL divergence only).
// x is the compared side ("my", e.g. the NPU dump), y the golden side.
#pragma once

#include <cstdint>

#include "opdiff/element_source.hpp"

namespace opdiff {

class ThreadPool;
struct KernelTable;

struct MetricsOptions {
  // The allclose test |x - y| <= atol + rtol * |y| by default, written once (the bindings and every
  // Python signature take them from here): rtol is about twice float16's relative rounding (2^-11),
  // so a float16 copy of a float32 value passes; atol keeps values near zero from failing on rtol alone.
  static constexpr double kDefaultRtol = 1e-3;
  static constexpr double kDefaultAtol = 1e-5;
  double rtol = kDefaultRtol;
  double atol = kDefaultAtol;
  bool kl = true;             // KullbackLeiblerDivergence needs a second pass over the data
  bool scalar_shape = false;  // reference quirk: a scalar-shaped tensor has cosine 1
};

struct SideStats {
  double min = 0, max = 0;   // over non-NaN elements (NaN when there are none)
  double mean = 0, std = 0;  // population std; NaN/Inf propagate as numpy's would
  uint64_t nan = 0, pos_inf = 0, neg_inf = 0;
};

// Why a reference metric is "not computed" (the reference tool prints "NaN" and a message).
enum MetricNote : uint32_t {
  kNoteNone = 0,
  kNoteScalar = 1u << 0,          // cosine forced to 1: scalar-shaped tensor
  kNoteBothZero = 1u << 1,        // cosine 1: both sides all zero
  kNoteMyZero = 1u << 2,          // cosine not computed: my side all zero
  kNoteGoldenZero = 1u << 3,      // cosine not computed: golden side all zero
  kNoteEmpty = 1u << 4,           // no elements: max-type metrics and KL not computed
  kNoteKlGoldenZero = 1u << 5,    // KL is inf: the golden distribution has zeros
  kNoteKlSkipped = 1u << 6,       // KL not requested
};

struct MetricsResult {
  uint64_t count = 0;
  SideStats x, y;

  // The reference tool's ten metrics, with its definitions and quirks (see metrics.cpp).
  double cosine_similarity = 0;
  double max_absolute_error = 0;
  double accumulated_relative_error = 0;
  double relative_euclidean_distance = 0;
  double kullback_leibler_divergence = 0;
  double mean_absolute_error = 0;
  double root_mean_square_error = 0;
  double max_relative_error = 0;
  double mean_relative_error = 0;
  // StandardDeviation is (x.mean, x.std, y.mean, y.std).

  // Beside them.
  uint64_t max_absolute_error_index = 0;
  uint64_t max_relative_error_index = 0;
  double sqnr_db = 0;             // 10 log10(sum y^2 / sum (x - y)^2)
  double allclose_fraction = 0;   // share of elements with |x - y| <= atol + rtol |y|
  double norm_ratio_error = 0;    // | ||x||_2 / ||y||_2 - 1 |: the magnitude error the cosine cannot see
  uint32_t notes = kNoteNone;     // MetricNote bits
};

// Compare x against y (equal sizes, checked here). Splits large inputs into fixed chunks run on
// up to `threads` threads of `pool` (nullptr or threads <= 1 = the calling thread only); chunk
// results are merged in chunk order, so the result does not depend on the number of threads or
// on scheduling. `kernels` = nullptr uses the active SIMD path.
MetricsResult compute_metrics(const ElementSource& x, const ElementSource& y, const MetricsOptions& options,
                              ThreadPool* pool = nullptr, size_t threads = 1, const KernelTable* kernels = nullptr);

// Elements per chunk, the unit of work handed to a thread.
inline constexpr uint64_t kChunkElements = uint64_t{1} << 16;

}  // namespace opdiff
