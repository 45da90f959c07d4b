#include "opdiff/layout_gather.hpp"

#include "opdiff/element_source.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "opdiff/simd.hpp"
#include "opdiff/tensor_file.hpp"
#include "transpose_block.hpp"

namespace opdiff {
namespace {

// Fixed-size element copies: memcpy with a compile-time size becomes one load and store.
template <size_t Bytes>
struct Unit {
  std::byte bytes[Bytes];
};

// Reads stored elements by element offset.
template <typename U>
struct PlainAccess {
  using Value = U;
  // Side of the square register transpose for this width (0: none).
  static constexpr unsigned kBlock = sizeof(U) == 2 ? kTransposeBlock16 : sizeof(U) == 4 ? kTransposeBlock32 : 0;
  const U* data;
  // kBlock x kBlock: rows contiguous in the stored tile, positions `stride` elements apart.
  void block(uint64_t offset, uint64_t stride, U* out, uint64_t out_row) const {
    const auto* from = reinterpret_cast<const std::byte*>(data + offset);
    auto* to = reinterpret_cast<std::byte*>(out);
    if constexpr (sizeof(U) == 2) transpose_block16(from, stride * 2, to, out_row * 2);
    if constexpr (sizeof(U) == 4) transpose_block32(from, stride * 4, to, out_row * 4);
  }
  // Side of the dispatched wide transpose for this width (0: none), and `blocks` of them side by
  // side along the columns.
  static unsigned wide_block() { return sizeof(U) == 2 && active_kernels().transpose16_blocks ? 16 : 0; }
  void wide_blocks(uint64_t offset, uint64_t stride, uint64_t blocks, U* out, uint64_t out_row) const {
    active_kernels().transpose16_blocks(reinterpret_cast<const std::byte*>(data + offset), stride * sizeof(U), blocks,
                                        reinterpret_cast<std::byte*>(out), out_row * sizeof(U));
  }
  U load(uint64_t offset) const {
    U value;
    std::memcpy(&value, data + offset, sizeof(U));
    return value;
  }
  // Local copies of the pointer and stride: stores through `out` could alias them otherwise,
  // which makes the compiler reload both on every element.
  void strided(uint64_t offset, uint64_t stride, uint64_t count, U* out) const {
    const U* from = data + offset;
    if (stride == 1) {
      // Short runs (a C0 group of FRACTAL_NZ or NHWC targets) in fixed 16-byte pieces: a
      // library memcpy per 32 bytes costs more than the copy.
      uint64_t bytes = count * sizeof(U);
      auto* to = reinterpret_cast<std::byte*>(out);
      const auto* at = reinterpret_cast<const std::byte*>(from);
      if (bytes > 128) {
        std::memcpy(to, at, bytes);
        return;
      }
      for (; bytes >= 16; bytes -= 16, at += 16, to += 16) std::memcpy(to, at, 16);
      for (; bytes > 0; bytes -= sizeof(U), at += sizeof(U), to += sizeof(U)) std::memcpy(to, at, sizeof(U));
      return;
    }
    for (uint64_t i = 0; i < count; ++i) std::memcpy(out + i, from + i * stride, sizeof(U));
  }
};

// Packed int4: offset counts nibbles, low nibble first; values are sign-extended to int8.
struct Int4Access {
  using Value = int8_t;
  static constexpr unsigned kBlock = 0;
  const uint8_t* data;
  void block(uint64_t, uint64_t, int8_t*, uint64_t) const {}
  static unsigned wide_block() { return 0; }
  void wide_blocks(uint64_t, uint64_t, uint64_t, int8_t*, uint64_t) const {}
  int8_t load(uint64_t offset) const {
    const int nibble = (data[offset / 2] >> ((offset % 2) * 4)) & 0x0F;
    return static_cast<int8_t>(nibble >= 8 ? nibble - 16 : nibble);
  }
  void strided(uint64_t offset, uint64_t stride, uint64_t count, int8_t* out) const {
    const uint8_t* bytes = data;
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t at = offset + i * stride;
      const int nibble = (bytes[at / 2] >> ((at % 2) * 4)) & 0x0F;
      out[i] = static_cast<int8_t>(nibble >= 8 ? nibble - 16 : nibble);
    }
  }
};

template <typename Access>
void strided(const Access& access, uint64_t offset, uint64_t stride, uint64_t count, typename Access::Value* out) {
  access.strided(offset, stride, count, out);
}

// Rows j.. of a rows x n tile (rows contiguous in memory) in side x side register blocks, `blocks`
// copying that many blocks along the columns; the columns past the last whole block go one row at a
// time. Returns the first row left over (fewer than `side` remain before j1).
template <typename Access, typename Blocks>
uint64_t square_blocks(const Access& access, unsigned side, const Blocks& blocks, uint64_t source, uint64_t stride_i,
                       uint64_t j, uint64_t j1, uint64_t i0, uint64_t n, typename Access::Value* out,
                       uint64_t out_row) {
  if (side == 0 || n < side) return j;
  const uint64_t whole = n - n % side;
  for (; j + side <= j1; j += side) {
    blocks(source + j + i0 * stride_i, whole / side, out + j * out_row + i0);
    for (uint64_t r = j; r < j + side && whole < n; ++r)
      strided(access, source + r + (i0 + whole) * stride_i, stride_i, n - whole, out + r * out_row + i0 + whole);
  }
  return j;
}

// out[j * out_row + i] = stored[source + j * stride_j + i * stride_i] for a rows x columns tile.
// Sub-tiles keep the stored part being read in L1 while each output row takes its share of it;
// where the rows are contiguous in memory (stride_j 1), square blocks go through registers: the
// dispatched wide ones (AVX2) first, then the baseline ones for rows left over.
template <typename Access>
void transpose(const Access& access, uint64_t source, uint64_t stride_j, uint64_t stride_i, uint64_t rows,
               uint64_t columns, typename Access::Value* out, uint64_t out_row) {
  using Value = typename Access::Value;
  constexpr uint64_t kTileRows = 32, kTileColumns = 64;
  const unsigned wide = Access::wide_block();
  auto wide_blocks = [&](uint64_t from, uint64_t blocks, Value* to) {
    access.wide_blocks(from, stride_i, blocks, to, out_row);
  };
  auto base_blocks = [&](uint64_t from, uint64_t blocks, Value* to) {
    for (uint64_t b = 0; b < blocks; ++b)
      access.block(from + b * Access::kBlock * stride_i, stride_i, to + b * Access::kBlock, out_row);
  };
  for (uint64_t j0 = 0; j0 < rows; j0 += kTileRows) {
    const uint64_t j1 = std::min(rows, j0 + kTileRows);
    for (uint64_t i0 = 0; i0 < columns; i0 += kTileColumns) {
      const uint64_t n = std::min(kTileColumns, columns - i0);
      uint64_t j = j0;
      if (stride_j == 1) {
        j = square_blocks(access, wide, wide_blocks, source, stride_i, j, j1, i0, n, out, out_row);
        j = square_blocks(access, Access::kBlock, base_blocks, source, stride_i, j, j1, i0, n, out, out_row);
      }
      for (; j < j1; ++j)
        strided(access, source + j * stride_j + i0 * stride_i, stride_i, n, out + j * out_row + i0);
    }
  }
}

// Run length from index k of `axis` while its offsets stay linear (stops at a block edge).
uint64_t regular_run(const GatherAxis& axis, uint64_t k, uint64_t limit) {
  if (axis.block >= axis.extent) return limit;
  return std::min(limit, axis.block - k % axis.block);
}

bool checked_mul(uint64_t a, uint64_t b, uint64_t& out) { return !__builtin_mul_overflow(a, b, &out); }

// Recognises offset(k) = (k / block) * outer + (k % block) * inner in a plan table; otherwise the
// axis keeps pointing at the table. Every entry is checked, so the formula and the table agree
// exactly (and stay inside the bounds plan_layout checked).
GatherAxis describe(const std::vector<uint64_t>& table) {
  GatherAxis axis;
  axis.extent = table.size();
  axis.block = axis.extent;
  if (axis.extent == 0) return axis;
  axis.table = table.data();
  if (table[0] != 0) return axis;
  if (axis.extent == 1) {
    axis.table = nullptr;
    return axis;
  }
  const uint64_t inner = table[1];
  uint64_t block = axis.extent;
  for (uint64_t k = 2; k < axis.extent; ++k) {
    uint64_t expected;
    if (!checked_mul(k, inner, expected) || table[k] != expected) {
      block = k;
      break;
    }
  }
  const uint64_t outer = block < axis.extent ? table[block] : 0;
  if (block < axis.extent) {
    for (uint64_t k = block; k < axis.extent; ++k) {
      uint64_t a, b, sum;
      if (!checked_mul(k / block, outer, a) || !checked_mul(k % block, inner, b) || __builtin_add_overflow(a, b, &sum) ||
          table[k] != sum)
        return axis;
    }
  }
  axis.table = nullptr;
  axis.block = block;
  axis.inner = inner;
  axis.outer = outer;
  return axis;
}

}  // namespace

