#include "opdiff/simd.hpp"

#include <cstdlib>
#include <utility>
#include <cstdio>

namespace opdiff {
namespace {

struct Candidate {
  const char* name;
  const KernelTable* table;
  bool (*cpu_can_run)();
};

#if defined(OPDIFF_HAVE_X86_KERNELS)
bool cpu_has_avx2() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c") &&
         __builtin_cpu_supports("bmi2");
}
bool cpu_has_avx512() {
  return cpu_has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
}
#endif
bool always() { return true; }

// Best first.
const Candidate kCandidates[] = {
#if defined(OPDIFF_HAVE_X86_KERNELS)
    {"avx512", &kAvx512Kernels, cpu_has_avx512},
    {"avx2", &kAvx2Kernels, cpu_has_avx2},
#endif
    {"scalar", &kScalarKernels, always},
};

const KernelTable& choose() {
  const char* forced = std::getenv("OPDIFF_SIMD");
  if (forced && *forced) {
    if (const KernelTable* table = kernels_by_name(forced)) return *table;
    // An unusable request must not silently run something else: fall back loudly to the best path.
    std::fprintf(stderr, "opdiff: OPDIFF_SIMD=%s is not available on this CPU or build; using the best available\n",
                 forced);
  }
  for (const auto& candidate : kCandidates)
    if (candidate.cpu_can_run()) return *candidate.table;
  return kScalarKernels;
}

}  // namespace

const KernelTable* kernels_by_name(const std::string& name) {
  for (const auto& candidate : kCandidates)
    if (name == candidate.name) return candidate.cpu_can_run() ? candidate.table : nullptr;
  return nullptr;
}

const KernelTable& active_kernels() {
  static const KernelTable& table = choose();
  return table;
}

SimdInfo simd_info() {
  SimdInfo info;
  info.active = active_kernels().name;
  for (const auto& candidate : kCandidates)
    if (candidate.cpu_can_run()) info.supported.emplace_back(candidate.name);
#if defined(__x86_64__) || defined(__i386__)
  // __builtin_cpu_supports needs literals, hence the list of pairs.
  const std::pair<const char*, bool> features[] = {
      {"avx2", __builtin_cpu_supports("avx2")},         {"fma", __builtin_cpu_supports("fma")},
      {"f16c", __builtin_cpu_supports("f16c")},         {"bmi2", __builtin_cpu_supports("bmi2")},
      {"avx512f", __builtin_cpu_supports("avx512f")},   {"avx512bw", __builtin_cpu_supports("avx512bw")},
      {"avx512vl", __builtin_cpu_supports("avx512vl")}, {"avx512dq", __builtin_cpu_supports("avx512dq")},
      {"avx512bf16", __builtin_cpu_supports("avx512bf16")},
  };
  for (const auto& [feature, present] : features)
    if (present) info.cpu_features.emplace_back(feature);
#endif
  if (const char* forced = std::getenv("OPDIFF_SIMD")) info.forced_by = forced;
  return info;
}

}  // namespace opdiff
