// Opening a file of tensors: an Ascend dump (binary v2, pure-protobuf v1, nano/TLV) or a .npy.
// Everything is validated on open (lengths, dims, sizes against the bytes present), so a
// TensorEntry's bytes always hold its elements. Tensor bytes stay where the file's bytes are (FileBytes:
// a buffer read whole, or a mapping for a big file); no tensor is copied out of them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "opdiff/dtype.hpp"
#include "opdiff/dump_header.hpp"
#include "opdiff/file_bytes.hpp"

namespace opdiff {

enum class FileForm : uint8_t { dump_v2, dump_v1, nano, npy };

const char* form_name(FileForm form);

struct TensorEntry {
  HeaderTensor header;         // the numbers as stored (data_type and format are Ascend numbers)
  uint32_t index = 0;          // position within its role
  std::optional<DType> dtype;  // nullopt when opdiff cannot decode the data type
  uint64_t element_count = 0;  // product of header.shape (1 for a scalar)
  ByteSpan bytes;              // the tensor's bytes: header.size bytes (npy: exactly the data)
  bool fortran_order = false;  // npy only
};

struct TensorFile {
  std::string path;
  FileForm form = FileForm::dump_v2;
  std::string version;
  std::string op_name;
  uint64_t dump_time = 0;
  std::vector<std::pair<std::string, std::string>> attrs;
  std::vector<TensorEntry> tensors;  // inputs, outputs, buffers, workspaces, in that order
  std::shared_ptr<const FileBytes> contents;

  const TensorEntry& find(TensorRole role, uint32_t index) const;  // DumpFormatError when absent
  // DumpFormatError when the file shrank on disk since it was opened (what was read from it
  // since then holds zeros where the lost bytes were): call after reading tensor bytes.
  void check_intact() const;
};

// Opens and validates `path`; every problem is a DumpFormatError naming the file.
std::shared_ptr<const TensorFile> open_tensor_file(const std::string& path);

// The parsers behind it, on bytes already mapped (they throw ParseError, without the path).
void read_dump_v2(ByteSpan file, TensorFile& out);
void read_dump_v1(ByteSpan file, TensorFile& out);
void read_nano_dump(ByteSpan file, TensorFile& out);
void read_npy(ByteSpan file, TensorFile& out);

// Shared validation: element count of `shape` (overflow checked) and the bytes it needs.
uint64_t checked_element_count(const std::vector<uint64_t>& shape);
// Fills entry.dtype / element_count and checks `available` bytes hold them; throws ParseError.
void check_entry_payload(TensorEntry& entry, uint64_t available);

}  // namespace opdiff