LayoutGather::LayoutGather(const LayoutPlan& plan) : plan_(plan) {
  if (plan.coupled_axis >= 0) return;  // grouped FRACTAL_Z: per-element offsets (copy_coupled)
  ordered_ = plan.offsets.size() == plan.shape.size();
  for (const std::vector<uint64_t>& table : plan.offsets)
    ordered_ = ordered_ && !table.empty() && std::is_sorted(table.begin(), table.end());
  for (const std::vector<uint64_t>& table : plan.offsets) {
    GatherAxis axis = describe(table);
    if (axis.extent == 1 && !axis.table) continue;  // contributes offset 0
    // A plain axis whose stride is the span of a plain inner neighbour continues it: merge.
    uint64_t span;
    if (!axes_.empty() && axes_.back().plain() && axis.plain() && checked_mul(axis.extent, axis.inner, span) &&
        axes_.back().inner == span) {
      axes_.back().extent *= axis.extent;
      axes_.back().block = axes_.back().extent;
      axes_.back().inner = axis.inner;
      continue;
    }
    axes_.push_back(axis);
  }
  if (axes_.empty()) axes_.push_back(GatherAxis{});  // one element at offset 0
  // Tile another axis against the last when it is closer in memory than the last axis's own
  // stride: reading along it then uses whole cache lines.
  const size_t last = axes_.size() - 1;
  const GatherAxis& row = axes_[last];
  if (row.table || row.inner <= 1) return;
  for (size_t a = 0; a < last; ++a) {
    const GatherAxis& axis = axes_[a];
    if (axis.table || axis.extent < 2 || axis.inner >= row.inner) continue;
    if (tile_axis_ < 0 || axis.inner < axes_[size_t(tile_axis_)].inner) tile_axis_ = int(a);
  }
  if (tile_axis_ >= 0) {
    plane_ = 1;
    for (size_t a = size_t(tile_axis_) + 1; a < axes_.size(); ++a) plane_ *= axes_[a].extent;
  }
}

