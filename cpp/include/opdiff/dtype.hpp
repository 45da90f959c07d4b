// Element types opdiff reads, and the one table that describes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace opdiff {

// opdiff's own numbering (not Ascend's DT_* numbers; the dump reader maps those).
enum class DType : uint8_t {
  float64,
  float32,
  float16,
  bfloat16,
  float8_e4m3fn,
  float8_e5m2,
  hifloat8,
  int4,  // packed two per byte, low nibble first
  int8,
  uint8,
  int16,
  uint16,
  int32,
  uint32,
  int64,
  uint64,
  boolean,
  complex64,   // compared as interleaved float32 (re, im)
  complex128,  // compared as interleaved float64 (re, im)
};

inline constexpr int kDTypeCount = 19;

// How the metric kernels see a dtype's values.
enum class Precision : uint8_t {
  exact_in_float32,  // every value is exactly a float32: the fast float32 kernels apply
  needs_float64,     // float64 and wide integers: the float64 kernels apply
};

struct DTypeInfo {
  DType dtype;
  std::string_view name;  // numpy / ml_dtypes name
  uint8_t bits;           // storage bits per element (4 for int4)
  uint8_t components;     // 2 for complex, else 1
  DType component;        // element type of one component (float32 for complex64)
  Precision precision;
};

const DTypeInfo& dtype_info(DType dtype);
std::optional<DType> dtype_from_name(std::string_view name);

inline std::string_view dtype_name(DType dtype) { return dtype_info(dtype).name; }

// Bytes taken by `count` elements (int4 rounds up to whole bytes).
inline uint64_t storage_bytes(DType dtype, uint64_t count) {
  return (count * dtype_info(dtype).bits + 7) / 8;
}

}  // namespace opdiff
