// opdiff._core: reading many statistics dumps at once (the regular ones; see statistics_csv.hpp).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "opdiff/statistics_csv.hpp"

namespace py = pybind11;
using namespace opdiff;

void register_statistics(py::module_& m) {
  py::class_<StatisticsLine>(m, "StatisticsLine", "One tensor's line of a statistics CSV in the regular form.")
      .def_property_readonly("role", [](const StatisticsLine& line) { return line.input ? "input" : "output"; })
      .def_readonly("index", &StatisticsLine::index)
      .def_readonly("data_size", &StatisticsLine::data_size)
      .def_readonly("data_type", &StatisticsLine::data_type, "The DT_* name as written.")
      .def_readonly("format", &StatisticsLine::format)
      .def_property_readonly("shape",
                             [](const StatisticsLine& line) {
                               py::tuple shape(line.shape.size());
                               for (size_t k = 0; k < line.shape.size(); ++k) shape[k] = py::int_(line.shape[k]);
                               return shape;
                             },
                             "Stored dims; () for \"-\".")
      .def_readonly("count", &StatisticsLine::count)
      .def_readonly("max", &StatisticsLine::max)
      .def_readonly("min", &StatisticsLine::min)
      .def_readonly("mean", &StatisticsLine::mean)
      .def_readonly("nan", &StatisticsLine::nan)
      .def_readonly("neg_inf", &StatisticsLine::neg_inf)
      .def_readonly("pos_inf", &StatisticsLine::pos_inf);

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
