#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "opdiff/decode.hpp"
#include "opdiff/dtype.hpp"
#include "opdiff/element_source.hpp"
#include "opdiff/metrics.hpp"
#include "opdiff/reference_text.hpp"
#include "opdiff/simd.hpp"
#include "opdiff/thread_pool.hpp"

namespace py = pybind11;
using namespace opdiff;

namespace {

DType parse_dtype(const std::string& name) {
  if (auto dtype = dtype_from_name(name)) return *dtype;
  throw py::value_error("unsupported dtype: " + name);
}

// A read-only view of a Python buffer holding `count` elements of `dtype`.
struct BufferTensor {
  py::buffer_info info;
  DType dtype;
  uint64_t count;

  BufferTensor(const py::buffer& buffer, const std::string& dtype_name, uint64_t count_, const char* side)
      : info(buffer.request()), dtype(parse_dtype(dtype_name)), count(count_) {
    const uint64_t have = uint64_t(info.size) * uint64_t(info.itemsize);
    if (storage_bytes(dtype, count) > have)
      throw py::value_error(std::string(side) + ": buffer holds " + std::to_string(have) + " bytes, " +
                            std::to_string(count) + " elements of " + dtype_name + " need " +
                            std::to_string(storage_bytes(dtype, count)));
  }
  ContiguousSource source() const { return ContiguousSource(static_cast<const std::byte*>(info.ptr), dtype, count); }
};

const KernelTable* kernels_for(const std::optional<std::string>& simd) {
  if (!simd) return nullptr;
  const KernelTable* table = kernels_by_name(*simd);
  if (!table) throw py::value_error("SIMD path not available on this CPU or build: " + *simd);
  return table;
}

py::tuple side_fields(const SideStats& s) { return py::make_tuple(s.min, s.max, s.mean, s.std, s.nan, s.pos_inf, s.neg_inf); }

SideStats side_from_fields(const py::tuple& t) {
  if (t.size() != 7) throw py::value_error("a side's fields are 7 values (min, max, mean, std, nan, pos_inf, neg_inf)");
  return SideStats{t[0].cast<double>(),   t[1].cast<double>(),   t[2].cast<double>(), t[3].cast<double>(),
                   t[4].cast<uint64_t>(), t[5].cast<uint64_t>(), t[6].cast<uint64_t>()};
}

// The length of a fields() tuple.
constexpr size_t kFieldCount = 18;

}  // namespace

// Every field in one tuple, read by one call: count, x and y (SideStats' fields), the scalar
// fields in opdiff.numerics.schema.VALUE_FIELDS' order, the note bits (pair_bindings.cpp hands
// out a PairOutcome's through it too).
py::tuple metrics_fields(const MetricsResult& m) {
  return py::make_tuple(m.count, side_fields(m.x), side_fields(m.y), m.cosine_similarity, m.max_absolute_error,
                        m.accumulated_relative_error, m.relative_euclidean_distance, m.kullback_leibler_divergence,
                        m.mean_absolute_error, m.root_mean_square_error, m.max_relative_error, m.mean_relative_error,
                        m.max_absolute_error_index, m.max_relative_error_index, m.sqnr_db, m.allclose_fraction,
                        m.norm_ratio_error, m.notes);
}

namespace {

MetricsResult metrics_from_fields(const py::tuple& t) {
  if (t.size() != kFieldCount) throw py::value_error("a MetricsResult's fields are " + std::to_string(kFieldCount) + " values");
  MetricsResult m;
  m.count = t[0].cast<uint64_t>();
  m.x = side_from_fields(t[1].cast<py::tuple>());
  m.y = side_from_fields(t[2].cast<py::tuple>());
  double* const values[] = {&m.cosine_similarity, &m.max_absolute_error, &m.accumulated_relative_error,
                            &m.relative_euclidean_distance, &m.kullback_leibler_divergence, &m.mean_absolute_error,
                            &m.root_mean_square_error, &m.max_relative_error, &m.mean_relative_error};
  size_t k = 3;
  for (double* value : values) *value = t[k++].cast<double>();
  m.max_absolute_error_index = t[k++].cast<uint64_t>();
  m.max_relative_error_index = t[k++].cast<uint64_t>();
  m.sqnr_db = t[k++].cast<double>();
  m.allclose_fraction = t[k++].cast<double>();
  m.norm_ratio_error = t[k++].cast<double>();
  m.notes = t[k].cast<uint32_t>();
  return m;
}

py::tuple reference_cells_tuple(const ReferenceCells& cells) {
  py::tuple out(cells.size());
  for (size_t k = 0; k < cells.size(); ++k) out[k] = py::str(cells[k]);
  return out;
}

}  // namespace

