// Square register transposes for the layout gather: `rows` contiguous stored elements at each of
// `rows` positions `stride` elements apart become `rows` output rows of `rows` elements each. SSE2
// is part of every x86-64 target and Advanced SIMD of every AArch64 one, so no dispatch is needed;
// elsewhere the gather's scalar loop serves (kTransposeBlock* = 0). Wider blocks that need a
// dispatched ISA (AVX2's 16 x 16, kernels/transpose_avx2.hpp) come from the kernel table.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#endif

namespace opdiff {

#if defined(__SSE2__)
inline constexpr unsigned kTransposeBlock16 = 8;  // 8 x 8 of 2-byte elements
inline constexpr unsigned kTransposeBlock32 = 4;  // 4 x 4 of 4-byte elements

inline void transpose_block16(const std::byte* from, uint64_t stride_bytes, std::byte* to, uint64_t row_bytes) {
  auto load = [&](int k) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + k * stride_bytes)); };
  const __m128i r0 = load(0), r1 = load(1), r2 = load(2), r3 = load(3);
  const __m128i r4 = load(4), r5 = load(5), r6 = load(6), r7 = load(7);
  const __m128i t0 = _mm_unpacklo_epi16(r0, r1), t1 = _mm_unpackhi_epi16(r0, r1);
  const __m128i t2 = _mm_unpacklo_epi16(r2, r3), t3 = _mm_unpackhi_epi16(r2, r3);
  const __m128i t4 = _mm_unpacklo_epi16(r4, r5), t5 = _mm_unpackhi_epi16(r4, r5);
  const __m128i t6 = _mm_unpacklo_epi16(r6, r7), t7 = _mm_unpackhi_epi16(r6, r7);
  const __m128i u0 = _mm_unpacklo_epi32(t0, t2), u1 = _mm_unpackhi_epi32(t0, t2);
  const __m128i u2 = _mm_unpacklo_epi32(t1, t3), u3 = _mm_unpackhi_epi32(t1, t3);
  const __m128i u4 = _mm_unpacklo_epi32(t4, t6), u5 = _mm_unpackhi_epi32(t4, t6);
  const __m128i u6 = _mm_unpacklo_epi32(t5, t7), u7 = _mm_unpackhi_epi32(t5, t7);
  auto store = [&](int k, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(to + k * row_bytes), v); };
  store(0, _mm_unpacklo_epi64(u0, u4));
  store(1, _mm_unpackhi_epi64(u0, u4));
  store(2, _mm_unpacklo_epi64(u1, u5));
  store(3, _mm_unpackhi_epi64(u1, u5));
  store(4, _mm_unpacklo_epi64(u2, u6));
  store(5, _mm_unpackhi_epi64(u2, u6));
  store(6, _mm_unpacklo_epi64(u3, u7));
  store(7, _mm_unpackhi_epi64(u3, u7));
}

inline void transpose_block32(const std::byte* from, uint64_t stride_bytes, std::byte* to, uint64_t row_bytes) {
  auto load = [&](int k) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + k * stride_bytes)); };
  const __m128i r0 = load(0), r1 = load(1), r2 = load(2), r3 = load(3);
  const __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpackhi_epi32(r0, r1);
  const __m128i t2 = _mm_unpacklo_epi32(r2, r3), t3 = _mm_unpackhi_epi32(r2, r3);
  auto store = [&](int k, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(to + k * row_bytes), v); };
  store(0, _mm_unpacklo_epi64(t0, t2));
  store(1, _mm_unpackhi_epi64(t0, t2));
  store(2, _mm_unpacklo_epi64(t1, t3));
  store(3, _mm_unpackhi_epi64(t1, t3));
}
#elif defined(__aarch64__) && defined(__ARM_NEON)
inline constexpr unsigned kTransposeBlock16 = 8;  // 8 x 8 of 2-byte elements
inline constexpr unsigned kTransposeBlock32 = 4;  // 4 x 4 of 4-byte elements

// Three rounds of TRN1/TRN2 on 16-, 32- and 64-bit lanes: after round k, lane pairs of width 2^k
// elements hold the same column of 2^k consecutive rows.
inline void transpose_block16(const std::byte* from, uint64_t stride_bytes, std::byte* to, uint64_t row_bytes) {
  auto load = [&](int k) { return vld1q_u16(reinterpret_cast<const uint16_t*>(from + k * stride_bytes)); };
  uint16x8_t r[8];
  for (int k = 0; k < 8; ++k) r[k] = load(k);
  uint32x4_t a[8];
  for (int k = 0; k < 8; k += 2) {
    a[k] = vreinterpretq_u32_u16(vtrn1q_u16(r[k], r[k + 1]));      // columns 0, 2, 4, 6 of rows k, k+1
    a[k + 1] = vreinterpretq_u32_u16(vtrn2q_u16(r[k], r[k + 1]));  // columns 1, 3, 5, 7
  }
  uint64x2_t b[8];
  for (int k = 0; k < 8; k += 4) {
    b[k] = vreinterpretq_u64_u32(vtrn1q_u32(a[k], a[k + 2]));          // columns 0, 4 of rows k..k+3
    b[k + 1] = vreinterpretq_u64_u32(vtrn1q_u32(a[k + 1], a[k + 3]));  // columns 1, 5
    b[k + 2] = vreinterpretq_u64_u32(vtrn2q_u32(a[k], a[k + 2]));      // columns 2, 6
    b[k + 3] = vreinterpretq_u64_u32(vtrn2q_u32(a[k + 1], a[k + 3]));  // columns 3, 7
  }
  auto store = [&](int k, uint64x2_t v) { vst1q_u64(reinterpret_cast<uint64_t*>(to + k * row_bytes), v); };
  for (int c = 0; c < 4; ++c) {
    store(c, vtrn1q_u64(b[c], b[c + 4]));
    store(c + 4, vtrn2q_u64(b[c], b[c + 4]));
  }
}

inline void transpose_block32(const std::byte* from, uint64_t stride_bytes, std::byte* to, uint64_t row_bytes) {
  auto load = [&](int k) { return vld1q_u32(reinterpret_cast<const uint32_t*>(from + k * stride_bytes)); };
  const uint32x4_t r0 = load(0), r1 = load(1), r2 = load(2), r3 = load(3);
  const uint64x2_t t0 = vreinterpretq_u64_u32(vtrn1q_u32(r0, r1)), t1 = vreinterpretq_u64_u32(vtrn2q_u32(r0, r1));
  const uint64x2_t t2 = vreinterpretq_u64_u32(vtrn1q_u32(r2, r3)), t3 = vreinterpretq_u64_u32(vtrn2q_u32(r2, r3));
  auto store = [&](int k, uint64x2_t v) { vst1q_u64(reinterpret_cast<uint64_t*>(to + k * row_bytes), v); };
  store(0, vtrn1q_u64(t0, t2));
  store(1, vtrn1q_u64(t1, t3));
  store(2, vtrn2q_u64(t0, t2));
  store(3, vtrn2q_u64(t1, t3));
}
#else
inline constexpr unsigned kTransposeBlock16 = 0;
inline constexpr unsigned kTransposeBlock32 = 0;
inline void transpose_block16(const std::byte*, uint64_t, std::byte*, uint64_t) {}
inline void transpose_block32(const std::byte*, uint64_t, std::byte*, uint64_t) {}
#endif

}  // namespace opdiff
