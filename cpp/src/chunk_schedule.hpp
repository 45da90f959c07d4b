// How the metric engine cuts a pair into ranges (each gets its own partial sums, merged in
// logical order) and which ranges it reads together.
//
// Plain pairs are cut into 64K-element chunks, read one at a time. When a side stores channels
// interleaved (NC1HWC0 read as NCHW: the C0 channels of a group are neighbours in memory), one
// channel's range streams the stored bytes of its whole C0 group, so reading channel after channel
// reads every stored byte C0 times. The schedule then reads the same piece of every channel of a
// group in one pass (ElementSource::run_siblings): each stored byte is read once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "opdiff/element_source.hpp"
#include "opdiff/metrics.hpp"

namespace opdiff {

class ChunkSchedule {
 public:
  // `ranges` ranges read together: range k covers [begin + k * stride, + count) and owns partial
  // slot first_slot + k * slot_step.
  struct Unit {
    size_t first_slot = 0;
    size_t slot_step = 1;
    uint64_t begin = 0;
    uint64_t stride = 0;
    uint32_t ranges = 1;
    uint64_t count = 0;
  };

  ChunkSchedule(const ElementSource& x, const ElementSource& y) : n_(x.size()) {
    const ElementSource& tiled = x.sibling_stride() ? x : y;
    const uint64_t stride = tiled.sibling_stride();
    if (stride && tiled.sibling_count() > 1 && n_ % stride == 0) {
      plane_ = stride;
      // Room for the rounding of piece edges (piece_start): no piece is longer than a chunk.
      pieces_ = (plane_ + kChunkElements - 17) / (kChunkElements - 16);
      const uint64_t planes = n_ / plane_;
      for (uint64_t plane = 0; plane < planes;) {
        const uint64_t most = std::min<uint64_t>(planes - plane, ElementSource::kMaxSiblings);
        const uint32_t siblings = uint32_t(std::clamp<uint64_t>(tiled.siblings_from(plane), 1, most));
        groups_.emplace_back(plane, siblings);
        plane += siblings;
        max_ranges_ = std::max(max_ranges_, siblings);
      }
    }
  }

  // Whether `side` reads a unit's ranges in one pass (its layout groups them).
  bool grouped(const ElementSource& side) const {
    return plane_ && side.sibling_stride() == plane_ && side.sibling_count() > 1;
  }

  // Partial results in all.
  size_t slots() const { return plane_ ? size_t(n_ / plane_ * pieces_) : chunks(); }
  size_t units() const { return plane_ ? groups_.size() * size_t(pieces_) : chunks(); }
  // Bounds of a unit, for scratch buffers.
  uint32_t max_ranges() const { return max_ranges_; }
  uint64_t max_count() const { return std::min<uint64_t>(kChunkElements, n_); }

  Unit unit(size_t u) const {
    Unit unit;
    if (!plane_) {
      unit.first_slot = u;
      unit.begin = uint64_t(u) * kChunkElements;
      unit.count = std::min<uint64_t>(kChunkElements, n_ - unit.begin);
      return unit;
    }
    const auto& [plane, siblings] = groups_[u / pieces_];
    const uint64_t piece = u % pieces_;
    unit.first_slot = size_t(plane * pieces_ + piece);
    unit.slot_step = size_t(pieces_);
    const uint64_t from = piece_start(piece), to = piece_start(piece + 1);
    unit.begin = plane * plane_ + from;
    unit.stride = plane_;
    unit.ranges = siblings;
    unit.count = to - from;
    return unit;
  }

 private:
  // Pieces split a plane evenly, at multiples of 16 elements (whole complex elements, whole
  // vectors); the last ends at the plane's end.
  uint64_t piece_start(uint64_t piece) const {
    return piece >= pieces_ ? plane_ : piece * plane_ / pieces_ / 16 * 16;
  }
  size_t chunks() const { return size_t((n_ + kChunkElements - 1) / kChunkElements); }

  uint64_t n_;
  uint64_t plane_ = 0;  // 0: plain chunks
  uint64_t pieces_ = 1;  // ranges per plane (at most kChunkElements each)
  std::vector<std::pair<uint64_t, uint32_t>> groups_;  // first plane, planes
  uint32_t max_ranges_ = 1;
};

}  // namespace opdiff
