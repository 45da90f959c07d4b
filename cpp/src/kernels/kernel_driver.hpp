// The block drivers shared by the SIMD kernel files: they cut a run into kKernelBlock blocks, pick
// how each side is read (in place or staged), dispatch to the ISA's block kernels and fall back to
// the exact loop for tails and untrusted blocks.
//
// Each kernel file defines an `Isa` struct and instantiates accumulate<Isa> / accumulate_kl<Isa>.
// The struct provides:
//   LoadF32, LoadF16, LoadBF16      loader types (kBytes, loads of float32-widened vectors)
//   kLanes                          float32 lanes of one pass-1 step (block lengths are rounded down to it)
//   kKlStep                         elements of one KL step
//   widen_bytes(p, i, is_signed, out)        kLanes int8/uint8 at element i to float32
//   widen_to_double<L>(p, i, out)            8 elements at element i to float64
//   block_sums<LX, LY>, find_first<LX, LY>   pass 1 over float32-exact data, and its argmax search
//   block_sums_f64, find_first_f64           pass 1 over float64 data
//   kl_block<LX, LY>                         the KL pass
#pragma once

#include "kernel_common.hpp"

namespace opdiff::kernels {
namespace {  // internal linkage, as kernel_common.hpp explains

enum class Loader { f32, f16, bf16 };

// Calls f(Loader{}) with the ISA's loader type for `kind`.
template <typename Isa, typename F>
decltype(auto) with_loader(Loader kind, F&& f) {
  switch (kind) {
    case Loader::f16:
      return f(typename Isa::LoadF16{});
    case Loader::bf16:
      return f(typename Isa::LoadBF16{});
    default:
      return f(typename Isa::LoadF32{});
  }
}

// Calls f(LoaderX{}, LoaderY{}) with the loader types for the two sides.
template <typename Isa, typename F>
decltype(auto) with_loaders(Loader kx, Loader ky, F&& f) {
  return with_loader<Isa>(kx, [&](auto lx) -> decltype(auto) {
    return with_loader<Isa>(ky, [&](auto ly) -> decltype(auto) { return f(lx, ly); });
  });
}

struct Operand {
  const std::byte* data;
  Loader loader;
};

// Read half, bfloat16 and float32 in place; widen everything else into `staging` first.
template <typename Isa>
Operand stage(const ElementRun& run, size_t n, float* staging) {
  switch (run.dtype) {
    case DType::float32:
      return {run.data, Loader::f32};
    case DType::float16:
      return {run.data, Loader::f16};
    case DType::bfloat16:
      return {run.data, Loader::bf16};
    case DType::int8:
    case DType::uint8: {
      const bool is_signed = run.dtype == DType::int8;
      size_t i = 0;
      for (; i + Isa::kLanes <= n; i += Isa::kLanes) Isa::widen_bytes(run.data, i, is_signed, staging);
      if (i < n) decode_to_float32(advanced(run, i), n - i, staging + i);
      return {reinterpret_cast<const std::byte*>(staging), Loader::f32};
    }
    default:
      decode_to_float32(run, n, staging);
      return {reinterpret_cast<const std::byte*>(staging), Loader::f32};
  }
}

// Both sides as float64 values for the float64 kernels: float64 in place; half, bfloat16 and
// float32 widened with vector conversions; everything else by the decoding table. n is a
// multiple of 8.
template <typename Isa>
const double* widen_to_float64(const ElementRun& run, size_t n, double* staging) {
  if (run.dtype != DType::float32 && run.dtype != DType::float16 && run.dtype != DType::bfloat16)
    return stage_float64(run, n, staging);
  const Loader loader = run.dtype == DType::float32 ? Loader::f32 : run.dtype == DType::float16 ? Loader::f16 : Loader::bf16;
  with_loader<Isa>(loader, [&](auto l) {
    for (size_t i = 0; i < n; i += 8) Isa::template widen_to_double<decltype(l)>(run.data, i, staging);
  });
  return staging;
}

// Pass 1 over n elements starting at flat index `index_base`.
template <typename Isa>
void accumulate(const ElementRun& x, const ElementRun& y, size_t n, uint64_t index_base, const PairParams& params,
                BlockSums& out) {
  static_assert(Isa::kLanes % 8 == 0, "the float64 path widens 8 elements at a time");
  const bool wide = needs_float64(x, y);
  constexpr size_t kStagingFloats = 2 * kKernelBlock;  // room for kKernelBlock doubles
  alignas(64) float x_staging[kStagingFloats];
  alignas(64) float y_staging[kStagingFloats];
  for (size_t done = 0; done < n; done += kKernelBlock) {
    const size_t m = std::min(kKernelBlock, n - done);
    const size_t vector_part = m - m % Isa::kLanes;
    const ElementRun xb = advanced(x, done), yb = advanced(y, done);
    const uint64_t base = index_base + done;
    if (vector_part && wide) {
      const double* xd = widen_to_float64<Isa>(xb, vector_part, reinterpret_cast<double*>(x_staging));
      const double* yd = widen_to_float64<Isa>(yb, vector_part, reinterpret_cast<double*>(y_staging));
      finish_block(Isa::block_sums_f64(xd, yd, vector_part, params), xb, yb, base, params, out,
                   [&](double target, bool relative) { return Isa::find_first_f64(xd, yd, vector_part, target, relative); });
    } else if (vector_part) {
      const Operand xo = stage<Isa>(xb, vector_part, x_staging), yo = stage<Isa>(yb, vector_part, y_staging);
      with_loaders<Isa>(xo.loader, yo.loader, [&](auto lx, auto ly) {
        using LX = decltype(lx);
        using LY = decltype(ly);
        finish_block(Isa::template block_sums<LX, LY>(xo.data, yo.data, vector_part, params), xb, yb, base, params, out,
                     [&](double target, bool relative) {
                       return Isa::template find_first<LX, LY>(xo.data, yo.data, vector_part, float(target), relative);
                     });
      });
    }
    if (m > vector_part)
      accumulate_exact_runs(advanced(xb, vector_part), advanced(yb, vector_part), m - vector_part,
                            base + vector_part, params, out);
  }
}

// Pass 2 (KL divergence) over n elements.
template <typename Isa>
void accumulate_kl(const ElementRun& x, const ElementRun& y, size_t n, const KlParams& params, KlSums& out) {
  if (needs_float64(x, y)) {
    accumulate_kl_exact_runs(x, y, n, params, out);
    return;
  }
  alignas(64) float x_staging[kKernelBlock];
  alignas(64) float y_staging[kKernelBlock];
  for (size_t done = 0; done < n; done += kKernelBlock) {
    const size_t m = std::min(kKernelBlock, n - done);
    const size_t vector_part = m - m % Isa::kKlStep;
    const ElementRun xb = advanced(x, done), yb = advanced(y, done);
    if (vector_part) {
      const Operand xo = stage<Isa>(xb, vector_part, x_staging), yo = stage<Isa>(yb, vector_part, y_staging);
      with_loaders<Isa>(xo.loader, yo.loader, [&](auto lx, auto ly) {
        Isa::template kl_block<decltype(lx), decltype(ly)>(xo.data, yo.data, vector_part, params, out);
      });
    }
    if (m > vector_part)
      accumulate_kl_exact_runs(advanced(xb, vector_part), advanced(yb, vector_part), m - vector_part, params, out);
  }
}

}  // namespace
}  // namespace opdiff::kernels
