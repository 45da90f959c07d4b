// 16 x 16 transposes of 2-byte elements for the layout gather, on 256-bit registers. One 16 x 16
// block is a whole C0 group of 16 positions of an fp16 NC1HWC0 tensor: half the loads of the SSE2
// 8 x 8 blocks, whole-row stores. Included by the AVX2 and the AVX-512 kernel files only, each of
// which puts it in its kernel table. Everything here has internal linkage: each kernel object keeps
// its own copy and exports no code, so no AVX instruction can run outside the dispatch
// (tools/check_baseline_isa.py checks both).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace opdiff {
namespace {

// Rows 0..7 of a block: the SSE2 8 x 8 scheme on both 128-bit lanes at once. After it, out[c]
// holds column c of the 8 rows in its low lane and column c + 8 in its high lane.
inline void transpose_8x16(const __m256i* r, __m256i* out) {
  __m256i t[8], u[8];
  for (int k = 0; k < 4; ++k) {
    t[2 * k] = _mm256_unpacklo_epi16(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm256_unpackhi_epi16(r[2 * k], r[2 * k + 1]);
  }
  for (int k = 0; k < 2; ++k) {
    u[4 * k] = _mm256_unpacklo_epi32(t[4 * k], t[4 * k + 2]);
    u[4 * k + 1] = _mm256_unpackhi_epi32(t[4 * k], t[4 * k + 2]);
    u[4 * k + 2] = _mm256_unpacklo_epi32(t[4 * k + 1], t[4 * k + 3]);
    u[4 * k + 3] = _mm256_unpackhi_epi32(t[4 * k + 1], t[4 * k + 3]);
  }
  for (int c = 0; c < 4; ++c) {
    out[2 * c] = _mm256_unpacklo_epi64(u[c], u[c + 4]);
    out[2 * c + 1] = _mm256_unpackhi_epi64(u[c], u[c + 4]);
  }
}

inline void transpose_16x16(const std::byte* from, uint64_t stride_bytes, std::byte* to, uint64_t row_bytes) {
  __m256i r[16], low[8], high[8];
  for (int k = 0; k < 16; ++k) r[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from + k * stride_bytes));
  transpose_8x16(r, low);
  transpose_8x16(r + 8, high);
  auto store = [&](int k, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(to + k * row_bytes), v); };
  for (int c = 0; c < 8; ++c) {
    store(c, _mm256_permute2x128_si256(low[c], high[c], 0x20));
    store(c + 8, _mm256_permute2x128_si256(low[c], high[c], 0x31));
  }
}

void transpose16_blocks_avx2(const std::byte* from, uint64_t stride_bytes, uint64_t blocks, std::byte* to,
                             uint64_t row_bytes) {
  for (uint64_t b = 0; b < blocks; ++b, from += 16 * stride_bytes, to += 32)
    transpose_16x16(from, stride_bytes, to, row_bytes);
}

}  // namespace
}  // namespace opdiff
