// AVX2 + FMA + F16C kernels. Compiled with -mavx2 -mfma -mf16c; only called when CPUID says so.
// Same scheme as the AVX-512 kernels (kernel_common.hpp), on 8 float / 4 double lanes.
#include <immintrin.h>

#include "kernel_driver.hpp"
#include "transpose_avx2.hpp"

namespace opdiff {
namespace {

using namespace kernels;

// Loaders: 8 consecutive elements at element index i, widened to float32.
struct LoadF32 {
  static constexpr size_t kBytes = 4;
  static __m256 load8(const std::byte* p, size_t i) { return _mm256_loadu_ps(reinterpret_cast<const float*>(p) + i); }
};
struct LoadF16 {
  static constexpr size_t kBytes = 2;
  static __m256 load8(const std::byte* p, size_t i) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * i)));
  }
};
struct LoadBF16 {  // bfloat16 is the top half of a float32: widening is a shift
  static constexpr size_t kBytes = 2;
  static __m256 load8(const std::byte* p, size_t i) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * i));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
};

inline __m256d low_pd(__m256 v) { return _mm256_cvtps_pd(_mm256_castps256_ps128(v)); }
inline __m256d high_pd(__m256 v) { return _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)); }
inline __m256d widen_sum(__m256 v) { return _mm256_add_pd(low_pd(v), high_pd(v)); }
inline __m256 abs_ps(__m256 v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }

inline double reduce_add(__m256d v) {
  const __m128d pair = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  return _mm_cvtsd_f64(_mm_add_sd(pair, _mm_unpackhi_pd(pair, pair)));
}
template <typename Op>
float reduce_ps(__m256 v, Op op) {
  __m128 q = op(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  q = op(q, _mm_movehl_ps(q, q));
  q = op(q, _mm_shuffle_ps(q, q, 1));
  return _mm_cvtss_f32(q);
}
inline float reduce_max(__m256 v) { return reduce_ps(v, [](__m128 a, __m128 b) { return _mm_max_ps(a, b); }); }
inline float reduce_min(__m256 v) { return reduce_ps(v, [](__m128 a, __m128 b) { return _mm_min_ps(a, b); }); }

// |x - y| / |y| where |y| > 2^-52, else 0 (the division by a zero golden is masked out).
inline __m256 relative_error(__m256 abs_diff, __m256 abs_y) {
  const __m256 nonzero_golden = _mm256_cmp_ps(abs_y, _mm256_set1_ps(kRelativeEpsF32), _CMP_GT_OQ);
  return _mm256_and_ps(nonzero_golden, _mm256_div_ps(abs_diff, abs_y));
}

inline __m256d abs_pd(__m256d v) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), v); }

