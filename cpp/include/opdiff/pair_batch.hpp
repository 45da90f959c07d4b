// The tensors of one op against their partners, in one call: each partner file comes from a
// TensorFileCache, both sides are laid out (my tensor in the golden's format and shape where
// asked) and compared through the metric engine. The comparison engine sends an op's pairs here
// at once, so the per-tensor work runs without the interpreter.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "opdiff/metrics.hpp"
#include "opdiff/tensor_file_cache.hpp"
#include "opdiff/tensor_view.hpp"
#include "opdiff/thread_pool.hpp"

namespace opdiff {

struct PairRequest {
  TensorRole role = TensorRole::output;  // my tensor
  uint32_t index = 0;
  std::string golden_path;  // its partner
  TensorRole golden_role = TensorRole::output;
  uint32_t golden_index = 0;
  // Lay my tensor out in this format with the golden's shape (a golden file in NCHW, say);
  // unset: each side in its own logical layout (NPU against NPU, or an ND golden).
  std::optional<int64_t> target_format;
  uint64_t max_elements = 0;  // > 0: compare only the first that many elements (-max)
};

enum class PairStatus : uint8_t {
  compared,
  golden_unreadable,        // message: the partner file's error
  my_type_unsupported,      // a side's data type cannot be decoded
  golden_type_unsupported,
  counts_differ,            // the two logical shapes hold different element counts
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
  MetricsResult metrics;
};

// Every metric of x against y: whole tensors, or their first `max_elements` elements (a complex
// element counts once). The files are checked for truncation afterwards.
MetricsResult compare_tensor_views(const TensorView& x, const TensorView& y, MetricsOptions options,
                                   uint64_t max_elements, ThreadPool* pool, size_t threads);

// One outcome per request, in order. `options.scalar_shape` is decided per pair from my shape.
std::vector<PairOutcome> compare_pairs(const std::shared_ptr<const TensorFile>& mine,
                                       const std::vector<PairRequest>& requests, TensorFileCache& cache,
                                       const MetricsOptions& options, ThreadPool* pool, size_t threads);

}  // namespace opdiff
