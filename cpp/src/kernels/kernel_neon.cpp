// AArch64 Advanced SIMD (NEON, ARMv8.0 baseline: every aarch64 CPU has it) kernels. Compiled with
// -march=armv8-a; chosen when the kernel's HWCAP says ASIMD. Same scheme as the x86 kernels
// (kernel_common.hpp) on 128-bit registers: one step is 8 elements, held as two float32x4 halves,
// moments in float64x2. half -> float32 is FCVTL/FCVTL2 (no FP16 arithmetic needed), bfloat16 a
// shift. Nothing here computes in float16: ARMv8.2 FP16 arithmetic would not pay, since every
// metric needs float32 or float64 precision anyway.
#include <arm_neon.h>

#include "kernel_driver.hpp"

namespace opdiff {
namespace {

using namespace kernels;

// 8 elements widened to float32, as two halves.
struct F8 {
  float32x4_t lo, hi;
};

// Loaders: 8 consecutive elements at element index i, widened to float32.
struct LoadF32 {
  static constexpr size_t kBytes = 4;
  static F8 load8(const std::byte* p, size_t i) {
    const float* f = reinterpret_cast<const float*>(p) + i;
    return {vld1q_f32(f), vld1q_f32(f + 4)};
  }
};
struct LoadF16 {
  static constexpr size_t kBytes = 2;
  static F8 load8(const std::byte* p, size_t i) {
    const float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(reinterpret_cast<const uint16_t*>(p) + i));
    return {vcvt_f32_f16(vget_low_f16(h)), vcvt_high_f32_f16(h)};
  }
};
struct LoadBF16 {  // bfloat16 is the top half of a float32: widening is a shift
  static constexpr size_t kBytes = 2;
  static F8 load8(const std::byte* p, size_t i) {
    const uint16x8_t h = vld1q_u16(reinterpret_cast<const uint16_t*>(p) + i);
    return {vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(h), 16)), vreinterpretq_f32_u32(vshll_high_n_u16(h, 16))};
  }
};

inline float64x2_t low_pd(float32x4_t v) { return vcvt_f64_f32(vget_low_f32(v)); }
inline float64x2_t high_pd(float32x4_t v) { return vcvt_high_f64_f32(v); }
inline float64x2_t widen_sum(float32x4_t v) { return vaddq_f64(low_pd(v), high_pd(v)); }

// |x - y| / |y| where |y| > 2^-52, else 0. The mask is used as a float: all ones is a quiet NaN,
// which FMINNM passes over (giving the quotient), and zero bits are +0, the minimum of +0 and any
// quotient here (>= 0, +Inf, or NaN for 0 / 0). One FP instruction where an AND would be an integer
// one, which the Kunpeng 920 (TSV110) issues to both of its FP/SIMD pipes.
inline float32x4_t relative_error(float32x4_t abs_diff, float32x4_t abs_y) {
  const float32x4_t keep = vreinterpretq_f32_u32(vcgtq_f32(abs_y, vdupq_n_f32(kRelativeEpsF32)));
  return vminnmq_f32(keep, vdivq_f32(abs_diff, abs_y));
}
inline float64x2_t relative_error_pd(float64x2_t abs_diff, float64x2_t abs_y) {
  const uint64x2_t nonzero_golden = vcgtq_f64(abs_y, vdupq_n_f64(kEps64));
  return vreinterpretq_f64_u64(vandq_u64(nonzero_golden, vreinterpretq_u64_f64(vdivq_f64(abs_diff, abs_y))));
}

// Double vectors for kernel_common.hpp's series (NEON's fused step is c + a * b).
struct F64Ops {
  using V = float64x2_t;
  static V fma(V a, V b, V c) { return vfmaq_f64(c, a, b); }
  static V mul(V a, V b) { return vmulq_f64(a, b); }
  static V splat(double value) { return vdupq_n_f64(value); }
};

