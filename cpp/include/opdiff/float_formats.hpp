// Scalar decoding of the narrow float formats (IEEE half, bfloat16, float8, HiFloat8) to float32.
// SIMD kernels have their own fast paths for half and bfloat16; these are the definitions they must match.
#pragma once

#include <cstdint>
#include <cstring>

namespace opdiff {

inline float bits_to_float(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint32_t float_to_bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

inline float bfloat16_to_float(uint16_t h) { return bits_to_float(uint32_t{h} << 16); }

// IEEE 754 binary16, including subnormals, Inf and NaN (payload kept).
inline float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1F) return bits_to_float(sign | 0x7F800000u | (mantissa << 13));
  if (exponent != 0) return bits_to_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return bits_to_float(sign);
  // Subnormal: normalise into float32's range.
  int shift = 0;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    ++shift;
  }
  mantissa &= 0x3FFu;
  return bits_to_float(sign | (uint32_t(113 - shift) << 23) | (mantissa << 13));
}

// Lookup tables for the 8-bit formats (256 float32 values each), built once.
const float* float8_e4m3fn_table();
const float* float8_e5m2_table();
const float* hifloat8_table();

inline float float8_e4m3fn_to_float(uint8_t b) { return float8_e4m3fn_table()[b]; }
inline float float8_e5m2_to_float(uint8_t b) { return float8_e5m2_table()[b]; }
inline float hifloat8_to_float(uint8_t b) { return hifloat8_table()[b]; }

}  // namespace opdiff
