// A tensor of an opened file, laid out for reading: the bridge from TensorFile to ElementSource,
// plus copying the logical elements out (into memory, or streamed to a file).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "opdiff/layout_source.hpp"
#include "opdiff/tensor_file.hpp"

namespace opdiff {

// What logical form to read a tensor in. Unset fields take defaults: the format from
// default_target_format(), the shape from the dump's original_shape (blocked formats) or the
// stored shape (plain formats). `as_stored` reads the stored array unchanged.
struct TargetSpec {
  bool as_stored = false;
  std::optional<int64_t> format;
  std::optional<std::vector<uint64_t>> shape;
};

struct TensorView {
  std::shared_ptr<const TensorFile> file;  // keeps the file's bytes alive
  const TensorEntry* entry = nullptr;
  std::shared_ptr<const LayoutSource> source;
  DType output_dtype = DType::float32;     // element type copy_logical() writes

  const std::vector<uint64_t>& shape() const { return source->plan().shape; }
};

// Builds the view; every problem is a DumpFormatError naming the file and the tensor.
TensorView make_tensor_view(std::shared_ptr<const TensorFile> file, TensorRole role, uint32_t index,
                            const TargetSpec& target);

// The element type a logical copy holds: hifloat8 decodes to float32, packed int4 to int8;
// everything else keeps its stored type.
DType output_dtype_for(DType stored);

// Copies the logical elements to `out` (room for size() components of output_dtype).
void copy_logical(const TensorView& view, std::byte* out);

// Writes `prefix` then the logical elements to a new file at `path` in bounded memory;
// `widen_to_float32` writes every real type as float32 (for readers without bf16/fp8 types).
void write_logical(const TensorView& view, const std::string& path, const std::string& prefix,
                   bool widen_to_float32 = false);

}  // namespace opdiff
