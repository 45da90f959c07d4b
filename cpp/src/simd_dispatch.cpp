#include "opdiff/simd.hpp"

#include <cstdio>
#include <cstdlib>
#include <utility>

#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

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
#if defined(OPDIFF_HAVE_NEON_KERNELS)
// ASIMD is part of the AArch64 baseline; Linux still says so in HWCAP, so ask rather than assume.
bool cpu_has_neon() {
#if defined(__linux__)
  return (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
#else
  return true;
#endif
}
#endif
bool always() { return true; }

// Best first.
const Candidate kCandidates[] = {
#if defined(OPDIFF_HAVE_X86_KERNELS)
    {"avx512", &kAvx512Kernels, cpu_has_avx512},
    {"avx2", &kAvx2Kernels, cpu_has_avx2},
#endif
#if defined(OPDIFF_HAVE_NEON_KERNELS)
    {"neon", &kNeonKernels, cpu_has_neon},
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
#elif defined(__aarch64__) && defined(__linux__)
  // What the kernels could use: asimd (the NEON path), and what a later path might (half-precision
  // arithmetic, dot products, SVE).
  const unsigned long hwcap = getauxval(AT_HWCAP);
  const std::pair<const char*, unsigned long> features[] = {
      {"asimd", HWCAP_ASIMD}, {"fphp", HWCAP_FPHP}, {"asimdhp", HWCAP_ASIMDHP},
      {"asimddp", HWCAP_ASIMDDP}, {"sve", HWCAP_SVE},
  };
  for (const auto& [feature, bit] : features)
    if (hwcap & bit) info.cpu_features.emplace_back(feature);
#endif
  if (const char* forced = std::getenv("OPDIFF_SIMD")) info.forced_by = forced;
  return info;
}

}  // namespace opdiff
