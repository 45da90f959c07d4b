#include "opdiff/decode.hpp"

#include <cstring>

#include "opdiff/float_formats.hpp"

namespace opdiff {
namespace {

template <typename T>
T load(const std::byte* p, size_t i) {
  T value;
  std::memcpy(&value, p + i * sizeof(T), sizeof(T));
  return value;
}

int int4_at(const std::byte* data, uint64_t index) {
  const auto byte = static_cast<uint8_t>(data[index / 2]);
  const int nibble = (index % 2) ? (byte >> 4) : (byte & 0xF);
  return nibble >= 8 ? nibble - 16 : nibble;  // two's complement, low nibble first
}

// One switch over every dtype; Out is float or double.
template <typename Out>
void decode(const ElementRun& run, size_t n, Out* out) {
  const std::byte* p = run.data;
  switch (run.dtype) {
    case DType::float64:
      for (size_t i = 0; i < n; ++i) out[i] = Out(load<double>(p, i));
      return;
    case DType::float32:
      for (size_t i = 0; i < n; ++i) out[i] = Out(load<float>(p, i));
      return;
    case DType::float16:
      for (size_t i = 0; i < n; ++i) out[i] = Out(half_to_float(load<uint16_t>(p, i)));
      return;
    case DType::bfloat16:
      for (size_t i = 0; i < n; ++i) out[i] = Out(bfloat16_to_float(load<uint16_t>(p, i)));
      return;
    case DType::float8_e4m3fn: {
      const float* table = float8_e4m3fn_table();
      for (size_t i = 0; i < n; ++i) out[i] = Out(table[load<uint8_t>(p, i)]);
      return;
    }
    case DType::float8_e5m2: {
      const float* table = float8_e5m2_table();
      for (size_t i = 0; i < n; ++i) out[i] = Out(table[load<uint8_t>(p, i)]);
      return;
    }
    case DType::hifloat8: {
      const float* table = hifloat8_table();
      for (size_t i = 0; i < n; ++i) out[i] = Out(table[load<uint8_t>(p, i)]);
      return;
    }
    case DType::int4:
      for (size_t i = 0; i < n; ++i) out[i] = Out(int4_at(p, run.first + i));
      return;
    case DType::int8:
      for (size_t i = 0; i < n; ++i) out[i] = Out(load<int8_t>(p, i));
      return;
    case DType::uint8:
      for (size_t i = 0; i < n; ++i) out[i] = Out(load<uint8_t>(p, i));
      return;
    case DType::int16:
      for (size_t i = 0; i < n; ++i) out[i] = Out(load<int16_t>(p, i));
      return;
    case DType::uint16:
      for (size_t i = 0; i < n; ++i) out[i] = Out(load<uint16_t>(p, i));
      return;
    case DType::int32:
      for (size_t i = 0; i < n; ++i) out[i] = Out(load<int32_t>(p, i));
      return;
    case DType::uint32:
      for (size_t i = 0; i < n; ++i) out[i] = Out(load<uint32_t>(p, i));
      return;
    case DType::int64:
      for (size_t i = 0; i < n; ++i) out[i] = Out(load<int64_t>(p, i));
      return;
    case DType::uint64:
      for (size_t i = 0; i < n; ++i) out[i] = Out(load<uint64_t>(p, i));
      return;
    case DType::boolean:
      for (size_t i = 0; i < n; ++i) out[i] = Out(load<uint8_t>(p, i) != 0);
      return;
    case DType::complex64:  // complex sources expose components; decode them as such
      decode<Out>({run.data, DType::float32, 0}, n, out);
      return;
    case DType::complex128:
      decode<Out>({run.data, DType::float64, 0}, n, out);
      return;
  }
}

}  // namespace

void decode_to_float32(const ElementRun& run, size_t count, float* out) { decode(run, count, out); }
void decode_to_float64(const ElementRun& run, size_t count, double* out) { decode(run, count, out); }

}  // namespace opdiff
