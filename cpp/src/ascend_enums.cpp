#include "opdiff/ascend_enums.hpp"

#include <array>

namespace opdiff {
namespace {

struct AscendDType {
  int64_t number;
  std::string_view name;
  std::optional<DType> dtype;
};

constexpr std::optional<DType> none = std::nullopt;

// docs/reference/reference-tool.md §1.4. DT_UNDEFINED is read as raw int8 bytes, DT_RESOURCE as int64, as
// the reference does; DT_INT4 is packed two per byte.
const std::array<AscendDType, 41> kDTypes = {{
    {0, "DT_UNDEFINED", DType::int8},
    {1, "DT_FLOAT", DType::float32},
    {2, "DT_FLOAT16", DType::float16},
    {3, "DT_INT8", DType::int8},
    {4, "DT_UINT8", DType::uint8},
    {5, "DT_INT16", DType::int16},
    {6, "DT_UINT16", DType::uint16},
    {7, "DT_INT32", DType::int32},
    {8, "DT_INT64", DType::int64},
    {9, "DT_UINT32", DType::uint32},
    {10, "DT_UINT64", DType::uint64},
    {11, "DT_BOOL", DType::boolean},
    {12, "DT_DOUBLE", DType::float64},
    {13, "DT_STRING", none},
    {14, "DT_DUAL_SUB_INT8", none},
    {15, "DT_DUAL_SUB_UINT8", none},
    {16, "DT_COMPLEX64", DType::complex64},
    {17, "DT_COMPLEX128", DType::complex128},
    {18, "DT_QINT8", none},
    {19, "DT_QINT16", none},
    {20, "DT_QINT32", none},
    {21, "DT_QUINT8", none},
    {22, "DT_QUINT16", none},
    {23, "DT_RESOURCE", DType::int64},
    {24, "DT_STRING_REF", none},
    {25, "DT_DUAL", none},
    {26, "DT_VARIANT", none},
    {27, "DT_BF16", DType::bfloat16},
    {28, "DT_INT4", DType::int4},
    {29, "DT_UINT1", none},
    {30, "DT_INT2", none},
    {31, "DT_UINT2", none},
    {32, "DT_COMPLEX32", none},
    {33, "DT_HIFLOAT8", DType::hifloat8},
    {34, "DT_FLOAT8_E5M2", DType::float8_e5m2},
    {35, "DT_FLOAT8_E4M3FN", DType::float8_e4m3fn},
    {36, "DT_FLOAT8_E8M0", none},
    {37, "DT_FLOAT6_E3M2", none},
    {38, "DT_FLOAT6_E2M3", none},
    {39, "DT_FLOAT4_E2M1", none},
    {40, "DT_FLOAT4_E1M2", none},
}};

struct FormatName {
  int64_t number;
  std::string_view name;
};

// docs/reference/reference-tool.md §1.5.
const std::array<FormatName, 51> kFormats = {{
    {0, "NCHW"}, {1, "NHWC"}, {2, "ND"}, {3, "NC1HWC0"}, {4, "FRACTAL_Z"}, {5, "NC1C0HWPAD"},
    {6, "NHWC1C0"}, {7, "FSR_NCHW"}, {8, "FRACTAL_DECONV"}, {9, "C1HWNC0"}, {10, "FRACTAL_DECONV_TRANSPOSE"},
    {11, "FRACTAL_DECONV_SP_STRIDE_TRANS"}, {12, "NC1HWC0_C04"}, {13, "FRACTAL_Z_C04"}, {14, "CHWN"},
    {15, "FRACTAL_DECONV_SP_STRIDE8_TRANS"}, {16, "HWCN"}, {17, "NC1KHKWHWC0"}, {18, "BN_WEIGHT"},
    {19, "FILTER_HWCK"}, {20, "HASHTABLE_LOOKUP_LOOKUPS"}, {21, "HASHTABLE_LOOKUP_KEYS"},
    {22, "HASHTABLE_LOOKUP_VALUE"}, {23, "HASHTABLE_LOOKUP_OUTPUT"}, {24, "HASHTABLE_LOOKUP_HITS"},
    {25, "C1HWNCoC0"}, {26, "MD"}, {27, "NDHWC"}, {28, "FRACTAL_ZZ"}, {29, "FRACTAL_NZ"}, {30, "NCDHW"},
    {31, "DHWCN"}, {32, "NDC1HWC0"}, {33, "FRACTAL_Z_3D"}, {34, "CN"}, {35, "NC"}, {36, "DHWNC"},
    {37, "FRACTAL_Z_3D_TRANSPOSE"}, {38, "FRACTAL_ZN_LSTM"}, {39, "FRACTAL_Z_G"}, {40, "RESERVED"},
    {41, "ALL"}, {42, "NULL"}, {43, "ND_RNN_BIAS"}, {44, "FRACTAL_ZN_RNN"}, {45, "YUV"}, {46, "YUV_A"},
    {47, "NCL"}, {48, "FRACTAL_Z_WINO"}, {49, "C1HWC0"}, {255, "MAX"},
}};

// Nano numbering -> DT_* number (docs/reference/reference-tool.md §1.6).
constexpr std::array<std::pair<int64_t, int64_t>, 19> kNanoDTypes = {{
    {0, 1}, {1, 2}, {2, 3}, {3, 7}, {4, 4}, {6, 5}, {7, 6}, {8, 9}, {9, 8}, {10, 10},
    {11, 12}, {12, 11}, {16, 16}, {17, 17}, {23, 23}, {27, 27}, {28, 0}, {29, 28}, {30, 29},
}};

}  // namespace

std::optional<std::string_view> ascend_dtype_name(int64_t number) {
  if (number < 0 || number >= int64_t(kDTypes.size())) return std::nullopt;
  return kDTypes[size_t(number)].name;
}

std::optional<DType> dtype_from_ascend(int64_t number) {
  if (number < 0 || number >= int64_t(kDTypes.size())) return std::nullopt;
  return kDTypes[size_t(number)].dtype;
}

int64_t ascend_from_dtype(DType dtype) {
  for (const auto& entry : kDTypes)
    if (entry.number != 0 && entry.dtype == dtype) return entry.number;
  return 0;
}

std::optional<std::string_view> ascend_format_name(int64_t number) {
  for (const auto& entry : kFormats)
    if (entry.number == number) return entry.name;
  return std::nullopt;
}

std::optional<int64_t> ascend_format_from_name(std::string_view name) {
  if (name.substr(0, 7) == "FORMAT_") name.remove_prefix(7);
  for (const auto& entry : kFormats)
    if (entry.name == name) return entry.number;
  return std::nullopt;
}

std::vector<std::pair<int64_t, std::string_view>> ascend_dtype_table() {
  std::vector<std::pair<int64_t, std::string_view>> table;
  for (const auto& entry : kDTypes) table.emplace_back(entry.number, entry.name);
  return table;
}

std::vector<std::pair<int64_t, std::string_view>> ascend_format_table() {
  std::vector<std::pair<int64_t, std::string_view>> table;
  for (const auto& entry : kFormats) table.emplace_back(entry.number, entry.name);
  return table;
}

std::optional<int64_t> ascend_dtype_from_nano(int64_t nano_number) {
  for (const auto& [nano, ascend] : kNanoDTypes)
    if (nano == nano_number) return ascend;
  return std::nullopt;
}

}  // namespace opdiff