// Natural log of positive, finite, normal doubles (|error| < 5e-12 absolute). NEON has no gather:
// the two table entries are loaded by lane.
inline float64x2_t log_pd(float64x2_t q, const LogTable& table) {
  const uint64x2_t bits = vreinterpretq_u64_f64(q);
  const float64x2_t exponent = vsubq_f64(vcvtq_f64_u64(vshrq_n_u64(bits, 52)), vdupq_n_f64(1023.0));
  const float64x2_t mantissa = vreinterpretq_f64_u64(
      vorrq_u64(vandq_u64(bits, vdupq_n_u64(0x000FFFFFFFFFFFFFULL)), vdupq_n_u64(0x3FF0000000000000ULL)));
  const uint64x2_t index = vandq_u64(vshrq_n_u64(bits, 48), vdupq_n_u64(0xF));
  const uint64_t i0 = vgetq_lane_u64(index, 0), i1 = vgetq_lane_u64(index, 1);
  const float64x2_t inv_c = vcombine_f64(vld1_f64(table.inv_c + i0), vld1_f64(table.inv_c + i1));
  const float64x2_t log_c = vcombine_f64(vld1_f64(table.log_c + i0), vld1_f64(table.log_c + i1));
  // r = mantissa * inv_c - 1 with one rounding: -(1 - mantissa * inv_c).
  const float64x2_t r = vnegq_f64(vfmsq_f64(vdupq_n_f64(1.0), mantissa, inv_c));
  return vfmaq_f64(vaddq_f64(log_c, log1p_series<F64Ops>(r)), exponent, vdupq_n_f64(kLn2));
}

// ln q for the KL pass: the series on q - 1 straight away when both lanes are near 1
// (kLogNearOne), else the table path (whose lane-by-lane lookups are most of its cost).
inline float64x2_t log_ratio(float64x2_t q, const LogTable& table) {
  const float64x2_t r = vsubq_f64(q, vdupq_n_f64(1.0));
  if (vmaxvq_f64(vabsq_f64(r)) < kLogNearOne) return log1p_series<F64Ops>(r);
  return log_pd(q, table);
}

// The position of the first lane of `values` (n of them) equal to `target`, or n.
template <typename T, size_t N>
size_t first_equal(const T (&values)[N], T target) {
  for (size_t k = 0; k < N; ++k)
    if (values[k] == target) return k;
  return N;
}

// The NEON block kernels, driven by kernel_driver.hpp.
struct Neon {
  using LoadF32 = opdiff::LoadF32;
  using LoadF16 = opdiff::LoadF16;
  using LoadBF16 = opdiff::LoadBF16;
  static constexpr size_t kLanes = 8;
  static constexpr size_t kKlStep = 8;

