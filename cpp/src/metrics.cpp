// The metric engine: chunking, threads, the KL second pass, and turning sums into the
// reference tool's metric values (with its quirks, documented where they apply).
#include "opdiff/metrics.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "chunk_schedule.hpp"
#include "opdiff/kernels.hpp"
#include "opdiff/read_buffer_pool.hpp"
#include "opdiff/simd.hpp"
#include "opdiff/thread_pool.hpp"

namespace opdiff {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Per-thread scratch for sources that gather (blocked layouts), allocated only for those: a pair
// of plain arrays needs none, which keeps many small comparisons cheap. Room for one unit of the
// schedule (its sibling ranges side by side: up to 8 MiB). Recycled buffers: fresh memory is
// zero-filled by the system page by page on first touch, which cost more than the gather it
// serves (a few percent of a run of 16M-element NC1HWC0 pairs).
class Scratch {
 public:
  Scratch(const ElementSource& x, const ElementSource& y, const ChunkSchedule& schedule) {
    const uint64_t bytes = schedule.max_count() * schedule.max_ranges() * ElementSource::kScratchBytesPerElement;
    if (x.uses_scratch()) x_ = ReadBuffer(bytes);
    if (y.uses_scratch()) y_ = ReadBuffer(bytes);
  }
  std::byte* x() const { return x_.data(); }
  std::byte* y() const { return y_.data(); }

 private:
  ReadBuffer x_, y_;
};

// Resident pages of mapped inputs are let go every this many chunks (8 x 64K elements: a few MB),
// so a comparison's memory does not grow with the tensors.
constexpr size_t kChunksPerRelease = 8;

// A pair whose mapped bytes fit what is left of this process-wide budget keeps its pages from the
// first pass into the KL pass and lets them go once, at the end. Dropping pages while the other
// threads run costs a TLB shootdown each time (an interrupt of every core running the process),
// and the KL pass then faults them all back in: on two cores that was a third of the time of
// 16M-element pairs. The budget bounds what all pairs compared at once hold (clean page cache,
// counted in RSS); larger pairs stream with releases as before.
constexpr uint64_t kKeptPagesBudget = uint64_t{256} << 20;

class KeptPages {
 public:
  explicit KeptPages(uint64_t bytes) {
    if (bytes == 0) return;
    uint64_t used = in_use().load(std::memory_order_relaxed);
    while (used + bytes <= kKeptPagesBudget) {
      if (in_use().compare_exchange_weak(used, used + bytes, std::memory_order_relaxed)) {
        bytes_ = bytes;
        return;
      }
    }
  }
  ~KeptPages() {
    if (bytes_) in_use().fetch_sub(bytes_, std::memory_order_relaxed);
  }
  KeptPages(const KeptPages&) = delete;
  KeptPages& operator=(const KeptPages&) = delete;
  bool held() const { return bytes_ != 0; }

