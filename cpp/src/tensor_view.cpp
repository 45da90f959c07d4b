#include "opdiff/tensor_view.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "opdiff/ascend_enums.hpp"
#include "opdiff/decode.hpp"
#include "opdiff/dump_error.hpp"
#include "opdiff/metrics.hpp"

namespace opdiff {
namespace {

std::string tensor_name(const TensorEntry& entry) {
  return std::string(role_name(entry.header.role)) + " " + std::to_string(entry.index);
}

LayoutRequest request_for(const TensorEntry& entry, const TargetSpec& target) {
  const HeaderTensor& h = entry.header;
  LayoutRequest request;
  request.stored_format = h.format;
  request.stored_shape = h.shape;
  request.groups = h.sub_format;
  request.fortran_order = entry.fortran_order;
  if (target.as_stored) return request;  // target_format stays kAsStored
  const int64_t natural = default_target_format(h.format, h.shape.size());
  request.target_format = target.format.value_or(natural);
  if (target.shape) {
    request.target_shape = target.shape;
  } else if (!h.original_shape.empty()) {
    const int64_t nd = static_cast<int64_t>(AscendFormat::ND);
    const bool blocked = natural != h.format && !(natural == nd && h.format != static_cast<int64_t>(AscendFormat::FRACTAL_NZ));
    if (blocked) {
      // Blocked formats do not store the logical extents: the original shape gives them.
      request.target_shape = h.original_shape;
    } else if (!target.format && checked_element_count(h.original_shape) == entry.element_count &&
               (natural == nd || h.original_shape.size() != h.shape.size())) {
      // A plain tensor whose original shape only regroups its dims: a reshape. (Same-rank
      // original shapes of NHWC-like tensors are in the origin format, which the dump does not
      // record, so they are not applied.)
      request.target_format = nd;
      request.target_shape = h.original_shape;
    }
  }
  return request;
}

// Converts one run of `count` components into `output` elements at `out`: a plain copy, int4
// unpacked to int8, or a decode to float32 (HiFloat8 always; other types when asked to widen).
void emit(const ElementRun& run, uint64_t count, DType output, std::byte* out) {
  if (run.dtype == DType::int4) {
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t at = run.first + i;
      const uint8_t nibble = (static_cast<uint8_t>(run.data[at / 2]) >> ((at % 2) * 4)) & 0x0F;
      out[i] = static_cast<std::byte>(static_cast<int8_t>(nibble >= 8 ? int(nibble) - 16 : int(nibble)));
    }
  } else if (output != dtype_info(run.dtype).component && output == DType::float32) {
    decode_to_float32(run, count, reinterpret_cast<float*>(out));
  } else {
    std::memcpy(out, run.data, count * (dtype_info(run.dtype).bits / 8));
  }
}

uint64_t component_bytes(DType output) {
  const DTypeInfo& info = dtype_info(output);
  return info.bits / 8 / info.components;
}

// Elements a gathering source decodes per call when a whole tensor is copied out: a large range
// covers whole stored C0 groups (every channel of a group), so each stored block is read once
// instead of once per 64K chunk that needs it. 4 MiB of gathered elements per call, and at most
// 8 MiB of a revisited stored block kept resident, bound the memory of each converting thread.
constexpr uint64_t kGatherBlockBytes = uint64_t{4} << 20;
constexpr uint64_t kCopyResidentBudget = uint64_t{8} << 20;

uint64_t gathered_bytes(DType run) { return std::max<uint64_t>(1, dtype_info(run).bits / 8); }

// Components per block, even (complex components come in pairs) and at least one chunk.
uint64_t block_components(DType run) {
  return std::max<uint64_t>(kChunkElements, kGatherBlockBytes / gathered_bytes(run)) & ~uint64_t{1};
}

void finish(const TensorView& view) {
  if (view.file && view.file->contents) view.file->contents->release(view.entry->bytes);
  if (view.file) view.file->check_intact();
}

// Runs `sink(out_bytes, byte_count)` over the logical elements, one block at a time.
template <typename Sink>
void for_each_chunk(const TensorView& view, DType output, Sink&& sink) {
  const LayoutSource& source = *view.source;
  const uint64_t total = source.size();
  const uint64_t width = component_bytes(output);
  const bool gathers = !source.plan().identity;
  // Only tiled gathers revisit stored blocks; row-by-row ones gather best into an L2-sized buffer.
  const uint64_t wanted = gathers && source.gather().tile_axis() >= 0 ? block_components(source.dtype()) : kChunkElements;
  const uint64_t block = std::max<uint64_t>(1, std::min(wanted, total));  // small tensors: small buffers
  std::vector<std::byte> scratch(gathers ? block * gathered_bytes(source.dtype()) : 0);
  std::vector<std::byte> converted(kChunkElements * 8);
  // Resident pages of a mapped file are dropped every few MB (identity) or after each gathered
  // block, so memory stays bounded however large the tensor.
  constexpr uint64_t kChunksPerRelease = 64;
  uint64_t calls = 0;
  for (uint64_t start = 0; start < total; start += block) {
    if (++calls % (gathers ? 1 : kChunksPerRelease) == 0) source.release_behind(kCopyResidentBudget);
    const uint64_t count = std::min<uint64_t>(block, total - start);
    const ElementRun run = source.run(start, count, scratch.data());
    if (run.dtype == output && run.first == 0) {
      sink(run.data, count * width);  // already the output bytes (mapped or gathered): no copy
      continue;
    }
    for (uint64_t done = 0; done < count; done += kChunkElements) {
      const uint64_t part = std::min<uint64_t>(kChunkElements, count - done);
      emit(advanced(run, done), part, output, converted.data());
      sink(converted.data(), part * width);
    }
  }
  finish(view);
}

struct OutputFile {
  std::FILE* handle;
  ~OutputFile() {
    if (handle) std::fclose(handle);
  }
};

}  // namespace

