// Square register transposes for the layout gather: `rows` contiguous stored elements at each of
// `rows` positions `stride` elements apart become `rows` output rows of `rows` elements each. SSE2
// is part of every x86-64 target, so no dispatch is needed; elsewhere the gather's scalar loop
// serves (kTransposeBlock* = 0).
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
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
#else
inline constexpr unsigned kTransposeBlock16 = 0;
inline constexpr unsigned kTransposeBlock32 = 0;
inline void transpose_block16(const std::byte*, uint64_t, std::byte*, uint64_t) {}
inline void transpose_block32(const std::byte*, uint64_t, std::byte*, uint64_t) {}
#endif

}  // namespace opdiff