 private:
  static std::atomic<uint64_t>& in_use() {
    static std::atomic<uint64_t> bytes{0};
    return bytes;
  }
  uint64_t bytes_ = 0;
};

// The runs of sibling range k of a unit, for both sides. A side whose layout groups the sibling
// ranges reads them all in one pass, up front (at k == 0); the other side reads each range when it
// is compared.
void read_range(const ElementSource& x, const ElementSource& y, const ChunkSchedule& schedule,
                const ChunkSchedule::Unit& unit, uint32_t k, const Scratch& scratch, ElementRun* xr, ElementRun* yr) {
  const bool x_grouped = schedule.grouped(x), y_grouped = schedule.grouped(y);
  if (k == 0 && x_grouped) x.run_siblings(unit.begin, unit.stride, unit.ranges, unit.count, scratch.x(), xr);
  if (k == 0 && y_grouped) y.run_siblings(unit.begin, unit.stride, unit.ranges, unit.count, scratch.y(), yr);
  const uint64_t begin = unit.begin + k * unit.stride;
  if (!x_grouped) xr[k] = x.run(begin, unit.count, scratch.x());
  if (!y_grouped) yr[k] = y.run(begin, unit.count, scratch.y());
}

// Runs body(slot, begin, count, x_run, y_run) for every range of the schedule, on one worker per
// scratch; sibling ranges are read together. `release`: let resident pages go as the ranges are
// read (false while the caller keeps them, KeptPages).
template <typename Body>
void for_each_chunk(const ElementSource& x, const ElementSource& y, const ChunkSchedule& schedule,
                    std::vector<Scratch>& scratch, ThreadPool* pool, bool release, Body body) {
  const size_t units = schedule.units();
  const size_t workers = std::min(scratch.size(), units);
  auto task = [&](size_t u, size_t worker) {
    const ChunkSchedule::Unit unit = schedule.unit(u);
    ElementRun xr[ElementSource::kMaxSiblings], yr[ElementSource::kMaxSiblings];
    for (uint32_t k = 0; k < unit.ranges; ++k) {
      read_range(x, y, schedule, unit, k, scratch[worker], xr, yr);
      const uint64_t begin = unit.begin + k * unit.stride;
      body(unit.first_slot + k * unit.slot_step, begin, unit.count, xr[k], yr[k]);
      // Sibling ranges lie a plane apart: a side read in place maps pages (large folios: up to
      // 2 MB) around each of them, so each is let go once compared.
      if (release && (unit.ranges > 1 || (u + 1) % kChunksPerRelease == 0)) {
        x.release_resident();
        y.release_resident();
      }
    }
  };
  if (workers > 1) {
    pool->parallel_for(units, workers, task);
  } else {
    for (size_t u = 0; u < units; ++u) task(u, 0);
  }
  // A tensor shorter than one release interval keeps its pages until its file is closed (partner
  // files are held by a byte-capped cache): releasing them would cost two system calls per pair
  // and page faults when a cached partner is read again, which dominates small comparisons.
  if (release && schedule.slots() >= kChunksPerRelease) {
    x.release_resident();
    y.release_resident();
  }
}

SideStats side_stats(uint64_t n, double mean, double m2, double lo, double hi, uint64_t nan, uint64_t pos_inf,
                     uint64_t neg_inf) {
  SideStats s;
  s.nan = nan;
  s.pos_inf = pos_inf;
  s.neg_inf = neg_inf;
  const bool any_number = n > nan;
  s.min = any_number ? lo : kNaN;
  s.max = any_number ? hi : kNaN;
  s.mean = n ? mean : kNaN;
  s.std = n ? std::sqrt(m2 / double(n)) : kNaN;
  return s;
}

// CosineSimilarity as the reference defines it: 1 for scalar shapes and for two all-zero sides,
// "not computed" when one side is all zero, else the cosine clamped above at 1.
double cosine(double sum_xx, double sum_yy, double sum_xy, bool scalar_shape, uint32_t& notes) {
  if (scalar_shape) {
    notes |= kNoteScalar;
    return 1.0;
  }
  const double a = std::sqrt(sum_xx), b = std::sqrt(sum_yy);
  if (a <= kEps64 && b < kEps64) {
    notes |= kNoteBothZero;
    return 1.0;
  }
  if (std::sqrt(a) <= kEps64) {
    notes |= kNoteMyZero;
    return kNaN;
  }
  if (std::sqrt(b) <= kEps64) {
    notes |= kNoteGoldenZero;
    return kNaN;
  }
  const double r = sum_xy / (a * b);
  return r > 1.0 ? 1.0 : r;  // NaN passes through, as in the reference
}

// | ||x|| / ||y|| - 1 | from the sums the cosine uses. A zero golden norm gives 0 when my side is
// zero too and +inf otherwise (any magnitude against none); NaN propagates.
double norm_ratio_error(double sum_xx, double sum_yy) {
  if (sum_yy == 0 && !std::isnan(sum_xx)) return sum_xx == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::fabs(std::sqrt(sum_xx) / std::sqrt(sum_yy) - 1.0);
}

double side_kl_range(double lo, double hi, double& scale, bool& raw) {
  raw = !(hi != lo);
  scale = raw ? 1.0 : 1.0 / (hi - lo);
  return lo;
}

}  // namespace