DType output_dtype_for(DType stored) {
  if (stored == DType::hifloat8) return DType::float32;
  if (stored == DType::int4) return DType::int8;
  return stored;
}

TensorView make_tensor_view(std::shared_ptr<const TensorFile> file, TensorRole role, uint32_t index,
                            const TargetSpec& target) {
  const TensorEntry& entry = file->find(role, index);
  if (!entry.dtype) {
    const auto name = ascend_dtype_name(entry.header.data_type);
    throw DumpFormatError(file->path, tensor_name(entry) + ": data type " +
                                          std::string(name ? *name : "unknown") + " cannot be decoded");
  }
  TensorView view;
  view.entry = &entry;
  view.output_dtype = output_dtype_for(*entry.dtype);
  try {
    LayoutPlan plan = plan_layout(request_for(entry, target));
    std::function<void(ByteSpan)> release;
    if (file->contents && file->contents->mapped())
      release = [contents = file->contents](ByteSpan bytes) { contents->release(bytes); };
    view.source = std::make_shared<const LayoutSource>(entry.bytes, *entry.dtype, std::move(plan), file->contents,
                                                       std::move(release));
  } catch (const ParseError& error) {
    throw DumpFormatError(file->path, tensor_name(entry) + ": " + error.what());
  }
  view.file = std::move(file);
  return view;
}

void copy_logical(const TensorView& view, std::byte* out) {
  const LayoutSource& source = *view.source;
  if (!source.plan().identity && source.gather().tile_axis() >= 0 && source.dtype() == view.output_dtype) {
    // The output holds the whole tensor: tiles go straight into it, in large ranges.
    const uint64_t total = source.size(), width = component_bytes(view.output_dtype);
    const uint64_t block = 16 * block_components(source.dtype());
    for (uint64_t start = 0; start < total; start += block) {
      source.run(start, std::min(block, total - start), out + start * width);
      source.release_behind(kCopyResidentBudget);
    }
    finish(view);
    return;
  }
  for_each_chunk(view, view.output_dtype, [&out](const std::byte* bytes, uint64_t length) {
    std::memcpy(out, bytes, length);
    out += length;
  });
}

void write_logical(const TensorView& view, const std::string& path, const std::string& prefix, bool widen_to_float32) {
  OutputFile file{std::fopen(path.c_str(), "wb")};
  if (!file.handle) throw DumpFormatError(path, std::string("cannot create: ") + std::strerror(errno));
  auto put = [&](const void* bytes, uint64_t length) {
    if (length && std::fwrite(bytes, 1, length, file.handle) != length)
      throw DumpFormatError(path, std::string("write failed: ") + std::strerror(errno));
  };
  put(prefix.data(), prefix.size());
  const DType output = widen_to_float32 && dtype_info(view.output_dtype).components == 1 ? DType::float32 : view.output_dtype;
  for_each_chunk(view, output, put);
  if (std::fclose(file.handle) != 0) {
    file.handle = nullptr;
    throw DumpFormatError(path, std::string("write failed: ") + std::strerror(errno));
  }
  file.handle = nullptr;
}

}  // namespace opdiff