// With every table non-decreasing, the lowest offset at or after an index tuple is either the tuple
// itself or, for some axis a, the same prefix, index a + 1 and every later axis at 0.
uint64_t LayoutGather::lowest_from(uint64_t position) const {
  const LayoutPlan& p = plan_;
  const size_t rank = p.shape.size();
  uint64_t index[kMaxRank], tail[kMaxRank + 1];
  tail[rank] = 0;
  for (size_t a = rank; a-- > 0;) {
    index[a] = position % p.shape[a];
    position /= p.shape[a];
    tail[a] = tail[a + 1] + p.offsets[a][0];
  }
  uint64_t prefix = 0, best = UINT64_MAX;
  for (size_t a = 0; a < rank; ++a) {
    if (index[a] + 1 < p.shape[a]) best = std::min(best, prefix + p.offsets[a][index[a] + 1] + tail[a + 1]);
    prefix += p.offsets[a][index[a]];
  }
  return std::min(best, prefix);
}

// Mirror image: the tuple just before `position`, or a smaller index on some axis with every later
// axis at its end.
uint64_t LayoutGather::offset_of(uint64_t position) const {
  const LayoutPlan& p = plan_;
  uint64_t offset = 0;
  for (size_t a = p.shape.size(); a-- > 0;) {
    offset += p.offsets[a][position % p.shape[a]];
    position /= p.shape[a];
  }
  return offset;
}

uint64_t LayoutGather::lowest_in_sibling_order(uint64_t position) const {
  if (tile_axis_ < 0) return lowest_from(position);
  // What is left of the group: later pieces of its planes, whose lowest offset is that of
  // `position` itself (offsets grow with each index), and every later group.
  uint64_t count = 1;
  for (const uint64_t extent : plan_.shape) count *= extent;
  const uint64_t plane = position / plane_, group_end = (plane + siblings_from(plane)) * plane_;
  const uint64_t later = group_end < count ? lowest_from(group_end) : UINT64_MAX;
  return std::min(offset_of(position), later);
}

