// From a stored format to the logical tensor: which stored element holds each logical element.
//
// The target is a logical format (the order the comparison uses, normally the golden's: NCHW,
// NHWC, HWCN, CHWN, NCDHW, NDHWC, DHWCN or ND) plus a logical shape in that order. Padding of
// blocked formats (C0, Ni/No) lies outside the logical shape and is never read. Every supported
// stored format maps a logical coordinate to a stored offset as a sum of one term per logical
// axis, so a plan is a small table per axis (sum of the dims, not their product); grouped
// FRACTAL_Z additionally makes the channel term depend on the group of the output channel.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace opdiff {

// Target format meaning "as stored": the stored shape, in stored order (no re-layout).
inline constexpr int64_t kAsStored = -1;

struct LayoutRequest {
  int64_t stored_format = 2;                 // Ascend FORMAT_* number
  std::vector<uint64_t> stored_shape;
  int64_t groups = 1;                        // FRACTAL_Z: the dump's sub_format (conv groups)
  bool fortran_order = false;                // npy: stored in column-major order
  int64_t target_format = kAsStored;         // a logical FORMAT_* number or kAsStored
  std::optional<std::vector<uint64_t>> target_shape;  // in target order; nullopt = as large as stored
};

struct LayoutPlan {
  int64_t target_format = kAsStored;
  std::vector<uint64_t> shape;                  // logical shape, target order
  std::vector<std::vector<uint64_t>> offsets;   // per logical axis: stored element offset of each index
  bool identity = false;                        // logical order is the stored order: no gather
  // Grouped FRACTAL_Z: the term of `coupled_axis` is offsets[coupled_axis][key * extent + i] where
  // key = keys[index along key_axis].
  int coupled_axis = -1;
  int key_axis = -1;
  std::vector<uint32_t> keys;
  uint64_t max_offset = 0;                      // largest stored offset any element maps to
};

// Builds the plan; throws ParseError when the shapes do not fit the format.
LayoutPlan plan_layout(const LayoutRequest& request);

// The default logical format of a stored format: NCHW for 4-D blocked formats, NCDHW for 5-D
// ones, ND for FRACTAL_NZ, the stored format itself for plain formats.
int64_t default_target_format(int64_t stored_format, size_t stored_rank);

// Whether this stored -> target conversion is one the reference tool (msaccucmp) implements;
// the others are opdiff extensions.
bool reference_converts(int64_t stored_format, int64_t target_format);

}  // namespace opdiff
