#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "metrics_dict.hpp"
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

py::dict side_dict(const SideStats& s) {
  py::dict d;
  d["min"] = s.min;
  d["max"] = s.max;
  d["mean"] = s.mean;
  d["std"] = s.std;
  d["nan"] = s.nan;
  d["pos_inf"] = s.pos_inf;
  d["neg_inf"] = s.neg_inf;
  return d;
}

py::dict result_dict(const MetricsResult& r) {
  py::dict d;
  d["count"] = r.count;
  d["x"] = side_dict(r.x);
  d["y"] = side_dict(r.y);
  d["cosine_similarity"] = r.cosine_similarity;
  d["max_absolute_error"] = r.max_absolute_error;
  d["accumulated_relative_error"] = r.accumulated_relative_error;
  d["relative_euclidean_distance"] = r.relative_euclidean_distance;
  d["kullback_leibler_divergence"] = r.kullback_leibler_divergence;
  d["mean_absolute_error"] = r.mean_absolute_error;
  d["root_mean_square_error"] = r.root_mean_square_error;
  d["max_relative_error"] = r.max_relative_error;
  d["mean_relative_error"] = r.mean_relative_error;
  d["max_absolute_error_index"] = r.max_absolute_error_index;
  d["max_relative_error_index"] = r.max_relative_error_index;
  d["sqnr_db"] = r.sqnr_db;
  d["allclose_fraction"] = r.allclose_fraction;
  d["norm_ratio_error"] = r.norm_ratio_error;
  d["notes"] = r.notes;
  return d;
}

const KernelTable* kernels_for(const std::optional<std::string>& simd) {
  if (!simd) return nullptr;
  const KernelTable* table = kernels_by_name(*simd);
  if (!table) throw py::value_error("SIMD path not available on this CPU or build: " + *simd);
  return table;
}

}  // namespace

py::dict metrics_result_dict(const MetricsResult& result) { return result_dict(result); }

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
        return result_dict(result);
      },
      py::arg("x"), py::arg("x_dtype"), py::arg("x_count"), py::arg("y"), py::arg("y_dtype"), py::arg("y_count"),
      py::arg("rtol") = 1e-3, py::arg("atol") = 1e-5, py::arg("kl") = true, py::arg("scalar_shape") = false,
      py::arg("threads") = 0, py::arg("simd") = py::none(),
      "Compare two raw buffers element by element; returns a dict of metrics.");

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
}
