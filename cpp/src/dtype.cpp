#include "opdiff/dtype.hpp"

#include <array>

namespace opdiff {
namespace {

using P = Precision;

// Indexed by DType; the single source of dtype facts for the core.
constexpr std::array<DTypeInfo, kDTypeCount> kTable = {{
    {DType::float64, "float64", 64, 1, DType::float64, P::needs_float64},
    {DType::float32, "float32", 32, 1, DType::float32, P::exact_in_float32},
    {DType::float16, "float16", 16, 1, DType::float16, P::exact_in_float32},
    {DType::bfloat16, "bfloat16", 16, 1, DType::bfloat16, P::exact_in_float32},
    {DType::float8_e4m3fn, "float8_e4m3fn", 8, 1, DType::float8_e4m3fn, P::exact_in_float32},
    {DType::float8_e5m2, "float8_e5m2", 8, 1, DType::float8_e5m2, P::exact_in_float32},
    {DType::hifloat8, "hifloat8", 8, 1, DType::hifloat8, P::exact_in_float32},
    {DType::int4, "int4", 4, 1, DType::int4, P::exact_in_float32},
    {DType::int8, "int8", 8, 1, DType::int8, P::exact_in_float32},
    {DType::uint8, "uint8", 8, 1, DType::uint8, P::exact_in_float32},
    {DType::int16, "int16", 16, 1, DType::int16, P::exact_in_float32},
    {DType::uint16, "uint16", 16, 1, DType::uint16, P::exact_in_float32},
    {DType::int32, "int32", 32, 1, DType::int32, P::needs_float64},
    {DType::uint32, "uint32", 32, 1, DType::uint32, P::needs_float64},
    {DType::int64, "int64", 64, 1, DType::int64, P::needs_float64},
    {DType::uint64, "uint64", 64, 1, DType::uint64, P::needs_float64},
    {DType::boolean, "bool", 8, 1, DType::boolean, P::exact_in_float32},
    {DType::complex64, "complex64", 64, 2, DType::float32, P::exact_in_float32},
    {DType::complex128, "complex128", 128, 2, DType::float64, P::needs_float64},
}};

constexpr bool table_is_indexed_by_dtype() {
  for (int i = 0; i < kDTypeCount; ++i)
    if (static_cast<int>(kTable[i].dtype) != i) return false;
  return true;
}
static_assert(table_is_indexed_by_dtype(), "kTable must be in DType order");

}  // namespace

const DTypeInfo& dtype_info(DType dtype) { return kTable[static_cast<size_t>(dtype)]; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& info : kTable)
    if (info.name == name) return info.dtype;
  return std::nullopt;
}

}  // namespace opdiff
