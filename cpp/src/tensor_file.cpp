#include "opdiff/tensor_file.hpp"

#include <cstdint>
#include <string>

#include "opdiff/ascend_enums.hpp"
#include "opdiff/dump_error.hpp"

namespace opdiff {

const char* form_name(FileForm form) {
  switch (form) {
    case FileForm::dump_v2: return "dump-v2";
    case FileForm::dump_v1: return "dump-v1";
    case FileForm::nano: return "nano";
    case FileForm::npy: return "npy";
  }
  return "?";
}

namespace {

std::string shape_text(const std::vector<uint64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string entry_name(const TensorEntry& entry) {
  return std::string(role_name(entry.header.role)) + " " + std::to_string(entry.index);
}

bool has_npy_magic(ByteSpan bytes) {
  static const char magic[] = "\x93NUMPY";
  auto head = bytes.slice(0, 6);
  return head && std::memcmp(head->data, magic, 6) == 0;
}

bool has_nano_magic(ByteSpan bytes) {
  auto magic = load_le<uint32_t>(bytes, 8);
  return bytes.size > 12 && magic && *magic == 0x5A5A5A5Au;
}

}  // namespace

uint64_t checked_element_count(const std::vector<uint64_t>& shape) {
  constexpr uint64_t kMaxElements = uint64_t{1} << 56;
  // The product of the non-zero dims, times the widest element (16 bytes), must fit a signed
  // 64-bit byte count even when another dim is 0: numpy refuses larger shapes. 2^56 elements
  // is far beyond any real tensor.
  uint64_t product = 1;
  bool empty = false;
  for (uint64_t dim : shape) {
    if (dim == 0) {
      empty = true;
      continue;
    }
    if (__builtin_mul_overflow(product, dim, &product) || product > kMaxElements)
      throw ParseError("dims " + shape_text(shape) + " multiply past 2^56");
  }
  return empty ? 0 : product;
}

void check_entry_payload(TensorEntry& entry, uint64_t available) {
  const HeaderTensor& h = entry.header;
  if (h.role == TensorRole::input || h.role == TensorRole::output) {
    if (!ascend_dtype_name(h.data_type))
      throw ParseError(entry_name(entry) + ": unknown data type number " + std::to_string(h.data_type));
    if (!ascend_format_name(h.format))
      throw ParseError(entry_name(entry) + ": unknown format number " + std::to_string(h.format));
  }
  entry.dtype = dtype_from_ascend(h.data_type);
  entry.element_count = checked_element_count(h.shape);
  if (!entry.dtype) return;  // kept listable; reading its values is refused later
  // count * bits must not overflow before dividing: at most 128 bits per element.
  if (entry.element_count > (~uint64_t{0}) / 128)
    throw ParseError(entry_name(entry) + ": " + shape_text(h.shape) + " has too many elements");
  const uint64_t needed = storage_bytes(*entry.dtype, entry.element_count);
  if (needed > available)
    throw ParseError(entry_name(entry) + ": shape " + shape_text(h.shape) + " of " +
                     std::string(dtype_name(*entry.dtype)) + " needs " + std::to_string(needed) +
                     " bytes, the tensor has " + std::to_string(available));
}

const TensorEntry& TensorFile::find(TensorRole role, uint32_t index) const {
  for (const auto& entry : tensors)
    if (entry.header.role == role && entry.index == index) return entry;
  throw DumpFormatError(path, std::string("has no ") + role_name(role) + " " + std::to_string(index));
}

void TensorFile::check_intact() const {
  if (contents && contents->truncated())
    throw DumpFormatError(path, kFileShrankProblem);
}

std::shared_ptr<const TensorFile> open_tensor_file(const std::string& path) {
  auto file = std::make_shared<TensorFile>();
  file->path = path;
  auto contents = std::make_shared<const FileBytes>(path);
  file->contents = contents;
  const ByteSpan bytes = contents->bytes();
  if (bytes.empty()) throw DumpFormatError(path, "empty file");
  try {
    if (has_npy_magic(bytes)) {
      read_npy(bytes, *file);
    } else if (has_nano_magic(bytes)) {
      read_nano_dump(bytes, *file);
    } else {
      try {
        read_dump_v2(bytes, *file);
      } catch (const FramingError& v2_error) {
        // A pure-protobuf (v1) file has no length prefix; try it before giving up, but report
        // the v2 problem, the form almost every dump has.
        TensorFile v1 = *file;
        try {
          read_dump_v1(bytes, v1);
        } catch (const ParseError&) {
          throw ParseError(std::string("not a dump file (") + v2_error.what() + ")");
        }
        *file = std::move(v1);
      }
    }
  } catch (const ParseError& error) {
    file->check_intact();  // a header cut short under us: say so rather than what it looked like
    throw DumpFormatError(path, error.what());
  }
  file->check_intact();
  return file;
}

}  // namespace opdiff
