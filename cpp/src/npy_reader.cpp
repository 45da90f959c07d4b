// .npy files (format versions 1, 2 and 3): the header is parsed here, the data stays mapped.
// Element types are numpy's descr codes plus ml_dtypes names, which numpy cannot name itself
// (np.save writes bfloat16 as an anonymous '<V2'); opdiff's writers store those names.
#include <string>
#include <string_view>

#include "opdiff/ascend_enums.hpp"
#include "opdiff/dump_error.hpp"
#include "opdiff/tensor_file.hpp"

namespace opdiff {
namespace {

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<uint64_t> shape;
  bool has_descr = false, has_order = false, has_shape = false;
};

// Parses the header dict, a Python literal of the form {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }. Only that grammar is accepted.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  NpyHeader parse() {
    NpyHeader header;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        skip_space();
        if (peek() != '\'' && peek() != '"') throw ParseError("npy: structured dtypes are not supported");
        header.descr = string_literal();
        header.has_descr = true;
      } else if (key == "fortran_order") {
        header.fortran_order = boolean_literal();
        header.has_order = true;
      } else if (key == "shape") {
        header.shape = tuple_literal();
        header.has_shape = true;
      } else {
        throw ParseError("npy: unexpected header key '" + key + "'");
      }
      skip_space();
      if (peek() == ',') ++position_;
    }
    if (!header.has_descr || !header.has_order || !header.has_shape)
      throw ParseError("npy: header lacks descr, fortran_order or shape");
    return header;
  }

 private:
  char peek() const {
    if (position_ >= text_.size()) throw ParseError("npy: header ends early");
    return text_[position_];
  }
  void skip_space() {
    while (position_ < text_.size() && (text_[position_] == ' ' || text_[position_] == '\n')) ++position_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) throw ParseError(std::string("npy: expected '") + c + "' in header");
    ++position_;
  }
  std::string string_literal() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') throw ParseError("npy: expected a string in header");
    const size_t end = text_.find(quote, position_ + 1);
    if (end == std::string_view::npos) throw ParseError("npy: unterminated string in header");
    std::string value(text_.substr(position_ + 1, end - position_ - 1));
    position_ = end + 1;
    return value;
  }
  bool boolean_literal() {
    skip_space();
    for (auto [word, value] : {std::pair<std::string_view, bool>{"True", true}, {"False", false}}) {
      if (text_.substr(position_, word.size()) == word) {
        position_ += word.size();
        return value;
      }
    }
    throw ParseError("npy: fortran_order is not True or False");
  }
  std::vector<uint64_t> tuple_literal() {
    expect('(');
    std::vector<uint64_t> dims;
    while (true) {
      skip_space();
      if (peek() == ')') break;
      uint64_t value = 0;
      size_t digits = 0;
      while (position_ < text_.size() && text_[position_] >= '0' && text_[position_] <= '9') {
        if (__builtin_mul_overflow(value, 10, &value) ||
            __builtin_add_overflow(value, uint64_t(text_[position_] - '0'), &value))
          throw ParseError("npy: dimension too large");
        ++position_;
        ++digits;
      }
      if (digits == 0) throw ParseError("npy: bad shape in header");
      if (dims.size() >= kMaxRank) throw ParseError("npy: too many dimensions");
      dims.push_back(value);
      skip_space();
      if (peek() == ',') ++position_;
    }
    ++position_;
    return dims;
  }

  std::string_view text_;
  size_t position_ = 0;
};

std::optional<DType> dtype_from_descr(std::string_view descr) {
  // ml_dtypes and opdiff names, optionally with a byte-order mark.
  std::string_view name = descr;
  if (!name.empty() && (name[0] == '<' || name[0] == '|' || name[0] == '=')) name.remove_prefix(1);
  if (name == "int4") return DType::int8;  // ml_dtypes int4: one sign-extended value per byte
  if (name.size() > 2) {
    auto dtype = dtype_from_name(name);
    if (dtype && *dtype != DType::int4) return dtype;
  }
  if (descr.size() < 2 || descr[0] == '>') return std::nullopt;  // big-endian data is not supported
  static const std::pair<std::string_view, DType> kCodes[] = {
      {"f2", DType::float16}, {"f4", DType::float32},  {"f8", DType::float64},    {"i1", DType::int8},
      {"u1", DType::uint8},   {"i2", DType::int16},    {"u2", DType::uint16},     {"i4", DType::int32},
      {"u4", DType::uint32},  {"i8", DType::int64},    {"u8", DType::uint64},     {"b1", DType::boolean},
      {"c8", DType::complex64}, {"c16", DType::complex128},
  };
  for (const auto& [code, dtype] : kCodes)
    if (name == code) return dtype;
  return std::nullopt;
}

}  // namespace

void read_npy(ByteSpan file, TensorFile& out) {
  auto major = load_le<uint8_t>(file, 6);
  if (!major || (*major != 1 && *major != 2 && *major != 3))
    throw ParseError("npy: unsupported format version");
  const uint64_t length_size = *major == 1 ? 2 : 4;
  const uint64_t text_start = 8 + length_size;
  const uint64_t text_length = *major == 1 ? uint64_t(load_le<uint16_t>(file, 8).value_or(0))
                                           : uint64_t(load_le<uint32_t>(file, 8).value_or(0));
  auto text = file.slice(text_start, text_length);
  if (file.size < text_start || !text) throw ParseError("npy: header runs past the end of the file");
  const NpyHeader header =
      HeaderParser(std::string_view(reinterpret_cast<const char*>(text->data), text->size)).parse();
  const auto dtype = dtype_from_descr(header.descr);
  if (!dtype) throw ParseError("npy: unsupported dtype '" + header.descr + "' (ml_dtypes arrays need their name as descr)");

  out.form = FileForm::npy;
  TensorEntry entry;
  entry.header.role = TensorRole::output;
  entry.header.data_type = ascend_from_dtype(*dtype);
  entry.header.format = static_cast<int64_t>(AscendFormat::ND);
  entry.header.shape = header.shape;
  entry.fortran_order = header.fortran_order && header.shape.size() > 1;
  const ByteSpan data = *file.from(text_start + text_length);
  entry.header.size = data.size;
  check_entry_payload(entry, data.size);
  entry.dtype = *dtype;  // the DT_* round trip loses ml_dtypes int4 (stored as int8) but not the type
  entry.bytes = *data.slice(0, storage_bytes(*dtype, entry.element_count));
  entry.header.size = entry.bytes.size;
  out.tensors.push_back(std::move(entry));
}

}  // namespace opdiff
