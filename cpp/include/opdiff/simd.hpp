// Which kernel table runs: chosen once from the CPU's features (CPUID on x86-64, HWCAP on aarch64),
// or forced with OPDIFF_SIMD=scalar|avx2|avx512|neon.
#pragma once

#include <string>
#include <vector>

#include "opdiff/kernels.hpp"

namespace opdiff {

struct SimdInfo {
  std::string active;                  // "scalar", "avx2", "avx512" or "neon"
  std::vector<std::string> supported;  // every path this CPU can run
  std::vector<std::string> cpu_features;
  std::string forced_by;               // value of OPDIFF_SIMD when set, else empty
};

const KernelTable& active_kernels();
// The table for a named path, or nullptr when this CPU (or build) cannot run it.
const KernelTable* kernels_by_name(const std::string& name);
SimdInfo simd_info();

}  // namespace opdiff
