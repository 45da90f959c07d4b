#include "opdiff/float_formats.hpp"

#include <array>
#include <cmath>
#include <limits>

namespace opdiff {
namespace {

using Table = std::array<float, 256>;

// OCP FP8 E4M3FN: bias 7, subnormals, no infinities, S.1111.111 is NaN.
// (The reference tool has no NaN case and decodes 0x7F as 480; we follow the format.)
Table make_e4m3fn() {
  Table t{};
  for (int b = 0; b < 256; ++b) {
    const int exponent = (b >> 3) & 0xF;
    const int mantissa = b & 0x7;
    float magnitude;
    if (exponent == 0xF && mantissa == 0x7)
      magnitude = std::numeric_limits<float>::quiet_NaN();
    else if (exponent == 0)
      magnitude = std::ldexp(float(mantissa) / 8.0f, -6);
    else
      magnitude = std::ldexp(1.0f + float(mantissa) / 8.0f, exponent - 7);
    t[b] = (b & 0x80) ? -magnitude : magnitude;
  }
  return t;
}

// OCP FP8 E5M2: bias 15, IEEE-like Inf and NaN at exponent 31.
Table make_e5m2() {
  Table t{};
  for (int b = 0; b < 256; ++b) {
    const int exponent = (b >> 2) & 0x1F;
    const int mantissa = b & 0x3;
    float magnitude;
    if (exponent == 0x1F)
      magnitude = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else if (exponent == 0)
      magnitude = std::ldexp(float(mantissa) / 4.0f, -14);
    else
      magnitude = std::ldexp(1.0f + float(mantissa) / 4.0f, exponent - 15);
    t[b] = (b & 0x80) ? -magnitude : magnitude;
  }
  return t;
}

// Ascend HiFloat8 (Luo et al., arXiv 2409.16626): sign, a prefix-coded dot field D telling how many
// exponent bits follow, a sign-magnitude exponent with an implicit top magnitude bit, then the mantissa.
// Decoded by the paper; the reference tool uses 5-D mantissa bits for every D (differs for D = 0, 1)
// and maps 0xEF to +Inf.
float hifloat8_magnitude(int r) {  // r = the 7 bits below the sign
  int dot, mantissa_bits, rest_bits;
  if ((r >> 5) == 0x3) {
    dot = 4, mantissa_bits = 1, rest_bits = 5;
  } else if ((r >> 5) == 0x2) {
    dot = 3, mantissa_bits = 2, rest_bits = 5;
  } else if ((r >> 5) == 0x1) {
    dot = 2, mantissa_bits = 3, rest_bits = 5;
  } else if ((r >> 4) == 0x1) {
    dot = 1, mantissa_bits = 3, rest_bits = 4;
  } else if ((r >> 3) == 0x1) {
    dot = 0, mantissa_bits = 3, rest_bits = 3;
  } else {
    return std::ldexp(1.0f, (r & 0x7) - 23);  // denormal: 2^(m - 23), m = 1..7 (m = 0 handled by caller)
  }
  const int rest = r & ((1 << rest_bits) - 1);
  const int mantissa = rest & ((1 << mantissa_bits) - 1);
  const int exponent_field = rest >> mantissa_bits;  // dot bits: sign then dot-1 magnitude bits
  int exponent = 0;
  if (dot >= 1) {
    const int magnitude = exponent_field & ((1 << (dot - 1)) - 1);
    const bool negative = (exponent_field >> (dot - 1)) & 1;
    exponent = (1 << (dot - 1)) + magnitude;
    if (negative) exponent = -exponent;
  }
  return std::ldexp(1.0f + float(mantissa) / float(1 << mantissa_bits), exponent);
}

Table make_hifloat8() {
  Table t{};
  for (int b = 0; b < 256; ++b) {
    const int r = b & 0x7F;
    float magnitude = r == 0 ? 0.0f : hifloat8_magnitude(r);
    t[b] = (b & 0x80) ? -magnitude : magnitude;
  }
  t[0x80] = std::numeric_limits<float>::quiet_NaN();
  t[0x6F] = std::numeric_limits<float>::infinity();
  t[0xEF] = -std::numeric_limits<float>::infinity();
  return t;
}

}  // namespace

const float* float8_e4m3fn_table() {
  static const Table table = make_e4m3fn();
  return table.data();
}
const float* float8_e5m2_table() {
  static const Table table = make_e5m2();
  return table.data();
}
const float* hifloat8_table() {
  static const Table table = make_hifloat8();
  return table.data();
}

}  // namespace opdiff