inline double reduce_pd(__m256d v, __m128d (*op)(__m128d, __m128d)) {
  const __m128d pair = op(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  return _mm_cvtsd_f64(op(pair, _mm_unpackhi_pd(pair, pair)));
}

// |x - y| / |y| where |y| > 2^-52, else 0, in double.
inline __m256d relative_error_pd(__m256d abs_diff, __m256d abs_y) {
  const __m256d nonzero_golden = _mm256_cmp_pd(abs_y, _mm256_set1_pd(kEps64), _CMP_GT_OQ);
  return _mm256_and_pd(nonzero_golden, _mm256_div_pd(abs_diff, abs_y));
}

// Double vectors for kernel_common.hpp's series.
struct F64Ops {
  using V = __m256d;
  static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V splat(double value) { return _mm256_set1_pd(value); }
};

// Natural log of positive, finite, normal doubles (|error| < 5e-12 absolute).
inline __m256d log_pd(__m256d q, const LogTable& table) {
  const __m256i bits = _mm256_castpd_si256(q);
  // Exponent as a double without AVX-512's int64 conversion: 2^52 + e via the bit pattern.
  const __m256i biased = _mm256_or_si256(_mm256_srli_epi64(bits, 52), _mm256_set1_epi64x(0x4330000000000000LL));
  const __m256d exponent = _mm256_sub_pd(_mm256_castsi256_pd(biased), _mm256_set1_pd(4503599627370496.0 + 1023.0));
  const __m256d mantissa = _mm256_castsi256_pd(_mm256_or_si256(
      _mm256_and_si256(bits, _mm256_set1_epi64x(0x000FFFFFFFFFFFFFLL)), _mm256_set1_epi64x(0x3FF0000000000000LL)));
  const __m256i index = _mm256_and_si256(_mm256_srli_epi64(bits, 48), _mm256_set1_epi64x(0xF));
  const __m256d inv_c = _mm256_i64gather_pd(table.inv_c, index, 8);
  const __m256d log_c = _mm256_i64gather_pd(table.log_c, index, 8);
  const __m256d r = _mm256_fmsub_pd(mantissa, inv_c, _mm256_set1_pd(1.0));
  return _mm256_fmadd_pd(exponent, _mm256_set1_pd(kLn2), _mm256_add_pd(log_c, log1p_series<F64Ops>(r)));
}

// ln q for the KL pass: the series on q - 1 straight away when every lane is near 1
// (kLogNearOne), else the table path (whose gathers are most of its cost).
inline __m256d log_ratio(__m256d q, const LogTable& table) {
  const __m256d r = _mm256_sub_pd(q, _mm256_set1_pd(1.0));
  const __m256d near = _mm256_cmp_pd(abs_pd(r), _mm256_set1_pd(kLogNearOne), _CMP_LT_OQ);
  if (_mm256_movemask_pd(near) == 0xF) return log1p_series<F64Ops>(r);
  return log_pd(q, table);
}

// The AVX2 block kernels, driven by kernel_driver.hpp.
struct Avx2 {
  using LoadF32 = opdiff::LoadF32;
  using LoadF16 = opdiff::LoadF16;
  using LoadBF16 = opdiff::LoadBF16;
  static constexpr size_t kLanes = 8;
  static constexpr size_t kKlStep = 8;

  static void widen_bytes(const std::byte* p, size_t i, bool is_signed, float* out) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + i));
    const __m256i wide = is_signed ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
    _mm256_storeu_ps(out + i, _mm256_cvtepi32_ps(wide));
  }
  template <typename L>
  static void widen_to_double(const std::byte* p, size_t i, double* out) {
    const __m256 v = L::load8(p, i);
    _mm256_storeu_pd(out + i, low_pd(v));
    _mm256_storeu_pd(out + i + 4, high_pd(v));
  }

  // Pass 1 over n elements (a multiple of 8, at most kKernelBlock) of float32-exact data.
  template <typename LX, typename LY>
  static RawBlock block_sums(const std::byte* xp, const std::byte* yp, size_t n, const PairParams& params) {
    RawBlock r;
    r.count = n;
    const __m256 rtol = _mm256_set1_ps(float(params.rtol)), atol = _mm256_set1_ps(float(params.atol));

    __m256d s1x0 = _mm256_setzero_pd(), s1x1 = s1x0, s1y0 = s1x0, s1y1 = s1x0;
    __m256d s2x0 = s1x0, s2x1 = s1x0, s2y0 = s1x0, s2y1 = s1x0, sxy0 = s1x0, sxy1 = s1x0;
    __m256d abs_sum = s1x0, sq_sum = s1x0, rel_sum = s1x0;
    __m256 max_abs = _mm256_setzero_ps(), max_rel = max_abs;
    __m256 min_x = _mm256_set1_ps(HUGE_VALF), max_x = _mm256_set1_ps(-HUGE_VALF), min_y = min_x, max_y = max_x;
    uint64_t close = 0;

    constexpr size_t kGroup = 8 * 8;  // float32 partial sums span at most 8 vectors
    for (size_t group = 0; group < n; group += kGroup) {
      __m256 abs_part = _mm256_setzero_ps(), sq_part = abs_part, rel_part = abs_part;
      const size_t end = std::min(n, group + kGroup);
      for (size_t i = group; i < end; i += 8) {
        const __m256 x = LX::load8(xp, i), y = LY::load8(yp, i);
        prefetch_ahead(xp, i, LX::kBytes);
        prefetch_ahead(yp, i, LY::kBytes);

        const __m256d xl = low_pd(x), xh = high_pd(x);
        const __m256d yl = low_pd(y), yh = high_pd(y);
        s1x0 = _mm256_add_pd(s1x0, xl);
        s1x1 = _mm256_add_pd(s1x1, xh);
        s1y0 = _mm256_add_pd(s1y0, yl);
        s1y1 = _mm256_add_pd(s1y1, yh);
        s2x0 = _mm256_fmadd_pd(xl, xl, s2x0);
        s2x1 = _mm256_fmadd_pd(xh, xh, s2x1);
        s2y0 = _mm256_fmadd_pd(yl, yl, s2y0);
        s2y1 = _mm256_fmadd_pd(yh, yh, s2y1);
        sxy0 = _mm256_fmadd_pd(xl, yl, sxy0);
        sxy1 = _mm256_fmadd_pd(xh, yh, sxy1);

        const __m256 diff = _mm256_sub_ps(x, y);
        const __m256 abs_diff = abs_ps(diff);
        const __m256 abs_y = abs_ps(y);
        abs_part = _mm256_add_ps(abs_part, abs_diff);
        sq_part = _mm256_fmadd_ps(diff, diff, sq_part);
        max_abs = _mm256_max_ps(abs_diff, max_abs);

        const __m256 rel = relative_error(abs_diff, abs_y);
        rel_part = _mm256_add_ps(rel_part, rel);
        max_rel = _mm256_max_ps(rel, max_rel);

        min_x = _mm256_min_ps(x, min_x);
        max_x = _mm256_max_ps(x, max_x);
        min_y = _mm256_min_ps(y, min_y);
        max_y = _mm256_max_ps(y, max_y);

        const __m256 is_close = _mm256_cmp_ps(abs_diff, _mm256_fmadd_ps(rtol, abs_y, atol), _CMP_LE_OQ);
        close += _mm_popcnt_u32(uint32_t(_mm256_movemask_ps(is_close)));
      }
      abs_sum = _mm256_add_pd(abs_sum, widen_sum(abs_part));
      sq_sum = _mm256_add_pd(sq_sum, widen_sum(sq_part));
      rel_sum = _mm256_add_pd(rel_sum, widen_sum(rel_part));
    }

    r.s1x = reduce_add(_mm256_add_pd(s1x0, s1x1));
    r.s1y = reduce_add(_mm256_add_pd(s1y0, s1y1));
    r.s2x = reduce_add(_mm256_add_pd(s2x0, s2x1));
    r.s2y = reduce_add(_mm256_add_pd(s2y0, s2y1));
    r.sxy = reduce_add(_mm256_add_pd(sxy0, sxy1));
    r.sum_abs_diff = reduce_add(abs_sum);
    r.sum_sq_diff = reduce_add(sq_sum);
    r.sum_rel = reduce_add(rel_sum);
    r.max_abs_diff = reduce_max(max_abs);
    r.max_rel = reduce_max(max_rel);
    r.min_x = reduce_min(min_x);
    r.max_x = reduce_max(max_x);
    r.min_y = reduce_min(min_y);
    r.max_y = reduce_max(max_y);
    r.close = close;
    return r;
  }

  // First position in the block whose |x - y| (relative = false) or relative error equals `target`,
  // recomputed exactly as block_sums computes it.
  template <typename LX, typename LY>
  static size_t find_first(const std::byte* xp, const std::byte* yp, size_t n, float target, bool relative) {
    const __m256 want = _mm256_set1_ps(target);
    for (size_t i = 0; i < n; i += 8) {
      const __m256 x = LX::load8(xp, i), y = LY::load8(yp, i);
      __m256 value = abs_ps(_mm256_sub_ps(x, y));
      if (relative) value = relative_error(value, abs_ps(y));
      const int hits = _mm256_movemask_ps(_mm256_cmp_ps(value, want, _CMP_EQ_OQ));
      if (hits) return i + size_t(__builtin_ctz(unsigned(hits)));
    }
    return 0;  // unreachable: target is one of the block's values
  }

  // Pass 1 over n float64 values (a multiple of 8, at most kKernelBlock): for float64 and wide
  // integers, whose values float32 cannot hold.
  static RawBlock block_sums_f64(const double* xp, const double* yp, size_t n, const PairParams& params) {
    RawBlock r;
    r.count = n;
    const __m256d rtol = _mm256_set1_pd(params.rtol), atol = _mm256_set1_pd(params.atol);
    __m256d s1x = _mm256_setzero_pd(), s1y = s1x, s2x = s1x, s2y = s1x, sxy = s1x;
    __m256d abs_sum = s1x, sq_sum = s1x, rel_sum = s1x, max_abs = s1x, max_rel = s1x;
    __m256d min_x = _mm256_set1_pd(HUGE_VAL), max_x = _mm256_set1_pd(-HUGE_VAL), min_y = min_x, max_y = max_x;
    uint64_t close = 0;
    for (size_t i = 0; i < n; i += 4) {
      const __m256d x = _mm256_loadu_pd(xp + i), y = _mm256_loadu_pd(yp + i);
      prefetch_ahead(xp, i, sizeof(double));
      prefetch_ahead(yp, i, sizeof(double));
      s1x = _mm256_add_pd(s1x, x);
      s1y = _mm256_add_pd(s1y, y);
      s2x = _mm256_fmadd_pd(x, x, s2x);
      s2y = _mm256_fmadd_pd(y, y, s2y);
      sxy = _mm256_fmadd_pd(x, y, sxy);
      const __m256d diff = _mm256_sub_pd(x, y);
      const __m256d abs_diff = abs_pd(diff), abs_y = abs_pd(y);
      abs_sum = _mm256_add_pd(abs_sum, abs_diff);
      sq_sum = _mm256_fmadd_pd(diff, diff, sq_sum);
      max_abs = _mm256_max_pd(abs_diff, max_abs);
      const __m256d rel = relative_error_pd(abs_diff, abs_y);
      rel_sum = _mm256_add_pd(rel_sum, rel);
      max_rel = _mm256_max_pd(rel, max_rel);
      min_x = _mm256_min_pd(x, min_x);
      max_x = _mm256_max_pd(x, max_x);
      min_y = _mm256_min_pd(y, min_y);
      max_y = _mm256_max_pd(y, max_y);
      const __m256d is_close = _mm256_cmp_pd(abs_diff, _mm256_fmadd_pd(rtol, abs_y, atol), _CMP_LE_OQ);
      close += _mm_popcnt_u32(uint32_t(_mm256_movemask_pd(is_close)));
    }
    r.s1x = reduce_add(s1x);
    r.s1y = reduce_add(s1y);
    r.s2x = reduce_add(s2x);
    r.s2y = reduce_add(s2y);
    r.sxy = reduce_add(sxy);
    r.sum_abs_diff = reduce_add(abs_sum);
    r.sum_sq_diff = reduce_add(sq_sum);
    r.sum_rel = reduce_add(rel_sum);
    r.max_abs_diff = reduce_pd(max_abs, _mm_max_pd);
    r.max_rel = reduce_pd(max_rel, _mm_max_pd);
    r.min_x = reduce_pd(min_x, _mm_min_pd);
    r.max_x = reduce_pd(max_x, _mm_max_pd);
    r.min_y = reduce_pd(min_y, _mm_min_pd);
    r.max_y = reduce_pd(max_y, _mm_max_pd);
    r.close = close;
    return r;
  }

  static size_t find_first_f64(const double* xp, const double* yp, size_t n, double target, bool relative) {
    const __m256d want = _mm256_set1_pd(target);
    for (size_t i = 0; i < n; i += 4) {
      const __m256d x = _mm256_loadu_pd(xp + i), y = _mm256_loadu_pd(yp + i);
      __m256d value = abs_pd(_mm256_sub_pd(x, y));
      if (relative) value = relative_error_pd(value, abs_pd(y));
      const int hits = _mm256_movemask_pd(_mm256_cmp_pd(value, want, _CMP_EQ_OQ));
      if (hits) return i + size_t(__builtin_ctz(unsigned(hits)));
    }
    return 0;  // unreachable: target is one of the block's values
  }

  template <typename LX, typename LY>
  static void kl_block(const std::byte* xp, const std::byte* yp, size_t n, const KlParams& kp, KlSums& out) {
    const LogTable& table = log_table();
    // Constant sides use raw values: (v - 0) * 1.
    // a = (x - lo) * scale as one FMA: x * scale - lo * scale.
    const __m256d scale_x = _mm256_set1_pd(kp.raw_x ? 1.0 : kp.scale_x), offset_x = _mm256_set1_pd(kp.raw_x ? 0.0 : kp.lo_x * kp.scale_x);
    const __m256d scale_y = _mm256_set1_pd(kp.raw_y ? 1.0 : kp.scale_y), offset_y = _mm256_set1_pd(kp.raw_y ? 0.0 : kp.lo_y * kp.scale_y);
    const __m256d floor = _mm256_set1_pd(kEps32);
    __m256d sum_a = _mm256_setzero_pd(), sum_b = sum_a, sum_c = sum_a;
    for (size_t i = 0; i < n; i += 8) {
      const __m256 xs = LX::load8(xp, i), ys = LY::load8(yp, i);
      prefetch_ahead(xp, i, LX::kBytes);
      prefetch_ahead(yp, i, LY::kBytes);
      for (int half = 0; half < 2; ++half) {
        const __m256d xv = half ? high_pd(xs) : low_pd(xs), yv = half ? high_pd(ys) : low_pd(ys);
        const __m256d a = _mm256_max_pd(_mm256_fmsub_pd(xv, scale_x, offset_x), floor);
        const __m256d b = _mm256_max_pd(_mm256_fmsub_pd(yv, scale_y, offset_y), floor);
        sum_a = _mm256_add_pd(sum_a, a);
        sum_b = _mm256_add_pd(sum_b, b);
        sum_c = _mm256_fmadd_pd(a, log_ratio(_mm256_div_pd(a, b), table), sum_c);
      }
    }
    out.sum_a += reduce_add(sum_a);
    out.sum_b += reduce_add(sum_b);
    out.sum_a_log_ratio += reduce_add(sum_c);
  }
};

}  // namespace

const KernelTable kAvx2Kernels = {"avx2", kernels::accumulate<Avx2>, kernels::accumulate_kl<Avx2>,
                                   transpose16_blocks_avx2};

}  // namespace opdiff