uint64_t LayoutGather::highest_before(uint64_t position) const {
  const LayoutPlan& p = plan_;
  const size_t rank = p.shape.size();
  uint64_t index[kMaxRank], tail[kMaxRank + 1];
  tail[rank] = 0;
  position -= 1;
  for (size_t a = rank; a-- > 0;) {
    index[a] = position % p.shape[a];
    position /= p.shape[a];
    tail[a] = tail[a + 1] + p.offsets[a][p.shape[a] - 1];
  }
  uint64_t prefix = 0, best = 0;
  for (size_t a = 0; a < rank; ++a) {
    if (index[a] > 0) best = std::max(best, prefix + p.offsets[a][index[a] - 1] + tail[a + 1]);
    prefix += p.offsets[a][index[a]];
  }
  return std::max(best, prefix);
}

// Rows of the last axis, each split into its linear runs: one base offset per row.
template <typename Access>
void LayoutGather::copy_rows(const Access& access, uint64_t first, uint64_t count,
                             typename Access::Value* out) const {
  const size_t last = axes_.size() - 1;
  const GatherAxis& row = axes_[last];
  uint64_t index[kMaxRank];
  uint64_t rest = first;
  for (size_t a = axes_.size(); a-- > 0;) {
    index[a] = rest % axes_[a].extent;
    rest /= axes_[a].extent;
  }
  uint64_t done = 0;
  while (done < count) {
    uint64_t base = 0;
    for (size_t a = 0; a < last; ++a) base += axes_[a].offset(index[a]);
    const uint64_t take = std::min(count - done, row.extent - index[last]);
    if (row.table) {
      const uint64_t* offsets = row.table + index[last];
      for (uint64_t i = 0; i < take; ++i) out[done + i] = access.load(base + offsets[i]);
    } else if (row.block >= row.extent) {
      strided(access, base + index[last] * row.inner, row.inner, take, out + done);
    } else {
      // Blocked row (FRACTAL_NZ columns, C of an NHWC target): one division per row, then each
      // block's run starts `outer` after the previous one.
      uint64_t in_block = index[last] % row.block;
      uint64_t offset = base + (index[last] / row.block) * row.outer + in_block * row.inner;
      for (uint64_t i = 0; i < take;) {
        const uint64_t run = std::min(take - i, row.block - in_block);
        strided(access, offset, row.inner, run, out + done + i);
        i += run;
        offset += row.outer - in_block * row.inner;
        in_block = 0;
      }
    }
    done += take;
    index[last] += take;
    for (size_t a = last; a > 0 && index[a] == axes_[a].extent; --a) {
      index[a] = 0;
      ++index[a - 1];
    }
  }
}

// `planes` whole planes of the tile axis starting at `first` (a plane start): for each row of the
// axes between the tile axis and the last, tiles of (tile-axis run) x (last-axis run).
template <typename Access>
void LayoutGather::copy_planes(const Access& access, uint64_t first, uint64_t planes,
                               typename Access::Value* out) const {
  const size_t tile = size_t(tile_axis_), last = axes_.size() - 1;
  const GatherAxis& across = axes_[tile];
  const GatherAxis& row = axes_[last];
  uint64_t slab = first / plane_;
  const uint64_t j0 = slab % across.extent;
  slab /= across.extent;
  uint64_t base = 0;
  for (size_t a = tile; a-- > 0;) {
    base += axes_[a].offset(slab % axes_[a].extent);
    slab /= axes_[a].extent;
  }
  uint64_t mid[kMaxRank] = {};
  const uint64_t rows = plane_ / row.extent;
  for (uint64_t m = 0; m < rows; ++m) {
    uint64_t row_base = base;
    for (size_t a = tile + 1; a < last; ++a) row_base += axes_[a].offset(mid[a]);
    for (uint64_t j = j0; j < j0 + planes;) {
      const uint64_t run_j = regular_run(across, j, j0 + planes - j);
      const uint64_t source = row_base + across.offset(j);
      for (uint64_t i = 0; i < row.extent;) {
        const uint64_t run_i = regular_run(row, i, row.extent - i);
        transpose(access, source + row.offset(i), across.inner, row.inner, run_j, run_i,
                  out + (j - j0) * plane_ + m * row.extent + i, plane_);
        i += run_i;
      }
      j += run_j;
    }
    for (size_t a = last; a-- > tile + 1;) {
      if (++mid[a] < axes_[a].extent) break;
      mid[a] = 0;
    }
  }
}

