#include "opdiff/pair_batch.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "opdiff/ascend_enums.hpp"
#include "opdiff/dump_error.hpp"
#include "opdiff/prefix_source.hpp"

namespace opdiff {
namespace {

// The reference's "scalar" shape: the dims sum to their count ([], [1], [1, 1]).
bool scalar_shape(const std::vector<uint64_t>& shape) {
  return std::accumulate(shape.begin(), shape.end(), uint64_t{0}) == shape.size();
}

// The running products of a shape's dims other than 1: where its row-major rows break.
std::vector<uint64_t> row_breaks(const std::vector<uint64_t>& shape) {
  std::vector<uint64_t> breaks;
  uint64_t product = 1;
  for (uint64_t dim : shape) {
    if (dim == 1) continue;
    product *= dim;
    breaks.push_back(product);
  }
  return breaks;
}

// One shape is the other with axes merged (or split): every break of the coarser is a break of the
// finer, so both read their elements in the same order.
bool one_reshape_apart(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  const std::vector<uint64_t> x = row_breaks(a), y = row_breaks(b);
  const auto& coarse = x.size() <= y.size() ? x : y;
  const auto& fine = x.size() <= y.size() ? y : x;
  return std::includes(fine.begin(), fine.end(), coarse.begin(), coarse.end());
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
      if (request.target_shape) {
        out.golden_shape = golden_view.shape();
        const auto laid_out = reconcile_layout(*request.target_format, *request.target_shape, golden_view.shape());
        if (!laid_out) {
          out.my_shape = *request.target_shape;
          out.status = PairStatus::order_differs;
          return;
        }
        target.format = laid_out->format;
        target.shape = laid_out->shape;
      }
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
    out.reference_text = reference_csv_text(reference_cells(out.metrics));  // here, not on the interpreter's thread
    out.status = PairStatus::compared;
  } catch (const std::exception& error) {  // DumpFormatError, or the engine's invalid_argument
    out.status = PairStatus::failed;
    out.message = error.what();
  }
}

}  // namespace

std::optional<LaidOut> reconcile_layout(int64_t format, const std::vector<uint64_t>& mine,
                                        const std::vector<uint64_t>& golden) {
  const uint64_t mine_count = checked_element_count(mine), golden_count = checked_element_count(golden);
  if (mine == golden || golden_count == 0) return LaidOut{format, golden};
  // Different counts: laid out in my shape, so the row says which counts differ.
  if (mine_count != golden_count || one_reshape_apart(mine, golden)) return LaidOut{format, mine};
  const int64_t nchw = static_cast<int64_t>(AscendFormat::NCHW), nhwc = static_cast<int64_t>(AscendFormat::NHWC);
  if ((format == nchw || format == nhwc) && mine.size() == 4 && golden.size() == 4) {
    // NCHW [n,c,h,w] is NHWC [n,h,w,c]: the golden holds my tensor in the other order.
    const std::vector<uint64_t> other = format == nchw ? std::vector<uint64_t>{mine[0], mine[2], mine[3], mine[1]}
                                                       : std::vector<uint64_t>{mine[0], mine[3], mine[1], mine[2]};
    if (other == golden) return LaidOut{format == nchw ? nhwc : nchw, golden};
  }
  return std::nullopt;
}

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