void register_metric_types(py::module_& m) {
  py::class_<SideStats>(m, "SideStats", "Statistics of one side: min/max skip NaN, mean/std propagate NaN and Inf.")
      .def_readonly("min", &SideStats::min)
      .def_readonly("max", &SideStats::max)
      .def_readonly("mean", &SideStats::mean)
      .def_readonly("std", &SideStats::std)
      .def_readonly("nan", &SideStats::nan)
      .def_readonly("pos_inf", &SideStats::pos_inf)
      .def_readonly("neg_inf", &SideStats::neg_inf);

  py::class_<MetricsResult>(m, "MetricsResult",
                            "Every metric of one pair as the core computed it (opdiff.metrics.Metrics is built from it).")
      .def_readonly("count", &MetricsResult::count)
      .def_readonly("x", &MetricsResult::x)
      .def_readonly("y", &MetricsResult::y)
      .def_readonly("cosine_similarity", &MetricsResult::cosine_similarity)
      .def_readonly("max_absolute_error", &MetricsResult::max_absolute_error)
      .def_readonly("accumulated_relative_error", &MetricsResult::accumulated_relative_error)
      .def_readonly("relative_euclidean_distance", &MetricsResult::relative_euclidean_distance)
      .def_readonly("kullback_leibler_divergence", &MetricsResult::kullback_leibler_divergence)
      .def_readonly("mean_absolute_error", &MetricsResult::mean_absolute_error)
      .def_readonly("root_mean_square_error", &MetricsResult::root_mean_square_error)
      .def_readonly("max_relative_error", &MetricsResult::max_relative_error)
      .def_readonly("mean_relative_error", &MetricsResult::mean_relative_error)
      .def_readonly("max_absolute_error_index", &MetricsResult::max_absolute_error_index)
      .def_readonly("max_relative_error_index", &MetricsResult::max_relative_error_index)
      .def_readonly("sqnr_db", &MetricsResult::sqnr_db)
      .def_readonly("allclose_fraction", &MetricsResult::allclose_fraction)
      .def_readonly("norm_ratio_error", &MetricsResult::norm_ratio_error)
      .def_readonly("note_bits", &MetricsResult::notes, "MetricNote bits (cpp/include/opdiff/metrics.hpp), bit 0 first.")
      .def("fields", &metrics_fields,
           "Every field in one tuple (one call instead of thirty attribute reads): count, x and y as tuples of "
           "SideStats' fields, the scalar fields in opdiff.numerics.schema.VALUE_FIELDS' order, note_bits.")
      .def_static("from_fields", &metrics_from_fields, py::arg("fields"), "The MetricsResult of a fields() tuple.")
      .def(
          "reference_cells", [](const MetricsResult& m) { return reference_cells_tuple(opdiff::reference_cells(m)); },
          "The reference CSV's text of the ten reference metrics, in -alg order (cpp/include/opdiff/reference_text.hpp).")
      .def(
          "reference_text", [](const MetricsResult& m) { return reference_csv_text(opdiff::reference_cells(m)); },
          "The ten cells joined as a CSV line holds them (a cell with a comma quoted).");
}

void register_metrics(py::module_& m) {
  m.def(
      "compute_metrics",
      [](const py::buffer& x, const std::string& x_dtype, uint64_t x_count, const py::buffer& y,
         const std::string& y_dtype, uint64_t y_count, double rtol, double atol, bool kl, bool scalar_shape,
         size_t threads, const std::optional<std::string>& simd) {
        const BufferTensor xt(x, x_dtype, x_count, "my (a)");
        const BufferTensor yt(y, y_dtype, y_count, "golden (b)");
        const KernelTable* kernels = kernels_for(simd);
        const ContiguousSource xs = xt.source(), ys = yt.source();
        if (xs.size() != ys.size())
          throw py::value_error("element counts differ: " + std::to_string(xs.size()) + " vs " +
                                std::to_string(ys.size()) + " (complex data counts two components per element)");
        MetricsOptions options;
        options.rtol = rtol;
        options.atol = atol;
        options.kl = kl;
        options.scalar_shape = scalar_shape;
        MetricsResult result;
        {
          py::gil_scoped_release release;
          ThreadPool& pool = default_thread_pool();
          result = compute_metrics(xs, ys, options, &pool, threads == 0 ? pool.size() : threads, kernels);
        }
        return result;
      },
      py::arg("x"), py::arg("x_dtype"), py::arg("x_count"), py::arg("y"), py::arg("y_dtype"), py::arg("y_count"),
      py::arg("rtol") = MetricsOptions::kDefaultRtol, py::arg("atol") = MetricsOptions::kDefaultAtol,
      py::arg("kl") = true, py::arg("scalar_shape") = false, py::arg("threads") = 0, py::arg("simd") = py::none(),
      "Compare two raw buffers element by element; returns every metric.");

  m.def(
      "decode_to_float64",
      [](const py::buffer& data, const std::string& dtype, uint64_t count) {
        const BufferTensor tensor(data, dtype, count, "data");
        const ContiguousSource source = tensor.source();
        py::array_t<double> out(py::ssize_t(source.size()));
        double* dst = out.mutable_data();
        {
          py::gil_scoped_release release;
          const ElementRun run = source.run(0, source.size(), nullptr);
          decode_to_float64(run, size_t(source.size()), dst);
        }
        return out;
      },
      py::arg("data"), py::arg("dtype"), py::arg("count"),
      "Decode raw elements (complex: their components) to a float64 array with the core's decoding table.");

  m.def("simd_info", [] {
    const SimdInfo info = simd_info();
    py::dict d;
    d["active"] = info.active;
    d["supported"] = info.supported;
    d["cpu_features"] = info.cpu_features;
    d["forced_by"] = info.forced_by;
    return d;
  });
  m.def("default_threads", [] { return default_thread_pool().size(); });
  m.attr("CHUNK_ELEMENTS") = kChunkElements;
  m.attr("DEFAULT_RTOL") = MetricsOptions::kDefaultRtol;
  m.attr("DEFAULT_ATOL") = MetricsOptions::kDefaultAtol;
}
