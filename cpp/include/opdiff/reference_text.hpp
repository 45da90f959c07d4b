// The reference tool's CSV text of the ten metrics of one pair (docs/reference/reference-tool.md
// §6.1). The core writes it beside the numbers, on the thread that compared the pair, so the
// interpreter's thread only joins the cells of a row. opdiff.report.tensor.reference_format
// states the same rules for pairs compared in Python (plug-in conversions, FFTS+ slices); the two
// agree on every special case (tests/report/test_reference_text.py).
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "opdiff/metrics.hpp"

namespace opdiff {

// The reference's ten algorithms, in its order (-alg 0..9; opdiff.numerics.schema.ALGORITHMS).
constexpr size_t kReferenceMetricCount = 10;
using ReferenceCells = std::array<std::string, kReferenceMetricCount>;

// A number as Python's f"{value:.6f}" prints it, whatever the C locale: "nan" (never "-nan"),
// "inf", "-inf", else fixed notation with six decimals, correctly rounded.
std::string fixed_text(double value, int decimals = 6);

// Each metric's cell: "%.6f" numbers; "NaN" where the reference computes nothing (cosine with one
// side all zero, the max-type metrics and KL of empty tensors, KL not asked for); "1.0" for the
// cosine of two all-zero sides, 1.000000 for a scalar-shaped tensor; StandardDeviation as
// "(mean;std),(mean;std)" with three decimals and magnitudes under 0.001 shown as 0.
ReferenceCells reference_cells(const MetricsResult& metrics);

// The ten cells as one piece of a CSV line, in -alg order: joined by commas, a cell holding a comma
// (StandardDeviation's) in double quotes, as Python's csv module writes it. A row keeps this one
// string rather than ten (a run's rows stay in memory for its reports).
std::string reference_csv_text(const ReferenceCells& cells);

}  // namespace opdiff
