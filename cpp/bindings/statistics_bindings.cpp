// opdiff._core: reading many statistics dumps at once (the regular ones; see statistics_csv.hpp).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "opdiff/statistics_csv.hpp"

namespace py = pybind11;
using namespace opdiff;

namespace {

py::tuple shape_of(const StatisticsLine& line) {
  py::tuple shape(line.shape.size());
  for (size_t k = 0; k < line.shape.size(); ++k) shape[k] = py::int_(line.shape[k]);
  return shape;
}

// TensorStatistics' field names as interned Python strings, made once: a dict keyed by them is
// built without making its keys again (they live as long as the process, as interned names do).
enum Field { kRole, kIndex, kDataType, kFormat, kShape, kCount, kMax, kMin, kMean, kNan, kNegInf, kPosInf, kDataSize, kFields };

const std::array<PyObject*, kFields>& field_names() {
  static const std::array<PyObject*, kFields> names = [] {
    const char* texts[kFields] = {"role", "index", "data_type", "format", "shape", "count", "max", "min",
                                  "mean", "nan", "neg_inf", "pos_inf", "data_size"};
    std::array<PyObject*, kFields> made{};
    for (size_t k = 0; k < kFields; ++k) made[k] = PyUnicode_InternFromString(texts[k]);
    return made;
  }();
  return names;
}

// Every field by the name opdiff.numerics.tensor_statistics.TensorStatistics gives it, in its
// order, in one call: 100,000 files make 200,000 lines, and thirteen attribute reads a line cost
// more than its parse.
py::dict fields_of(const StatisticsLine& line) {
  const auto& names = field_names();
  py::dict fields;
  const auto set = [&](Field field, const py::object& value) {
    if (PyDict_SetItem(fields.ptr(), names[field], value.ptr()) != 0) throw py::error_already_set();
  };
  set(kRole, py::str(line.input ? "input" : "output"));
  set(kIndex, py::int_(line.index));
  set(kDataType, py::str(line.data_type));
  set(kFormat, py::str(line.format));
  set(kShape, shape_of(line));
  set(kCount, py::int_(line.count));
  set(kMax, py::float_(line.max));
  set(kMin, py::float_(line.min));
  set(kMean, py::float_(line.mean));
  set(kNan, py::int_(line.nan));
  set(kNegInf, py::int_(line.neg_inf));
  set(kPosInf, py::int_(line.pos_inf));
  set(kDataSize, py::int_(line.data_size));
  return fields;
}

}  // namespace

void register_statistics(py::module_& m) {
  py::class_<StatisticsLine>(m, "StatisticsLine", "One tensor's line of a statistics CSV in the regular form.")
      .def_property_readonly("role", [](const StatisticsLine& line) { return line.input ? "input" : "output"; })
      .def_readonly("index", &StatisticsLine::index)
      .def_readonly("data_size", &StatisticsLine::data_size)
      .def_readonly("data_type", &StatisticsLine::data_type, "The DT_* name as written.")
      .def_readonly("format", &StatisticsLine::format)
      .def_property_readonly("shape", &shape_of, "Stored dims; () for \"-\".")
      .def_readonly("count", &StatisticsLine::count)
      .def_readonly("max", &StatisticsLine::max)
      .def_readonly("min", &StatisticsLine::min)
      .def_readonly("mean", &StatisticsLine::mean)
      .def_readonly("nan", &StatisticsLine::nan)
      .def_readonly("neg_inf", &StatisticsLine::neg_inf)
      .def_readonly("pos_inf", &StatisticsLine::pos_inf)
      .def("fields", &fields_of, "Every field in a new dict, keyed by TensorStatistics' field names.");

  m.def(
      "read_statistics_files",
      [](const std::vector<std::string>& paths, size_t threads) {
        py::gil_scoped_release release;
        return read_regular_statistics(paths, threads);
      },
      py::arg("paths"), py::arg("threads") = 0,
      "Read and parse statistics CSVs in the device's regular form, on `threads` threads (0 = all), the GIL\n"
      "released. One entry per path: its StatisticsLines in file order, or None where the file cannot be read\n"
      "or has an irregular line (opdiff.dumps.statistics then reads it and says why).");
}