  static void widen_bytes(const std::byte* p, size_t i, bool is_signed, float* out) {
    const uint8x8_t bytes = vld1_u8(reinterpret_cast<const uint8_t*>(p) + i);
    int32x4_t lo, hi;
    if (is_signed) {
      const int16x8_t wide = vmovl_s8(vreinterpret_s8_u8(bytes));
      lo = vmovl_s16(vget_low_s16(wide));
      hi = vmovl_high_s16(wide);
    } else {
      const uint16x8_t wide = vmovl_u8(bytes);
      lo = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(wide)));
      hi = vreinterpretq_s32_u32(vmovl_high_u16(wide));
    }
    vst1q_f32(out + i, vcvtq_f32_s32(lo));
    vst1q_f32(out + i + 4, vcvtq_f32_s32(hi));
  }
  template <typename L>
  static void widen_to_double(const std::byte* p, size_t i, double* out) {
    const F8 v = L::load8(p, i);
    vst1q_f64(out + i, low_pd(v.lo));
    vst1q_f64(out + i + 2, high_pd(v.lo));
    vst1q_f64(out + i + 4, low_pd(v.hi));
    vst1q_f64(out + i + 6, high_pd(v.hi));
  }

  // Pass 1 over n elements (a multiple of 8, at most kKernelBlock) of float32-exact data. Out of
  // line: one call per block costs nothing, and tools/mca_aarch64.py finds its loop by name.
  template <typename LX, typename LY>
  [[gnu::noinline]] static RawBlock block_sums(const std::byte* xp, const std::byte* yp, size_t n, const PairParams& params) {
    RawBlock r;
    r.count = n;
    const float32x4_t rtol = vdupq_n_f32(float(params.rtol)), atol = vdupq_n_f32(float(params.atol));

    // One accumulator per sum: 32 registers hold them all without spilling, and each add chain
    // (4 dependent adds a step) is still shorter than a step's throughput.
    const float64x2_t zero = vdupq_n_f64(0);
    float64x2_t s1x = zero, s1y = zero, s2x = zero, s2y = zero, sxy = zero;
    float64x2_t abs_sum = zero, sq_sum = zero, rel_sum = zero;
    float32x4_t max_abs = vdupq_n_f32(0), max_rel = max_abs;
    float32x4_t min_x = vdupq_n_f32(HUGE_VALF), max_x = vdupq_n_f32(-HUGE_VALF), min_y = min_x, max_y = max_x;
    uint32x4_t close = vdupq_n_u32(0);

    constexpr size_t kGroup = 4 * 8;  // float32 partial sums: 4 steps of two halves, 8 terms a lane
    for (size_t group = 0; group < n; group += kGroup) {
      float32x4_t abs_part = vdupq_n_f32(0), sq_part = abs_part, rel_part = abs_part;
      const size_t end = std::min(n, group + kGroup);
      for (size_t i = group; i < end; i += 8) {
        const F8 x = LX::load8(xp, i), y = LY::load8(yp, i);
        prefetch_ahead(xp, i, LX::kBytes);
        prefetch_ahead(yp, i, LY::kBytes);

        const float64x2_t x0 = low_pd(x.lo), x1 = high_pd(x.lo), x2 = low_pd(x.hi), x3 = high_pd(x.hi);
        const float64x2_t y0 = low_pd(y.lo), y1 = high_pd(y.lo), y2 = low_pd(y.hi), y3 = high_pd(y.hi);
        s1x = vaddq_f64(vaddq_f64(vaddq_f64(vaddq_f64(s1x, x0), x1), x2), x3);
        s1y = vaddq_f64(vaddq_f64(vaddq_f64(vaddq_f64(s1y, y0), y1), y2), y3);
        // float32 products are exact in double: fused or not, the same sums.
        s2x = vfmaq_f64(vfmaq_f64(vfmaq_f64(vfmaq_f64(s2x, x0, x0), x1, x1), x2, x2), x3, x3);
        s2y = vfmaq_f64(vfmaq_f64(vfmaq_f64(vfmaq_f64(s2y, y0, y0), y1, y1), y2, y2), y3, y3);
        sxy = vfmaq_f64(vfmaq_f64(vfmaq_f64(vfmaq_f64(sxy, x0, y0), x1, y1), x2, y2), x3, y3);

        // FABD: |x - y| in one instruction, and (x - y)^2 = |x - y|^2.
        const float32x4_t abs_diff_lo = vabdq_f32(x.lo, y.lo), abs_diff_hi = vabdq_f32(x.hi, y.hi);
        const float32x4_t abs_y_lo = vabsq_f32(y.lo), abs_y_hi = vabsq_f32(y.hi);
        abs_part = vaddq_f32(vaddq_f32(abs_part, abs_diff_lo), abs_diff_hi);
        sq_part = vfmaq_f32(vfmaq_f32(sq_part, abs_diff_lo, abs_diff_lo), abs_diff_hi, abs_diff_hi);
        max_abs = vmaxq_f32(max_abs, vmaxq_f32(abs_diff_lo, abs_diff_hi));

        const float32x4_t rel_l = relative_error(abs_diff_lo, abs_y_lo), rel_h = relative_error(abs_diff_hi, abs_y_hi);
        rel_part = vaddq_f32(vaddq_f32(rel_part, rel_l), rel_h);
        max_rel = vmaxq_f32(max_rel, vmaxq_f32(rel_l, rel_h));

        min_x = vminq_f32(min_x, vminq_f32(x.lo, x.hi));
        max_x = vmaxq_f32(max_x, vmaxq_f32(x.lo, x.hi));
        min_y = vminq_f32(min_y, vminq_f32(y.lo, y.hi));
        max_y = vmaxq_f32(max_y, vmaxq_f32(y.lo, y.hi));

        // atol + rtol |y| unfused: a fused multiply-add overwrites an operand, which then needs a
        // copy, and a register copy is an integer instruction (both FP/SIMD pipes on TSV110).
        // A true lane is all ones (-1 as an integer): subtracting the two halves' masks counts them.
        const uint32x4_t close_lo = vcleq_f32(abs_diff_lo, vaddq_f32(atol, vmulq_f32(rtol, abs_y_lo)));
        const uint32x4_t close_hi = vcleq_f32(abs_diff_hi, vaddq_f32(atol, vmulq_f32(rtol, abs_y_hi)));
        close = vsubq_u32(vsubq_u32(close, close_lo), close_hi);
      }
      abs_sum = vaddq_f64(abs_sum, widen_sum(abs_part));
      sq_sum = vaddq_f64(sq_sum, widen_sum(sq_part));
      rel_sum = vaddq_f64(rel_sum, widen_sum(rel_part));
    }

    r.s1x = vaddvq_f64(s1x);
    r.s1y = vaddvq_f64(s1y);
    r.s2x = vaddvq_f64(s2x);
    r.s2y = vaddvq_f64(s2y);
    r.sxy = vaddvq_f64(sxy);
    r.sum_abs_diff = vaddvq_f64(abs_sum);
    r.sum_sq_diff = vaddvq_f64(sq_sum);
    r.sum_rel = vaddvq_f64(rel_sum);
    r.max_abs_diff = vmaxvq_f32(max_abs);
    r.max_rel = vmaxvq_f32(max_rel);
    r.min_x = vminvq_f32(min_x);
    r.max_x = vmaxvq_f32(max_x);
    r.min_y = vminvq_f32(min_y);
    r.max_y = vmaxvq_f32(max_y);
    r.close = vaddvq_u32(close);
    return r;
  }

  // First position in the block whose |x - y| (relative = false) or relative error equals `target`,
  // recomputed exactly as block_sums computes it.
  template <typename LX, typename LY>
  static size_t find_first(const std::byte* xp, const std::byte* yp, size_t n, float target, bool relative) {
    for (size_t i = 0; i < n; i += 8) {
      const F8 x = LX::load8(xp, i), y = LY::load8(yp, i);
      float32x4_t lo = vabdq_f32(x.lo, y.lo), hi = vabdq_f32(x.hi, y.hi);
      if (relative) {
        lo = relative_error(lo, vabsq_f32(y.lo));
        hi = relative_error(hi, vabsq_f32(y.hi));
      }
      const uint32x4_t hits = vorrq_u32(vceqq_f32(lo, vdupq_n_f32(target)), vceqq_f32(hi, vdupq_n_f32(target)));
      if (vmaxvq_u32(hits)) {
        float values[8];
        vst1q_f32(values, lo);
        vst1q_f32(values + 4, hi);
        return i + first_equal(values, target);
      }
    }
    return 0;  // unreachable: target is one of the block's values
  }

  // Pass 1 over n float64 values (a multiple of 8, at most kKernelBlock): for float64 and wide
  // integers, whose values float32 cannot hold.
  static RawBlock block_sums_f64(const double* xp, const double* yp, size_t n, const PairParams& params) {
    RawBlock r;
    r.count = n;
    const float64x2_t rtol = vdupq_n_f64(params.rtol), atol = vdupq_n_f64(params.atol);
    const float64x2_t zero = vdupq_n_f64(0);
    float64x2_t s1x = zero, s1y = zero, s2x = zero, s2y = zero, sxy = zero;
    float64x2_t abs_sum = zero, sq_sum = zero, rel_sum = zero, max_abs = zero, max_rel = zero;
    float64x2_t min_x = vdupq_n_f64(HUGE_VAL), max_x = vdupq_n_f64(-HUGE_VAL), min_y = min_x, max_y = max_x;
    uint64x2_t close = vdupq_n_u64(0);
    for (size_t i = 0; i < n; i += 2) {
      const float64x2_t x = vld1q_f64(xp + i), y = vld1q_f64(yp + i);
      prefetch_ahead(xp, i, sizeof(double));
      prefetch_ahead(yp, i, sizeof(double));
      s1x = vaddq_f64(s1x, x);
      s1y = vaddq_f64(s1y, y);
      s2x = vfmaq_f64(s2x, x, x);
      s2y = vfmaq_f64(s2y, y, y);
      sxy = vfmaq_f64(sxy, x, y);
      const float64x2_t diff = vsubq_f64(x, y);
      const float64x2_t abs_diff = vabsq_f64(diff), abs_y = vabsq_f64(y);
      abs_sum = vaddq_f64(abs_sum, abs_diff);
      sq_sum = vfmaq_f64(sq_sum, diff, diff);
      max_abs = vmaxq_f64(max_abs, abs_diff);
      const float64x2_t rel = relative_error_pd(abs_diff, abs_y);
      rel_sum = vaddq_f64(rel_sum, rel);
      max_rel = vmaxq_f64(max_rel, rel);
      min_x = vminq_f64(min_x, x);
      max_x = vmaxq_f64(max_x, x);
      min_y = vminq_f64(min_y, y);
      max_y = vmaxq_f64(max_y, y);
      close = vsubq_u64(close, vcleq_f64(abs_diff, vfmaq_f64(atol, rtol, abs_y)));
    }
    r.s1x = vaddvq_f64(s1x);
    r.s1y = vaddvq_f64(s1y);
    r.s2x = vaddvq_f64(s2x);
    r.s2y = vaddvq_f64(s2y);
    r.sxy = vaddvq_f64(sxy);
    r.sum_abs_diff = vaddvq_f64(abs_sum);
    r.sum_sq_diff = vaddvq_f64(sq_sum);
    r.sum_rel = vaddvq_f64(rel_sum);
    r.max_abs_diff = vmaxvq_f64(max_abs);
    r.max_rel = vmaxvq_f64(max_rel);
    r.min_x = vminvq_f64(min_x);
    r.max_x = vmaxvq_f64(max_x);
    r.min_y = vminvq_f64(min_y);
    r.max_y = vmaxvq_f64(max_y);
    r.close = vaddvq_u64(close);
    return r;
  }

  static size_t find_first_f64(const double* xp, const double* yp, size_t n, double target, bool relative) {
    for (size_t i = 0; i < n; i += 2) {
      const float64x2_t x = vld1q_f64(xp + i), y = vld1q_f64(yp + i);
      float64x2_t value = vabsq_f64(vsubq_f64(x, y));
      if (relative) value = relative_error_pd(value, vabsq_f64(y));
      if (vmaxvq_u32(vreinterpretq_u32_u64(vceqq_f64(value, vdupq_n_f64(target))))) {
        double values[2];
        vst1q_f64(values, value);
        return i + first_equal(values, target);
      }
    }
    return 0;  // unreachable: target is one of the block's values
  }

  template <typename LX, typename LY>
  static void kl_block(const std::byte* xp, const std::byte* yp, size_t n, const KlParams& kp, KlSums& out) {
    const LogTable& table = log_table();
    // Constant sides use raw values: (v - 0) * 1. a = (x - lo) * scale as one fused step,
    // x * scale - lo * scale, written -(lo * scale - x * scale) since NEON fuses a - b * c.
    const float64x2_t scale_x = vdupq_n_f64(kp.raw_x ? 1.0 : kp.scale_x), offset_x = vdupq_n_f64(kp.raw_x ? 0.0 : kp.lo_x * kp.scale_x);
    const float64x2_t scale_y = vdupq_n_f64(kp.raw_y ? 1.0 : kp.scale_y), offset_y = vdupq_n_f64(kp.raw_y ? 0.0 : kp.lo_y * kp.scale_y);
    const float64x2_t floor = vdupq_n_f64(kEps32);
    float64x2_t sum_a = vdupq_n_f64(0), sum_b = sum_a, sum_c = sum_a;
    for (size_t i = 0; i < n; i += 8) {
      const F8 xs = LX::load8(xp, i), ys = LY::load8(yp, i);
      prefetch_ahead(xp, i, LX::kBytes);
      prefetch_ahead(yp, i, LY::kBytes);
      const float64x2_t xv[4] = {low_pd(xs.lo), high_pd(xs.lo), low_pd(xs.hi), high_pd(xs.hi)};
      const float64x2_t yv[4] = {low_pd(ys.lo), high_pd(ys.lo), low_pd(ys.hi), high_pd(ys.hi)};
      for (int k = 0; k < 4; ++k) {
        const float64x2_t a = vmaxq_f64(vnegq_f64(vfmsq_f64(offset_x, xv[k], scale_x)), floor);
        const float64x2_t b = vmaxq_f64(vnegq_f64(vfmsq_f64(offset_y, yv[k], scale_y)), floor);
        sum_a = vaddq_f64(sum_a, a);
        sum_b = vaddq_f64(sum_b, b);
        sum_c = vfmaq_f64(sum_c, a, log_ratio(vdivq_f64(a, b), table));
      }
    }
    out.sum_a += vaddvq_f64(sum_a);
    out.sum_b += vaddvq_f64(sum_b);
    out.sum_a_log_ratio += vaddvq_f64(sum_c);
  }
};

}  // namespace

const KernelTable kNeonKernels = {"neon", kernels::accumulate<Neon>, kernels::accumulate_kl<Neon>, nullptr};

}  // namespace opdiff
