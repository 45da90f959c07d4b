// Copies a range of logical elements out of a stored layout in contiguous runs and small tiles
// instead of one table lookup per element.
//
// Each axis table of a LayoutPlan is recognised as regular where it can be: offset(k) =
// (k / block) * outer + (k % block) * inner (a plain stride when block covers the extent; NC1HWC0's
// channel axis, FRACTAL_NZ's columns and FRACTAL_Z's channels are blocked). Neighbouring plain
// axes that continue each other's stride are merged (H and W of NC1HWC0 become one run of stride
// C0). A range is then copied row by row (a row = a run of the last axis: memcpy where it is
// contiguous, a strided copy otherwise), or, where another axis is more local in memory than the
// last one (C in NC1HWC0 -> NCHW: C0 neighbours are adjacent), as tiles of that axis x the last
// axis, transposed through L1 so each stored cache line is read once per range. Irregular tables
// and grouped FRACTAL_Z fall back to per-element offsets. The element order is exactly the
// logical (row-major) order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "opdiff/layout.hpp"

namespace opdiff {

// One (possibly merged) logical axis.
struct GatherAxis {
  uint64_t extent = 1;
  uint64_t block = 1;                // regular runs of this many indices (>= extent: a plain stride)
  uint64_t inner = 0;                // stride inside a run
  uint64_t outer = 0;                // stride from one run to the next
  const uint64_t* table = nullptr;   // irregular axis: the plan's own offsets

  uint64_t offset(uint64_t k) const {
    if (table) return table[k];
    if (block >= extent) return k * inner;
    return (k / block) * outer + (k % block) * inner;
  }
  bool plain() const { return !table && block >= extent; }
};

class LayoutGather {
 public:
  // `plan` must outlive the gather (its tables are read in place).
  explicit LayoutGather(const LayoutPlan& plan);

  // Logical elements [first, first + count) of `unit_bytes` each (1, 2, 4, 8 or 16) into `out`.
  void gather(const std::byte* stored, unsigned unit_bytes, uint64_t first, uint64_t count, std::byte* out) const;
  // Packed int4 (two per byte, low nibble first), unpacked to int8.
  void gather_int4(const std::byte* stored, uint64_t first, uint64_t count, int8_t* out) const;
  // Ranges [first + k * plane(), ... + count) for k < n, range k written at out + k * out_row
  // elements: consecutive indices of the tile axis, read as tiles in one pass.
  void gather_siblings(const std::byte* stored, unsigned unit_bytes, uint64_t first, uint32_t n, uint64_t count,
                       std::byte* out, uint64_t out_row) const;
  void gather_siblings_int4(const std::byte* stored, uint64_t first, uint32_t n, uint64_t count, int8_t* out,
                            uint64_t out_row) const;
  // Logical elements from one index of the tile axis to the next (0 without a tile axis), and how
  // many consecutive indices share their stored blocks.
  uint64_t plane() const { return plane_; }
  uint32_t siblings() const;
  // How many planes from plane number `plane` on (in logical order) lie in its sibling group:
  // groups of siblings() consecutive indices of the tile axis, starting at index 0 of that axis.
  uint32_t siblings_from(uint64_t plane) const;

  // Whether every axis's offsets grow with its index (all supported layouts but grouped
  // FRACTAL_Z): then the two bounds below are exact and cheap.
  bool ordered() const { return ordered_; }
  // Lowest stored offset of any logical element at or after `position` (< element count).
  uint64_t lowest_from(uint64_t position) const;
  // Stored offset of the logical element at `position`.
  uint64_t offset_of(uint64_t position) const;
  // Lowest stored offset that a reader going through sibling groups (a group's planes piece by
  // piece, then the next group) still needs once it reached `position` in the group's first plane.
  uint64_t lowest_in_sibling_order(uint64_t position) const;
  // Highest stored offset of any logical element before `position` (>= 1).
  uint64_t highest_before(uint64_t position) const;

  // For tests and benches: the axes after merging, and the tiled axis (-1: rows only).
  const std::vector<GatherAxis>& axes() const { return axes_; }
  int tile_axis() const { return tile_axis_; }

 private:
  template <typename Access>
  void copy(const Access& access, uint64_t first, uint64_t count, typename Access::Value* out) const;
  template <typename Access>
  void copy_rows(const Access& access, uint64_t first, uint64_t count, typename Access::Value* out) const;
  template <typename Access>
  void copy_planes(const Access& access, uint64_t first, uint64_t planes, typename Access::Value* out) const;
  template <typename Access>
  void copy_siblings(const Access& access, uint64_t first, uint32_t n, uint64_t count, typename Access::Value* out,
                     uint64_t out_row) const;
  template <typename Access>
  void copy_coupled(const Access& access, uint64_t first, uint64_t count, typename Access::Value* out) const;

  const LayoutPlan& plan_;
  bool ordered_ = false;
  std::vector<GatherAxis> axes_;
  int tile_axis_ = -1;       // axis tiled against the last one
  uint64_t plane_ = 0;       // elements per index of the tile axis (product of the later extents)
};

}  // namespace opdiff
