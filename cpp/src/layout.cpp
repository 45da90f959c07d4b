#include "opdiff/layout.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <string>
#include <string_view>

#include "opdiff/ascend_enums.hpp"
#include "opdiff/dump_error.hpp"
#include "opdiff/tensor_file.hpp"

namespace opdiff {
namespace {

using Dims = std::vector<uint64_t>;
using F = AscendFormat;

bool is(int64_t number, F format) { return number == static_cast<int64_t>(format); }

std::string format_text(int64_t number) {
  if (number == kAsStored) return "as stored";
  auto name = ascend_format_name(number);
  return name ? std::string(*name) : "format " + std::to_string(number);
}

std::string dims_text(const Dims& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? "," : "") + std::to_string(dims[i]);
  return text + "]";
}

// The axis letters of a plain (unblocked) format; empty for others.
std::string_view plain_letters(int64_t format) {
  switch (static_cast<F>(format)) {
    case F::NCHW: return "NCHW";
    case F::NHWC: return "NHWC";
    case F::HWCN: return "HWCN";
    case F::CHWN: return "CHWN";
    case F::NCDHW: return "NCDHW";
    case F::NDHWC: return "NDHWC";
    case F::DHWCN: return "DHWCN";
    default: return "";
  }
}

Dims row_major_strides(const Dims& shape) {
  Dims strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

// Products of dims read from a file: overflow is a malformed file, never a wrapped offset.
uint64_t mul(uint64_t a, uint64_t b) {
  uint64_t product;
  if (__builtin_mul_overflow(a, b, &product)) throw ParseError("layout dimensions multiply past 2^64");
  return product;
}

// How one named logical axis maps to stored offsets. `variants` > 1 only for the channel axis of
// grouped FRACTAL_Z, whose term depends on a key derived from the output-channel index.
struct AxisTerm {
  uint64_t capacity = 0;
  std::function<uint64_t(uint64_t key, uint64_t index)> offset;
  uint32_t variants = 1;
};

struct LetterLayout {
  std::string letters;                  // the family's axis letters, canonical order
  std::function<AxisTerm(char)> term;   // term of each letter
  std::function<uint32_t(uint64_t)> key_of_n;  // grouped FRACTAL_Z only
};

AxisTerm linear_term(uint64_t capacity, uint64_t stride) {
  return {capacity, [stride](uint64_t, uint64_t k) { return k * stride; }};
}

// An axis split into an outer block index and an inner position: k -> (k / inner) * outer_stride
// + (k % inner) * inner_stride.
AxisTerm blocked_term(uint64_t blocks, uint64_t inner, uint64_t outer_stride, uint64_t inner_stride) {
  return {blocks * inner, [=](uint64_t, uint64_t k) { return (k / inner) * outer_stride + (k % inner) * inner_stride; }};
}

void require_rank(const LayoutRequest& r, size_t rank) {
  if (r.stored_shape.size() != rank)
    throw ParseError(format_text(r.stored_format) + " needs a " + std::to_string(rank) + "-D stored shape, got " +
                     dims_text(r.stored_shape));
}

// Requested logical extent of letter `c` (from the target shape), if any.
struct Requested {
  std::string letters;
  std::optional<Dims> shape;
  std::optional<uint64_t> of(char c) const {
    if (!shape) return std::nullopt;
    return (*shape)[letters.find(c)];
  }
  uint64_t need(char c, const LayoutRequest& r) const {
    auto value = of(c);
    if (!value)
      throw ParseError(format_text(r.stored_format) + " does not store its " + std::string(1, c) +
                       " extent: give the logical (target) shape");
    return *value;
  }
};

// FRACTAL_Z: stored (C1*H*W, No, Ni, C0); with groups the channels of `e` groups share a block.
LetterLayout fractal_z(const LayoutRequest& r, const Requested& want) {
  require_rank(r, 4);
  const Dims& s = r.stored_shape;
  const Dims st = row_major_strides(s);
  const uint64_t h = want.need('H', r), w = want.need('W', r), hw = mul(h, w);
  const uint64_t no = s[1], ni = s[2], c0 = s[3], row = st[0];
  if (ni == 0 || c0 == 0 || hw == 0) throw ParseError("FRACTAL_Z with a zero dimension");
  auto hw_terms = [h, w, row](char c) {
    return c == 'H' ? linear_term(h, w * row) : linear_term(w, row);
  };
  if (r.groups <= 1) {
    if (s[0] % hw) throw ParseError("FRACTAL_Z rows " + std::to_string(s[0]) + " are not a multiple of H*W = " + std::to_string(hw));
    const uint64_t c1 = s[0] / hw;
    return {"NCHW", [=](char c) {
              if (c == 'N') return blocked_term(no, ni, st[1], st[2]);
              if (c == 'C') return blocked_term(c1, c0, hw * row, 1);
              return hw_terms(c);
            }, nullptr};
  }
  const uint64_t g = uint64_t(r.groups), n = want.need('N', r), c_per_group = want.need('C', r);
  if (n == 0 || c_per_group == 0 || n % g) throw ParseError("FRACTAL_Z: N = " + std::to_string(n) + " is not a positive multiple of groups " + std::to_string(g));
  const uint64_t n_per_group = n / g;
  // lcm(C, C0) / C, written as C0 / gcd(C, C0) so it cannot overflow; likewise for N.
  const uint64_t e = std::min({c0 / std::gcd(c_per_group, c0), ni / std::gcd(n_per_group, ni), g});
  const uint64_t c1 = ceil_div(mul(e, c_per_group), c0);
  if (s[0] != mul(mul(ceil_div(g, e), c1), hw) || no != ceil_div(mul(e, n_per_group), ni))
    throw ParseError("FRACTAL_Z stored shape " + dims_text(s) + " does not hold " + std::to_string(g) +
                     " groups of N=" + std::to_string(n) + ", C=" + std::to_string(c_per_group));
  auto n_term = [=](uint64_t, uint64_t k) {
    const uint64_t group = k / n_per_group, in_group = k % n_per_group, dn = (group % e) * n_per_group + in_group;
    return (group / e) * c1 * hw * row + (dn / ni) * st[1] + (dn % ni) * st[2];
  };
  auto c_term = [=](uint64_t key, uint64_t k) {
    const uint64_t dc = key * c_per_group + k;
    return (dc / c0) * hw * row + dc % c0;
  };
  return {"NCHW", [=](char c) {
            if (c == 'N') return AxisTerm{n, n_term, 1};
            if (c == 'C') return AxisTerm{c_per_group, c_term, uint32_t(e)};
            return hw_terms(c);
          },
          [=](uint64_t k) { return uint32_t((k / n_per_group) % e); }};
}

LetterLayout letter_layout(const LayoutRequest& r, const Requested& want) {
  const Dims& s = r.stored_shape;
  const Dims st = row_major_strides(s);
  const int64_t f = r.stored_format;
  if (is(f, F::NC1HWC0) || is(f, F::NC1HWC0_C04)) {
    require_rank(r, 5);
    return {"NCHW", [=](char c) {
              switch (c) {
                case 'N': return linear_term(s[0], st[0]);
                case 'C': return blocked_term(s[1], s[4], st[1], 1);
                case 'H': return linear_term(s[2], st[2]);
                default: return linear_term(s[3], st[3]);
              }
            }, nullptr};
  }
  if (is(f, F::NDC1HWC0)) {
    require_rank(r, 6);
    return {"NCDHW", [=](char c) {
              switch (c) {
                case 'N': return linear_term(s[0], st[0]);
                case 'D': return linear_term(s[1], st[1]);
                case 'C': return blocked_term(s[2], s[5], st[2], 1);
                case 'H': return linear_term(s[3], st[3]);
                default: return linear_term(s[4], st[4]);
              }
            }, nullptr};
  }
  if (is(f, F::C1HWNCoC0)) {
    require_rank(r, 6);
    if (s[4] != s[5]) throw ParseError("C1HWNCoC0 needs Co == C0, got " + dims_text(s));
    // Depthwise weights: channel c sits on the diagonal Co == C0 of its block.
    return {"NCHW", [=](char c) {
              switch (c) {
                case 'N': return linear_term(s[3], st[3]);
                case 'C': return blocked_term(s[0], s[5], st[0], st[4] + 1);
                case 'H': return linear_term(s[1], st[1]);
                default: return linear_term(s[2], st[2]);
              }
            }, nullptr};
  }
  if (is(f, F::FRACTAL_Z)) return fractal_z(r, want);
  if (is(f, F::FRACTAL_Z_3D)) {
    require_rank(r, 4);
    const uint64_t d = want.need('D', r), h = want.need('H', r), w = want.need('W', r), dhw = mul(mul(d, h), w);
    const uint64_t row = st[0], c0 = s[3];
    if (dhw == 0 || c0 == 0 || s[2] == 0 || s[0] % dhw)
      throw ParseError("FRACTAL_Z_3D rows " + std::to_string(s[0]) + " are not a multiple of D*H*W");
    const uint64_t c1 = s[0] / dhw;
    return {"NCDHW", [=](char c) {
              switch (c) {
                case 'N': return blocked_term(s[1], s[2], st[1], st[2]);
                case 'C': return blocked_term(c1, c0, h * w * row, 1);
                case 'D': return linear_term(d, c1 * h * w * row);
                case 'H': return linear_term(h, w * row);
                default: return linear_term(w, row);
              }
            }, nullptr};
  }
  // Plain formats: a permutation.
  const std::string letters(plain_letters(f));
  return {letters, [=](char c) {
            const size_t p = letters.find(c);
            return linear_term(s[p], st[p]);
          }, nullptr};
}

bool is_letter_family(const LayoutRequest& r) {
  const int64_t f = r.stored_format;
  if (!plain_letters(f).empty()) return r.stored_shape.size() == plain_letters(f).size();
  return is(f, F::NC1HWC0) || is(f, F::NC1HWC0_C04) || is(f, F::NDC1HWC0) || is(f, F::C1HWNCoC0) ||
         is(f, F::FRACTAL_Z) || is(f, F::FRACTAL_Z_3D);
}

bool same_letters(std::string a, std::string b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

void plan_letters(const LayoutRequest& r, LayoutPlan& plan) {
  const std::string family = is(r.stored_format, F::NDC1HWC0) || is(r.stored_format, F::FRACTAL_Z_3D) ||
                                     plain_letters(r.stored_format).size() == 5
                                 ? "NCDHW"
                                 : "NCHW";
  std::string target;
  if (is(r.target_format, F::ND)) {
    target = plain_letters(r.stored_format).empty() ? family : std::string(plain_letters(r.stored_format));
  } else {
    target = std::string(plain_letters(r.target_format));
    if (target.empty() || !same_letters(target, family))
      throw ParseError("cannot lay out " + format_text(r.stored_format) + " as " + format_text(r.target_format));
  }
  if (r.target_shape && r.target_shape->size() != target.size())
    throw ParseError("target shape " + dims_text(*r.target_shape) + " is not " + std::to_string(target.size()) +
                     "-D as " + target + " needs");
  // A logical axis maps one to one into the stored elements, so no extent can exceed their
  // count; checking first keeps every later product small.
  const uint64_t stored_count = checked_element_count(r.stored_shape);
  if (r.target_shape)
    for (uint64_t extent : *r.target_shape)
      if (extent > stored_count)
        throw ParseError("target shape " + dims_text(*r.target_shape) + " is larger than the stored " +
                         dims_text(r.stored_shape));
  const Requested want{target, r.target_shape};
  const LetterLayout layout = letter_layout(r, want);
  for (size_t a = 0; a < target.size(); ++a) {
    const char letter = target[a];
    const AxisTerm term = layout.term(letter);
    const uint64_t extent = want.of(letter).value_or(term.capacity);
    if (extent > term.capacity)
      throw ParseError(std::string("logical ") + letter + " = " + std::to_string(extent) + " exceeds the " +
                       std::to_string(term.capacity) + " that " + format_text(r.stored_format) + " " +
                       dims_text(r.stored_shape) + " holds");
    plan.shape.push_back(extent);
    std::vector<uint64_t> table;
    table.reserve(extent * term.variants);
    for (uint32_t key = 0; key < term.variants; ++key)
      for (uint64_t k = 0; k < extent; ++k) table.push_back(term.offset(key, k));
    plan.offsets.push_back(std::move(table));
    if (term.variants > 1) plan.coupled_axis = int(a);
  }
  if (plan.coupled_axis >= 0) {
    plan.key_axis = int(target.find('N'));
    for (uint64_t k = 0; k < plan.shape[plan.key_axis]; ++k) plan.keys.push_back(layout.key_of_n(k));
  }
}

// FRACTAL_NZ: stored (..., C1, No, Ni, C0) holds a batch of row x column matrices.
void plan_fractal_nz(const LayoutRequest& r, LayoutPlan& plan) {
  const Dims& s = r.stored_shape;
  const size_t k = s.size();
  if (k < 4) throw ParseError("FRACTAL_NZ needs at least a 4-D stored shape, got " + dims_text(s));
  const Dims st = row_major_strides(s);
  const uint64_t c1 = s[k - 4], no = s[k - 3], ni = s[k - 2], c0 = s[k - 1];
  if (ni == 0 || c0 == 0) throw ParseError("FRACTAL_NZ with a zero fractal dimension");
  const Dims stored_batch(s.begin(), s.end() - 4);
  Dims t = r.target_shape.value_or(stored_batch);
  if (!r.target_shape) {
    t.push_back(no * ni);
    t.push_back(c1 * c0);
  }
  if (t.empty()) throw ParseError("FRACTAL_NZ target shape is empty");
  const uint64_t rows = t.size() >= 2 ? t[t.size() - 2] : 1, cols = t.back();
  const Dims batch(t.begin(), t.end() - std::min<size_t>(t.size(), 2));
  if (checked_element_count(batch) != checked_element_count(stored_batch) && checked_element_count(t) != 0)
    throw ParseError("FRACTAL_NZ batch " + dims_text(batch) + " does not match the stored " + dims_text(stored_batch));
  if (rows > no * ni || cols > c1 * c0)
    throw ParseError("FRACTAL_NZ " + dims_text(s) + " holds at most " + std::to_string(no * ni) + " x " +
                     std::to_string(c1 * c0) + ", target " + dims_text(t));
  const uint64_t matrix = c1 * no * ni * c0;
  const Dims batch_strides = row_major_strides(batch);
  auto add = [&plan](uint64_t extent, const std::function<uint64_t(uint64_t)>& offset) {
    std::vector<uint64_t> table(extent);
    for (uint64_t i = 0; i < extent; ++i) table[i] = offset(i);
    plan.shape.push_back(extent);
    plan.offsets.push_back(std::move(table));
  };
  for (size_t a = 0; a < batch.size(); ++a) add(batch[a], [&](uint64_t i) { return i * batch_strides[a] * matrix; });
  if (t.size() >= 2) add(rows, [&](uint64_t i) { return (i / ni) * st[k - 3] + (i % ni) * st[k - 2]; });
  add(cols, [&](uint64_t i) { return (i / c0) * st[k - 4] + i % c0; });
}

void plan_positional(const LayoutRequest& r, LayoutPlan& plan, uint64_t stored_count) {
  const Dims& s = r.stored_shape;
  if (r.fortran_order) {
    // Column-major bytes seen in C order: axis a advances by the product of the dims before it.
    if (r.target_shape && *r.target_shape != s)
      throw ParseError("a Fortran-order array cannot be reshaped to " + dims_text(*r.target_shape));
    uint64_t stride = 1;
    for (uint64_t extent : s) {
      std::vector<uint64_t> table(extent);
      for (uint64_t i = 0; i < extent; ++i) table[i] = i * stride;
      plan.shape.push_back(extent);
      plan.offsets.push_back(std::move(table));
      stride *= extent;
    }
    return;
  }
  // Reshape only (the reference's rule for ND and for formats it does not convert).
  plan.shape = r.target_shape.value_or(s);
  if (checked_element_count(plan.shape) != stored_count)
    throw ParseError("cannot reshape " + dims_text(s) + " to " + dims_text(plan.shape));
  plan.identity = true;
}

bool plan_is_identity(const LayoutPlan& plan) {
  if (plan.identity) return true;
  if (plan.coupled_axis >= 0) return false;
  const Dims strides = row_major_strides(plan.shape);
  for (size_t a = 0; a < plan.shape.size(); ++a)
    for (uint64_t i = 0; i < plan.shape[a]; ++i)
      if (plan.offsets[a][i] != i * strides[a]) return false;
  return true;
}

}  // namespace

LayoutPlan plan_layout(const LayoutRequest& r) {
  if (r.stored_shape.size() > kMaxRank || (r.target_shape && r.target_shape->size() > kMaxRank))
    throw ParseError("too many dimensions");
  const uint64_t stored_count = checked_element_count(r.stored_shape);
  LayoutPlan plan;
  plan.target_format = r.target_format;
  if (r.target_shape && r.target_format != kAsStored && checked_element_count(*r.target_shape) == 0) {
    // Nothing to read: no tables (and no per-axis work sized by dims that multiply to zero).
    plan.shape = *r.target_shape;
    plan.identity = true;
    return plan;
  }
  if (r.target_format == kAsStored) {
    LayoutRequest as_stored = r;
    as_stored.target_shape.reset();
    plan_positional(as_stored, plan, stored_count);
  } else if (r.fortran_order || (!is_letter_family(r) && !is(r.stored_format, F::FRACTAL_NZ))) {
    plan_positional(r, plan, stored_count);
  } else if (is(r.stored_format, F::FRACTAL_NZ)) {
    plan_fractal_nz(r, plan);
  } else {
    plan_letters(r, plan);
  }
  const uint64_t logical_count = checked_element_count(plan.shape);
  if (!plan.identity && logical_count > 0) {
    // Every table entry must land inside the stored tensor: the gather then needs no checks.
    uint64_t max_offset = 0;
    for (size_t a = 0; a < plan.offsets.size(); ++a) {
      uint64_t axis_max = 0;
      for (uint64_t value : plan.offsets[a]) axis_max = std::max(axis_max, value);
      if (__builtin_add_overflow(max_offset, axis_max, &max_offset)) throw ParseError("layout offsets overflow");
    }
    if (max_offset >= stored_count)
      throw ParseError(format_text(r.stored_format) + " " + dims_text(r.stored_shape) + " is too small for " +
                       format_text(r.target_format) + " " + dims_text(plan.shape));
    plan.max_offset = max_offset;
    plan.identity = plan_is_identity(plan);
  } else if (plan.identity && logical_count > 0) {
    plan.max_offset = logical_count - 1;
  }
  return plan;
}

int64_t default_target_format(int64_t stored_format, size_t stored_rank) {
  const int64_t f = stored_format;
  if (is(f, F::NC1HWC0) || is(f, F::NC1HWC0_C04) || is(f, F::FRACTAL_Z) || is(f, F::C1HWNCoC0))
    return static_cast<int64_t>(F::NCHW);
  if (is(f, F::NDC1HWC0) || is(f, F::FRACTAL_Z_3D)) return static_cast<int64_t>(F::NCDHW);
  if (!plain_letters(f).empty() && plain_letters(f).size() == stored_rank) return f;
  return static_cast<int64_t>(F::ND);
}

bool reference_converts(int64_t s, int64_t t) {
  if (s == t) return true;
  static const std::pair<F, F> kConverters[] = {
      {F::FRACTAL_NZ, F::NCHW}, {F::FRACTAL_NZ, F::ND},   {F::FRACTAL_NZ, F::NHWC}, {F::FRACTAL_Z, F::HWCN},
      {F::FRACTAL_Z, F::NCHW},  {F::HWCN, F::NCHW},       {F::HWCN, F::NHWC},       {F::NC1HWC0, F::HWCN},
      {F::NC1HWC0, F::NCHW},    {F::NC1HWC0, F::NHWC},    {F::NCHW, F::NHWC},       {F::NDC1HWC0, F::NCDHW},
      {F::NDC1HWC0, F::ND},     {F::NHWC, F::HWCN},       {F::NHWC, F::NCHW},
  };
  for (const auto& [from, to] : kConverters)
    if (is(s, from) && is(t, to)) return true;
  return false;
}

}  // namespace opdiff
