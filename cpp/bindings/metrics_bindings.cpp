#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "opdiff/decode.hpp"
#include "opdiff/dtype.hpp"
#include "opdiff/element_source.hpp"
#include "opdiff/metrics.hpp"
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
      .def_readonly("note_bits", &MetricsResult::notes, "MetricNote bits (cpp/include/opdiff/metrics.hpp), bit 0 first.");
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
