// opdiff._core: the thin pybind11 layer over the C++ core (convert, release the GIL, call).
#include <pybind11/pybind11.h>

namespace py = pybind11;

void register_metrics(py::module_& m);
void register_dumps(py::module_& m);
void register_statistics(py::module_& m);
void register_metric_types(py::module_& m);
void register_pairs(py::module_& m);

PYBIND11_MODULE(_core, m) {
  m.doc() = "opdiff native core";
  // Types first: the functions' signatures name them.
  register_metric_types(m);
  register_metrics(m);
  register_dumps(m);
  register_pairs(m);
  register_statistics(m);
}