uint32_t LayoutGather::siblings() const {
  if (tile_axis_ < 0) return 1;
  const GatherAxis& across = axes_[size_t(tile_axis_)];
  // A C0 group (blocked axis), or 16 indices of a plain one: bounds the caller's scratch.
  return uint32_t(std::min<uint64_t>({across.block, across.extent, ElementSource::kMaxSiblings}));
}

uint32_t LayoutGather::siblings_from(uint64_t plane) const {
  if (tile_axis_ < 0) return 1;
  const uint64_t extent = axes_[size_t(tile_axis_)].extent, group = siblings();
  const uint64_t j = plane % extent;
  return uint32_t(std::min(group - j % group, extent - j));
}

// The same elements as `n` copy() calls on ranges one plane apart: each piece of the ranges that
// lies inside one plane is, for all n ranges together, an (n x run) tile at consecutive indices of
// the tile axis. Pieces whose siblings would leave the tile axis's extent are copied one by one.
template <typename Access>
void LayoutGather::copy_siblings(const Access& access, uint64_t first, uint32_t n, uint64_t count,
                                 typename Access::Value* out, uint64_t out_row) const {
  const size_t tile = size_t(tile_axis_), last = axes_.size() - 1;
  const GatherAxis& across = axes_[tile];
  const GatherAxis& row = axes_[last];
  for (uint64_t done = 0; done < count;) {
    const uint64_t at = first + done;
    const uint64_t in_plane = at % plane_;
    const uint64_t take = std::min(count - done, plane_ - in_plane);
    uint64_t slab = at / plane_;
    const uint64_t j = slab % across.extent;
    slab /= across.extent;
    if (j + n > across.extent) {
      for (uint32_t k = 0; k < n; ++k) copy(access, at + k * plane_, take, out + k * out_row + done);
      done += take;
      continue;
    }
    uint64_t base = 0;
    for (size_t a = tile; a-- > 0;) {
      base += axes_[a].offset(slab % axes_[a].extent);
      slab /= axes_[a].extent;
    }
    // Rows of the axes after the tile axis inside this piece: mid index, then a run of the row.
    uint64_t index[kMaxRank] = {};
    uint64_t rest = in_plane;
    for (size_t a = last + 1; a-- > tile + 1;) {
      index[a] = rest % axes_[a].extent;
      rest /= axes_[a].extent;
    }
    for (uint64_t piece = 0; piece < take;) {
      uint64_t row_base = base;
      for (size_t a = tile + 1; a < last; ++a) row_base += axes_[a].offset(index[a]);
      const uint64_t length = std::min(take - piece, row.extent - index[last]);
      for (uint64_t k = 0; k < n;) {
        const uint64_t run_k = regular_run(across, j + k, n - k);
        const uint64_t source = row_base + across.offset(j + k);
        for (uint64_t i = 0; i < length;) {
          const uint64_t position = index[last] + i;
          const uint64_t run_i = regular_run(row, position, length - i);
          transpose(access, source + row.offset(position), across.inner, row.inner, run_k, run_i,
                    out + k * out_row + done + piece + i, out_row);
          i += run_i;
        }
        k += run_k;
      }
      piece += length;
      index[last] += length;
      for (size_t a = last; a > tile + 1 && index[a] == axes_[a].extent; --a) {
        index[a] = 0;
        ++index[a - 1];
      }
    }
    done += take;
  }
}

// Grouped FRACTAL_Z: the channel term depends on the group of the output channel, so each element
// looks its offset up (these are weights: small tensors).
template <typename Access>
void LayoutGather::copy_coupled(const Access& access, uint64_t first, uint64_t count,
                                typename Access::Value* out) const {
  const LayoutPlan& p = plan_;
  const size_t rank = p.shape.size(), c = size_t(p.coupled_axis), n = size_t(p.key_axis);
  uint64_t index[kMaxRank];
  uint64_t rest = first;
  for (size_t a = rank; a-- > 0;) {
    index[a] = rest % p.shape[a];
    rest /= p.shape[a];
  }
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t offset = p.offsets[c][p.keys[index[n]] * p.shape[c] + index[c]];
    for (size_t a = 0; a < rank; ++a)
      if (a != c) offset += p.offsets[a][index[a]];
    out[i] = access.load(offset);
    for (size_t a = rank; a-- > 0;) {
      if (++index[a] < p.shape[a]) break;
      index[a] = 0;
    }
  }
}

