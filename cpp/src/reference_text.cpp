#include "opdiff/reference_text.hpp"

#include <charconv>
#include <cmath>

namespace opdiff {

namespace {

constexpr char kNotComputed[] = "NaN";

bool has(const MetricsResult& m, MetricNote note) { return (m.notes & note) != 0; }

// StandardDeviation's values: magnitudes under 0.001 print as 0 (NaN stays NaN).
double shown_spread(double value) { return std::fabs(value) < 0.001 ? 0.0 : value; }

std::string standard_deviation_text(const MetricsResult& m) {
  return "(" + fixed_text(shown_spread(m.x.mean), 3) + ";" + fixed_text(shown_spread(m.x.std), 3) + "),(" +
         fixed_text(shown_spread(m.y.mean), 3) + ";" + fixed_text(shown_spread(m.y.std), 3) + ")";
}

std::string cosine_text(const MetricsResult& m) {
  if (has(m, kNoteScalar)) return fixed_text(1.0);
  if (has(m, kNoteBothZero)) return "1.0";
  if (has(m, kNoteMyZero) || has(m, kNoteGoldenZero)) return kNotComputed;
  return fixed_text(m.cosine_similarity);
}

// A max-type metric (or KL): not computed for empty tensors.
std::string unless_empty(const MetricsResult& m, double value) {
  return has(m, kNoteEmpty) ? kNotComputed : fixed_text(value);
}

}  // namespace

std::string fixed_text(double value, int decimals) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  // The largest double in fixed notation: 309 digits, a sign, a point and the decimals.
  char buffer[330];
  const auto written = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals);
  return std::string(buffer, written.ptr);
}

ReferenceCells reference_cells(const MetricsResult& m) {
  const bool kl_skipped = has(m, kNoteKlSkipped);
  return {
      cosine_text(m),
      unless_empty(m, m.max_absolute_error),
      fixed_text(m.accumulated_relative_error),
      fixed_text(m.relative_euclidean_distance),
      kl_skipped ? std::string(kNotComputed) : unless_empty(m, m.kullback_leibler_divergence),
      standard_deviation_text(m),
      fixed_text(m.mean_absolute_error),
      fixed_text(m.root_mean_square_error),
      unless_empty(m, m.max_relative_error),
      fixed_text(m.mean_relative_error),
  };
}

std::string reference_csv_text(const ReferenceCells& cells) {
  std::string text;
  for (const std::string& cell : cells) {
    if (!text.empty()) text += ',';
    // No cell holds a quote or a line end; StandardDeviation's holds a comma.
    if (cell.find(',') != std::string::npos)
      text += '"' + cell + '"';
    else
      text += cell;
  }
  return text;
}

}  // namespace opdiff