MetricsResult compute_metrics(const ElementSource& x, const ElementSource& y, const MetricsOptions& options,
                              ThreadPool* pool, size_t threads, const KernelTable* kernels) {
  if (x.size() != y.size())
    throw std::invalid_argument("element counts differ: " + std::to_string(x.size()) + " vs " +
                                std::to_string(y.size()));
  const KernelTable& k = kernels ? *kernels : active_kernels();
  const uint64_t n = x.size();
  const PairParams params{options.rtol, options.atol};

  const ChunkSchedule schedule(x, y);
  const size_t units = schedule.units();
  const size_t workers = pool && threads > 1 && units > 1 ? std::min({threads, pool->size(), units}) : 1;
  std::vector<Scratch> scratch;
  scratch.reserve(workers);
  for (size_t i = 0; i < workers; ++i) scratch.emplace_back(x, y, schedule);

  std::vector<BlockSums> partial(schedule.slots());
  // A tensor of one chunk (most of a network's) is read once for both passes: its runs, gathered
  // from a blocked layout into scratch or pointing at the file's bytes, serve the KL pass too.
  const bool one_chunk = units == 1 && schedule.unit(0).ranges == 1;
  // A pair long enough to release pages as it goes keeps them for the KL pass instead, if it can.
  const bool kl_pass = options.kl && !one_chunk && schedule.slots() >= kChunksPerRelease;
  const KeptPages kept(kl_pass ? x.mapped_bytes() + y.mapped_bytes() : 0);
  const bool release = !kept.held();
  ElementRun one_x[ElementSource::kMaxSiblings], one_y[ElementSource::kMaxSiblings];
  if (one_chunk) {
    const ChunkSchedule::Unit unit = schedule.unit(0);
    read_range(x, y, schedule, unit, 0, scratch[0], one_x, one_y);
    k.accumulate(one_x[0], one_y[0], size_t(unit.count), unit.begin, params, partial[unit.first_slot]);
  } else {
    for_each_chunk(x, y, schedule, scratch, pool, release, [&](size_t slot, uint64_t begin, uint64_t count,
                                                               const ElementRun& xr, const ElementRun& yr) {
      k.accumulate(xr, yr, size_t(count), begin, params, partial[slot]);
    });
  }
  BlockSums total;
  for (const auto& part : partial) merge_block_sums(total, part);

  MetricsResult r;
  r.count = n;
  r.x = side_stats(n, total.mean_x, total.m2_x, total.min_x, total.max_x, total.nan_x, total.pos_inf_x,
                   total.neg_inf_x);
  r.y = side_stats(n, total.mean_y, total.m2_y, total.min_y, total.max_y, total.nan_y, total.pos_inf_y,
                   total.neg_inf_y);

  const double dn = double(n);
  const double sum_xx = total.sum_xx, sum_yy = total.sum_yy, sum_xy = total.sum_xy;

  r.cosine_similarity = cosine(sum_xx, sum_yy, sum_xy, options.scalar_shape, r.notes);
  if (n == 0) r.notes |= kNoteEmpty;
  r.max_absolute_error = n ? total.max_abs_diff : kNaN;
  r.max_absolute_error_index = total.max_abs_diff_index;
  r.accumulated_relative_error = total.sum_rel;
  r.relative_euclidean_distance = std::sqrt(sum_yy) <= kEps64 ? 0.0 : std::sqrt(total.sum_sq_diff / sum_yy);
  r.mean_absolute_error = total.sum_abs_diff / dn;  // 0/0 = NaN for empty input, as numpy's mean
  r.root_mean_square_error = std::sqrt(total.sum_sq_diff / dn);
  r.max_relative_error = n ? total.max_rel : kNaN;
  r.max_relative_error_index = total.max_rel_index;
  r.mean_relative_error = total.sum_rel / dn;  // masked (zero-golden) positions count, as in the reference
  r.sqnr_db = total.sum_sq_diff == 0 ? std::numeric_limits<double>::infinity()
                                     : 10.0 * std::log10(sum_yy / total.sum_sq_diff);
  r.allclose_fraction = n ? double(total.close) / dn : kNaN;
  r.norm_ratio_error = norm_ratio_error(sum_xx, sum_yy);

  if (!options.kl) {
    r.kullback_leibler_divergence = kNaN;
    r.notes |= kNoteKlSkipped;
  } else if (n == 0 || !total.all_finite()) {
    r.kullback_leibler_divergence = kNaN;  // min/max are NaN or infinite: the reference gets nan
  } else {
    KlParams kp;
    kp.lo_x = side_kl_range(total.min_x, total.max_x, kp.scale_x, kp.raw_x);
    kp.lo_y = side_kl_range(total.min_y, total.max_y, kp.scale_y, kp.raw_y);
    std::vector<KlSums> kl_partial(schedule.slots());
    if (one_chunk) {
      const ChunkSchedule::Unit unit = schedule.unit(0);
      k.accumulate_kl(one_x[0], one_y[0], size_t(unit.count), kp, kl_partial[unit.first_slot]);
    } else {
      for_each_chunk(x, y, schedule, scratch, pool, release, [&](size_t slot, uint64_t, uint64_t count,
                                                                 const ElementRun& xr, const ElementRun& yr) {
        k.accumulate_kl(xr, yr, size_t(count), kp, kl_partial[slot]);
      });
    }
    KlSums kl;
    for (const auto& part : kl_partial) {
      kl.sum_a += part.sum_a;
      kl.sum_b += part.sum_b;
      kl.sum_a_log_ratio += part.sum_a_log_ratio;
    }
    // KL(P||Q) with P = a / A, Q = b / B:  sum P ln(P/Q) = C / A + ln(B / A).
    double value = kl.sum_a_log_ratio / kl.sum_a + std::log(kl.sum_b / kl.sum_a);
    if (std::fabs(value) < kEps64) value = 0.0;  // the reference's clean-up of round-off
    if (std::isinf(value)) r.notes |= kNoteKlGoldenZero;
    r.kullback_leibler_divergence = value;
  }
  if (kept.held()) {
    x.release_all();
    y.release_all();
  }
  return r;
}

}  // namespace opdiff
