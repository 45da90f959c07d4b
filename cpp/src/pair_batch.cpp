#include "opdiff/pair_batch.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "opdiff/dump_error.hpp"
#include "opdiff/prefix_source.hpp"

namespace opdiff {
namespace {

// The reference's "scalar" shape: the dims sum to their count ([], [1], [1, 1]).
bool scalar_shape(const std::vector<uint64_t>& shape) {
  return std::accumulate(shape.begin(), shape.end(), uint64_t{0}) == shape.size();
}

void compare_one(const PairRequest& request, TensorFileCache& cache, MetricsOptions options, ThreadPool* pool,
                 size_t threads, PairOutcome& out) {
  const std::shared_ptr<const TensorFile>& mine = request.mine;
  std::shared_ptr<const TensorFile> golden;
  const TensorEntry* golden_entry = nullptr;
  try {
    golden = cache.get(request.golden_path);
    golden_entry = &golden->find(request.golden_role, request.golden_index);
  } catch (const DumpFormatError& error) {
    out.status = PairStatus::golden_unreadable;
    out.message = error.what();
    return;
  }
  out.golden_dtype = golden_entry->dtype;
  out.golden_data_type = golden_entry->header.data_type;
  out.golden_address = golden_entry->header.address;
  if (!mine->find(request.role, request.index).dtype) {
    out.status = PairStatus::my_type_unsupported;
    return;
  }
  if (!golden_entry->dtype) {
    out.status = PairStatus::golden_type_unsupported;
    return;
  }
  try {
    const TensorView golden_view = make_tensor_view(golden, request.golden_role, request.golden_index, {});
    TargetSpec target;
    if (request.target_format) {
      target.format = request.target_format;
      target.shape = golden_view.shape();
    }
    const TensorView my_view = make_tensor_view(mine, request.role, request.index, target);
    out.my_shape = my_view.shape();
    out.golden_shape = golden_view.shape();
    if (my_view.source->logical_count() != golden_view.source->logical_count()) {
      out.status = PairStatus::counts_differ;
      return;
    }
    options.scalar_shape = scalar_shape(out.my_shape);
    out.metrics = compare_tensor_views(my_view, golden_view, options, request.max_elements, pool, threads);
    out.status = PairStatus::compared;
  } catch (const std::exception& error) {  // DumpFormatError, or the engine's invalid_argument
    out.status = PairStatus::failed;
    out.message = error.what();
  }
}

}  // namespace

MetricsResult compare_tensor_views(const TensorView& x, const TensorView& y, MetricsOptions options,
                                   uint64_t max_elements, ThreadPool* pool, size_t threads) {
  if (x.source->size() != y.source->size())
    throw std::invalid_argument("element counts differ: " + std::to_string(x.source->size()) + " vs " +
                                std::to_string(y.source->size()));
  // -max counts elements; a complex element is two components.
  const uint64_t size = x.source->size(), logical = x.source->logical_count();
  const uint64_t components = logical ? size / logical : 1;
  const bool whole = max_elements == 0 || max_elements >= size / components;
  const uint64_t limit = whole ? size : max_elements * components;
  const PrefixSource x_prefix(*x.source, limit), y_prefix(*y.source, limit);
  // Whole tensors go in unwrapped (nothing to cut off).
  const ElementSource& x_source = whole ? *x.source : static_cast<const ElementSource&>(x_prefix);
  const ElementSource& y_source = whole ? *y.source : static_cast<const ElementSource&>(y_prefix);
  MetricsResult result = compute_metrics(x_source, y_source, options, pool, threads);
  x.file->check_intact();
  y.file->check_intact();
  return result;
}

PairBatch::PairBatch(std::vector<PairRequest> requests, std::shared_ptr<TensorFileCache> cache,
                     const MetricsOptions& options, ThreadPool& pool, size_t threads)
    : state_(std::make_shared<State>(State{std::move(requests), std::move(cache), options, 1, {}})),
      batch_(start(state_, pool, threads)) {}

ThreadPool::Batch PairBatch::start(const std::shared_ptr<State>& state, ThreadPool& pool, size_t threads) {
  const size_t workers = threads == 0 ? pool.size() : std::min(threads, pool.size());
  if (!state->cache) throw std::invalid_argument("a pair batch needs a file cache for the partners");
  for (const PairRequest& request : state->requests)
    if (!request.mine) throw std::invalid_argument("a pair request has no open file for my side");
  state->outcomes.resize(state->requests.size());
  // Pairs side by side, one thread each; fewer pairs than threads (one huge pair) split their chunks.
  state->threads_per_pair = state->requests.size() >= workers ? 1 : workers;
  return pool.start(state->requests.size(), workers, [state, &pool](size_t i, size_t) {
    compare_one(state->requests[i], *state->cache, state->options, &pool, state->threads_per_pair, state->outcomes[i]);
  });
}

}  // namespace opdiff
