// opdiff._core: reading many statistics dumps at once (the regular ones; see statistics_csv.hpp).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "opdiff/statistics_csv.hpp"

namespace py = pybind11;
using namespace opdiff;

void register_statistics(py::module_& m) {
  m.def(
      "read_statistics_files",
      [](const std::vector<std::string>& paths, size_t threads) {
        std::vector<std::optional<std::vector<StatisticsLine>>> parsed;
        {
          py::gil_scoped_release release;
          parsed = read_regular_statistics(paths, threads);
        }
        py::list out;
        py::str input("input"), output("output");
        // Type and format names repeat in every file: one Python string each.
        std::unordered_map<std::string, py::str> names;
        auto name = [&names](const std::string& text) -> py::str {
          auto found = names.find(text);
          if (found == names.end()) found = names.emplace(text, py::str(text)).first;
          return found->second;
        };
        for (const auto& file : parsed) {
          if (!file) {
            out.append(py::none());
            continue;
          }
          py::list lines;
          for (const StatisticsLine& line : *file) {
            py::tuple shape(line.shape.size());
            for (size_t k = 0; k < line.shape.size(); ++k) shape[k] = py::int_(line.shape[k]);
            lines.append(py::make_tuple(line.input ? input : output, line.index, line.data_size, name(line.data_type),
                                        name(line.format), shape, line.count, line.max, line.min, line.mean, line.nan,
                                        line.neg_inf, line.pos_inf));
          }
          out.append(std::move(lines));
        }
        return out;
      },
      py::arg("paths"), py::arg("threads") = 0,
      "Read and parse statistics CSVs in the device's regular form, on `threads` threads (0 = all), the GIL\n"
      "released. One entry per path: a list of (role, index, data_size, data_type, format, shape, count, max,\n"
      "min, mean, nan, neg_inf, pos_inf) tuples, in file order, or None where the file cannot be read or has\n"
      "an irregular line (opdiff.dumps.statistics then reads it and says why).");
}
