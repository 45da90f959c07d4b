// The portable path: decode to double and run the exact reference loops. Runs anywhere. (The same
// loops are the SIMD kernels' fallback, in kernel_common.hpp.)
#include "kernel_common.hpp"

namespace opdiff {

const KernelTable kScalarKernels = {"scalar", kernels::accumulate_exact_runs, kernels::accumulate_kl_exact_runs,
                                     nullptr};

}  // namespace opdiff
