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

// IEEE 754 binary16, including subnormals, Inf and NaN (payload kept). Branch-free (the selects are
// masks), so that decode loops vectorise: normal, Inf and NaN halves are a shift and a re-bias of
// the exponent; a subnormal or zero half is its mantissa times 2^-24 (exact in float32), signed.
inline float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t magnitude = h & 0x7FFFu;
  const uint32_t special = 0u - uint32_t{magnitude >= 0x7C00u};  // all ones for Inf and NaN
  const uint32_t tiny = 0u - uint32_t{magnitude < 0x400u};       // all ones for subnormals and zero
  const uint32_t widened = (magnitude << 13) + 0x38000000u + (special & 0x38000000u);  // exponent +112, +224
  const uint32_t subnormal = float_to_bits(float(int32_t(magnitude)) * 0x1p-24f);
  return bits_to_float(sign | (subnormal & tiny) | (widened & ~tiny));
}

// Lookup tables for the 8-bit formats (256 float32 values each), built once.
const float* float8_e4m3fn_table();
const float* float8_e5m2_table();
const float* hifloat8_table();

inline float float8_e4m3fn_to_float(uint8_t b) { return float8_e4m3fn_table()[b]; }
inline float float8_e5m2_to_float(uint8_t b) { return float8_e5m2_table()[b]; }
inline float hifloat8_to_float(uint8_t b) { return hifloat8_table()[b]; }

}  // namespace opdiff
