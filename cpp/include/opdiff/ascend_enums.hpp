// Ascend's numbering of data types (DT_*) and tensor formats (FORMAT_*), and how they map onto
// opdiff's DType. The names equal the enum value names of dump_data.proto.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "opdiff/dtype.hpp"

namespace opdiff {

// Tensor formats opdiff gives meaning to (numbers as in FORMAT_*); others are carried as numbers.
enum class AscendFormat : int32_t {
  NCHW = 0,
  NHWC = 1,
  ND = 2,
  NC1HWC0 = 3,
  FRACTAL_Z = 4,
  NC1HWC0_C04 = 12,
  CHWN = 14,
  HWCN = 16,
  C1HWNCoC0 = 25,
  NDHWC = 27,
  FRACTAL_NZ = 29,
  NCDHW = 30,
  DHWCN = 31,
  NDC1HWC0 = 32,
  FRACTAL_Z_3D = 33,
  RESERVED = 40,  // the reference's format for golden .npy data
};

// "DT_FLOAT16" for 2; nullopt for numbers outside the enum.
std::optional<std::string_view> ascend_dtype_name(int64_t number);
// opdiff's element type for a DT_* number; nullopt when opdiff cannot decode it (DT_STRING, ...).
std::optional<DType> dtype_from_ascend(int64_t number);
// The DT_* number for an opdiff element type (the first one, for types several numbers share).
int64_t ascend_from_dtype(DType dtype);

// "NC1HWC0" for 3 (without the FORMAT_ prefix); nullopt for numbers outside the enum.
std::optional<std::string_view> ascend_format_name(int64_t number);
std::optional<int64_t> ascend_format_from_name(std::string_view name);

// Every (number, name) of the two enums, in number order: the Python side's name tables, so that
// naming a dtype or format never needs protobuf.
std::vector<std::pair<int64_t, std::string_view>> ascend_dtype_table();
std::vector<std::pair<int64_t, std::string_view>> ascend_format_table();

// Nano dumps number data types differently; this maps them to DT_* numbers (nullopt: unknown).
std::optional<int64_t> ascend_dtype_from_nano(int64_t nano_number);

}  // namespace opdiff
