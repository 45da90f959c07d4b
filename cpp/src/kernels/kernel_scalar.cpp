// The portable path: decode to double and run the exact reference loops. Runs anywhere.
#include <algorithm>

#include "opdiff/decode.hpp"
#include "opdiff/kernels.hpp"

namespace opdiff {
namespace {

void accumulate(const ElementRun& x, const ElementRun& y, size_t n, uint64_t index_base, const PairParams& params,
                BlockSums& out) {
  double xs[kKernelBlock], ys[kKernelBlock];
  for (size_t done = 0; done < n; done += kKernelBlock) {
    const size_t m = std::min(kKernelBlock, n - done);
    decode_to_float64(advanced(x, done), m, xs);
    decode_to_float64(advanced(y, done), m, ys);
    accumulate_exact(xs, ys, m, index_base + done, params, out);
  }
}

void accumulate_kl(const ElementRun& x, const ElementRun& y, size_t n, const KlParams& params, KlSums& out) {
  double xs[kKernelBlock], ys[kKernelBlock];
  for (size_t done = 0; done < n; done += kKernelBlock) {
    const size_t m = std::min(kKernelBlock, n - done);
    decode_to_float64(advanced(x, done), m, xs);
    decode_to_float64(advanced(y, done), m, ys);
    accumulate_kl_exact(xs, ys, m, params, out);
  }
}

}  // namespace

const KernelTable kScalarKernels = {"scalar", accumulate, accumulate_kl};

}  // namespace opdiff
