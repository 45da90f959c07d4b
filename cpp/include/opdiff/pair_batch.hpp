// Tensor pairs compared in one batch on the core's pool: each side's file comes open (my side) or
// from a TensorFileCache (the partner), both sides are laid out (my tensor in the golden's format
// and shape where asked) and compared through the metric engine. The comparison engine sends the
// pairs of many ops at once, so the per-tensor work runs without the interpreter, and starts the
// next batch while it turns the last one into rows.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "opdiff/metrics.hpp"
#include "opdiff/reference_text.hpp"
#include "opdiff/tensor_file_cache.hpp"
#include "opdiff/tensor_view.hpp"
#include "opdiff/thread_pool.hpp"

namespace opdiff {

struct PairRequest {
  std::shared_ptr<const TensorFile> mine;  // my file, open
  TensorRole role = TensorRole::output;    // my tensor in it
  uint32_t index = 0;
  std::string golden_path;  // its partner
  TensorRole golden_role = TensorRole::output;
  uint32_t golden_index = 0;
  // Lay my tensor out in this format with the golden's shape (a golden file in NCHW, say);
  // unset: each side in its own logical layout (NPU against NPU, or an ND golden).
  std::optional<int64_t> target_format;
  uint64_t max_elements = 0;  // > 0: compare only the first that many elements (-max)
  // My tensor's own logical shape in target_format (its dump's original shape): my tensor is laid
  // out in it and compared with a golden of another shape by element count, where the element
  // order allows (see reconcile_layout). Unset: the golden's shape.
  std::optional<std::vector<uint64_t>> target_shape;
};

enum class PairStatus : uint8_t {
  compared,
  golden_unreadable,        // message: the partner file's error
  my_type_unsupported,      // a side's data type cannot be decoded
  golden_type_unsupported,
  counts_differ,            // the two logical shapes hold different element counts
  order_differs,            // equal counts, but the shapes are not one reshape of the other
  failed,                   // message: what went wrong laying out or reading
};

struct PairOutcome {
  PairStatus status = PairStatus::failed;
  std::string message;
  // The partner tensor's header facts (once its file opened).
  std::optional<DType> golden_dtype;
  int64_t golden_data_type = 0;
  uint64_t golden_address = 0;
  // Logical shapes compared (once both views were built).
  std::vector<uint64_t> my_shape, golden_shape;
  MetricsResult metrics;  // when compared
  std::string reference_text;  // when compared: the reference CSV's text of `metrics` (reference_csv_text)
};

// How my tensor is laid out against a golden of shape `golden`, given my own logical format and
// shape (`mine`, the dump's original shape): the golden's shape when they are equal; mine when the
// two differ only by axes of 1 or by axes merged or split (a reshape folded into a TransData keeps
// the row-major element order, so the tensors compare element by element); the golden's shape in
// the other of NCHW and NHWC when one 4-D shape is that permutation of the other (the reference
// tool flips the golden's format so); nullopt when none holds (the element order may differ).
struct LaidOut {
  int64_t format;
  std::vector<uint64_t> shape;
};
std::optional<LaidOut> reconcile_layout(int64_t format, const std::vector<uint64_t>& mine,
                                        const std::vector<uint64_t>& golden);

// Every metric of x against y: whole tensors, or their first `max_elements` elements (a complex
// element counts once). The files are checked for truncation afterwards.
MetricsResult compare_tensor_views(const TensorView& x, const TensorView& y, MetricsOptions options,
                                   uint64_t max_elements, ThreadPool* pool, size_t threads);

// Pairs compared in the background on `pool`, at most `threads` at once (0 = the pool's size). A
// batch of fewer pairs than threads gives each pair all of them (its chunks split instead).
// Outcomes are in request order and do not depend on the thread count or the scheduling.
// `options.scalar_shape` is decided per pair from my shape.
class PairBatch {
 public:
  PairBatch(std::vector<PairRequest> requests, std::shared_ptr<TensorFileCache> cache, const MetricsOptions& options,
            ThreadPool& pool, size_t threads);

  // See ThreadPool::Batch: work on the batch until it is done or `until` passes.
  bool help_until(ThreadPool::Clock::time_point until) { return batch_.help_until(until); }
  void wait() { batch_.wait(); }
  void cancel() { batch_.cancel(); }
  size_t size() const { return state_->requests.size(); }
  // Once done: one outcome per request (a cancelled batch leaves the pairs it never started failed).
  const std::vector<PairOutcome>& outcomes() const { return state_->outcomes; }

 private:
  struct State {
    std::vector<PairRequest> requests;
    std::shared_ptr<TensorFileCache> cache;
    MetricsOptions options;
    size_t threads_per_pair = 1;
    std::vector<PairOutcome> outcomes;
  };
  static ThreadPool::Batch start(const std::shared_ptr<State>& state, ThreadPool& pool, size_t threads);

  std::shared_ptr<State> state_;  // shared with the running tasks
  ThreadPool::Batch batch_;
};

}  // namespace opdiff