template <typename Access>
void LayoutGather::copy(const Access& access, uint64_t first, uint64_t count, typename Access::Value* out) const {
  if (count == 0) return;
  if (plan_.coupled_axis >= 0) return copy_coupled(access, first, count, out);
  const uint64_t end = first + count;
  uint64_t at = first;
  while (at < end) {
    if (tile_axis_ < 0) {
      copy_rows(access, at, end - at, out + (at - first));
      break;
    }
    const uint64_t in_plane = at % plane_;
    if (in_plane == 0) {
      const uint64_t extent = axes_[size_t(tile_axis_)].extent;
      const uint64_t planes = std::min(extent - (at / plane_) % extent, (end - at) / plane_);
      if (planes >= 2) {
        copy_planes(access, at, planes, out + (at - first));
        at += planes * plane_;
        continue;
      }
    }
    // A partial plane (range edges), or a single one: rows up to the next plane start.
    const uint64_t take = std::min(end - at, plane_ - in_plane);
    copy_rows(access, at, take, out + (at - first));
    at += take;
  }
}

void LayoutGather::gather(const std::byte* stored, unsigned unit_bytes, uint64_t first, uint64_t count,
                          std::byte* out) const {
  switch (unit_bytes) {
    case 1: return copy(PlainAccess<Unit<1>>{reinterpret_cast<const Unit<1>*>(stored)}, first, count, reinterpret_cast<Unit<1>*>(out));
    case 2: return copy(PlainAccess<Unit<2>>{reinterpret_cast<const Unit<2>*>(stored)}, first, count, reinterpret_cast<Unit<2>*>(out));
    case 4: return copy(PlainAccess<Unit<4>>{reinterpret_cast<const Unit<4>*>(stored)}, first, count, reinterpret_cast<Unit<4>*>(out));
    case 8: return copy(PlainAccess<Unit<8>>{reinterpret_cast<const Unit<8>*>(stored)}, first, count, reinterpret_cast<Unit<8>*>(out));
    case 16: return copy(PlainAccess<Unit<16>>{reinterpret_cast<const Unit<16>*>(stored)}, first, count, reinterpret_cast<Unit<16>*>(out));
    default: throw std::logic_error("unsupported element width");
  }
}

void LayoutGather::gather_int4(const std::byte* stored, uint64_t first, uint64_t count, int8_t* out) const {
  copy(Int4Access{reinterpret_cast<const uint8_t*>(stored)}, first, count, out);
}

void LayoutGather::gather_siblings(const std::byte* stored, unsigned unit_bytes, uint64_t first, uint32_t n,
                                   uint64_t count, std::byte* out, uint64_t out_row) const {
  if (count == 0 || n == 0) return;
  if (tile_axis_ < 0 || plan_.coupled_axis >= 0) throw std::logic_error("sibling ranges need a tiled gather");
  switch (unit_bytes) {
    case 1: return copy_siblings(PlainAccess<Unit<1>>{reinterpret_cast<const Unit<1>*>(stored)}, first, n, count, reinterpret_cast<Unit<1>*>(out), out_row);
    case 2: return copy_siblings(PlainAccess<Unit<2>>{reinterpret_cast<const Unit<2>*>(stored)}, first, n, count, reinterpret_cast<Unit<2>*>(out), out_row);
    case 4: return copy_siblings(PlainAccess<Unit<4>>{reinterpret_cast<const Unit<4>*>(stored)}, first, n, count, reinterpret_cast<Unit<4>*>(out), out_row);
    case 8: return copy_siblings(PlainAccess<Unit<8>>{reinterpret_cast<const Unit<8>*>(stored)}, first, n, count, reinterpret_cast<Unit<8>*>(out), out_row);
    case 16: return copy_siblings(PlainAccess<Unit<16>>{reinterpret_cast<const Unit<16>*>(stored)}, first, n, count, reinterpret_cast<Unit<16>*>(out), out_row);
    default: throw std::logic_error("unsupported element width");
  }
}

void LayoutGather::gather_siblings_int4(const std::byte* stored, uint64_t first, uint32_t n, uint64_t count,
                                        int8_t* out, uint64_t out_row) const {
  if (count == 0 || n == 0) return;
  if (tile_axis_ < 0 || plan_.coupled_axis >= 0) throw std::logic_error("sibling ranges need a tiled gather");
  copy_siblings(Int4Access{reinterpret_cast<const uint8_t*>(stored)}, first, n, count, out, out_row);
}

}  // namespace opdiff
