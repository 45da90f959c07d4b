// opdiff._core: batches of tensor pairs compared on the core's pool (pair_batch.hpp), as typed
// requests and outcomes, the dumps they need opened on that pool ahead of time (file_opening.hpp),
// and the large files they will map read into the page cache ahead of them (read_ahead.hpp).
#include <pybind11/native_enum.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "opdiff/dtype.hpp"
#include "opdiff/file_opening.hpp"
#include "opdiff/metrics.hpp"
#include "opdiff/pair_batch.hpp"
#include "opdiff/read_ahead.hpp"
#include "opdiff/thread_pool.hpp"

namespace py = pybind11;
using namespace opdiff;

py::tuple metrics_fields(const MetricsResult& m);              // metrics_bindings.cpp

namespace {

// How long a wait runs without the GIL before it looks for a signal (Ctrl-C) to handle.
constexpr std::chrono::milliseconds kSignalCheck{50};

py::tuple shape_tuple(const std::vector<uint64_t>& shape) {
  py::tuple t(shape.size());
  for (size_t k = 0; k < shape.size(); ++k) t[k] = py::int_(shape[k]);
  return t;
}

// Stops a batch and waits for its running tasks, without the GIL (they never need it).
template <typename Batch>
void cancel_and_drain(Batch& batch) {
  py::gil_scoped_release release;
  batch.cancel();
  try {
    batch.wait();
  } catch (const std::exception&) {  // the batch is abandoned: its error no longer matters
  }
}

// Waits for the batch, working on it; a pending signal (KeyboardInterrupt) cancels it and raises.
template <typename Batch>
void wait_checking_signals(Batch& batch) {
  for (;;) {
    bool done;
    {
      py::gil_scoped_release release;
      done = batch.help_until(ThreadPool::Clock::now() + kSignalCheck);
    }
    if (done) return;
    if (PyErr_CheckSignals() != 0) {
      py::error_already_set error;  // takes the pending exception before the drain
      cancel_and_drain(batch);
      throw error;
    }
  }
}

std::optional<std::string> golden_dtype_name(const PairOutcome& o) {
  if (!o.golden_dtype) return std::nullopt;
  return std::string(dtype_name(*o.golden_dtype));
}

// What a row needs of an outcome, in one call (a run makes thousands of rows, and each property
// read is a call of its own).
py::tuple row_facts(const PairOutcome& o) {
  const bool compared = o.status == PairStatus::compared;
  return py::make_tuple(compared, golden_dtype_name(o), o.golden_data_type, o.golden_address, shape_tuple(o.my_shape),
                        shape_tuple(o.golden_shape), compared ? py::object(metrics_fields(o.metrics)) : py::none(),
                        compared ? py::object(py::str(o.reference_text)) : py::none());
}

template <typename T>
py::list list_of(const std::vector<T>& items) {
  py::list out(items.size());
  for (size_t i = 0; i < items.size(); ++i) out[i] = py::cast(items[i]);
  return out;
}

py::list wait_for_outcomes(PairBatch& batch) {
  wait_checking_signals(batch);
  return list_of(batch.outcomes());
}

py::list wait_for_files(FileOpening& opening) {
  wait_checking_signals(opening);
  return list_of(opening.results());
}

void register_read_ahead(py::module_& m) {
  py::class_<ReadAhead>(m, "ReadAhead",
                        "Reads the large files a comparison will map next into the page cache, on a thread of its "
                        "own, at most window_bytes past the position advance() names (read_ahead.hpp). Pages "
                        "already cached are not read again; files it cannot read are passed over.")
      .def(py::init<std::vector<std::string>, std::vector<size_t>, uint64_t>(), py::arg("paths"), py::arg("stops"),
           py::arg("window_bytes") = kReadAheadDefaultWindowBytes,
           "paths in the order the comparison reaches them; stops[k]: the index of position k's first path.")
      .def("advance", &ReadAhead::advance, py::arg("position"), "The comparison has reached position `position`.")
      .def("settle", &ReadAhead::settle, py::call_guard<py::gil_scoped_release>(),
           "Wait until everything the window allows now is read (for tests).")
      .def("stop", &ReadAhead::stop, py::call_guard<py::gil_scoped_release>(),
           "Stop after the read in flight and wait for the thread.")
      .def_property_readonly("bytes_read", &ReadAhead::bytes_read, "Bytes read from the disk into the page cache.")
      .def_property_readonly("bytes_resident", &ReadAhead::bytes_resident, "Bytes found in the page cache already.")
      .def_property_readonly("stepped_aside", &ReadAhead::stepped_aside,
                             "Whether it stopped early: a whole window ahead of the comparison, with pages it read from the disk.")
      .def_property_readonly("files_passed_over", &ReadAhead::files_passed_over,
                             "Paths not read: small, repeated, unreadable or with a page cache this process cannot see.");
}

}  // namespace

void register_pairs(py::module_& m) {
  // A Python enum.Enum: members compare by identity and list in order, as Python code expects.
  py::native_enum<PairStatus>(m, "PairStatus", "enum.Enum", "How a pair came out.")
      .value("compared", PairStatus::compared)
      .value("golden_unreadable", PairStatus::golden_unreadable, "message: the partner file's error")
      .value("my_type_unsupported", PairStatus::my_type_unsupported)
      .value("golden_type_unsupported", PairStatus::golden_type_unsupported)
      .value("counts_differ", PairStatus::counts_differ, "the logical shapes hold different element counts")
      .value("order_differs", PairStatus::order_differs,
             "equal counts, but my original shape and the golden's are not one reshape of the other")
      .value("failed", PairStatus::failed, "message: what went wrong laying out or reading")
      .finalize();

  m.def(
      "reconcile_layout",
      [](int64_t format, const std::vector<uint64_t>& mine,
         const std::vector<uint64_t>& golden) -> std::optional<std::pair<int64_t, std::vector<uint64_t>>> {
        const auto laid_out = reconcile_layout(format, mine, golden);
        if (!laid_out) return std::nullopt;
        return std::make_pair(laid_out->format, laid_out->shape);
      },
      py::arg("format"), py::arg("mine"), py::arg("golden"),
      "(format, shape) my tensor is laid out in against a golden of shape `golden`, given its own logical format "
      "and shape: the golden's shape when equal, mine when one reshape apart, NCHW/NHWC flipped to the golden's "
      "when one is the other's permutation; None when the element orders may differ.");

  py::class_<PairRequest>(m, "PairRequest", "One tensor of an open file against its partner in another file.")
      .def(py::init([](std::shared_ptr<TensorFile> mine, TensorRole role, uint32_t index, std::string golden_path,
                       TensorRole golden_role, uint32_t golden_index, std::optional<int64_t> target_format,
                       uint64_t max_elements, std::optional<std::vector<uint64_t>> target_shape) {
             return PairRequest{std::move(mine), role,        index,         std::move(golden_path),
                                golden_role,     golden_index, target_format, max_elements,
                                std::move(target_shape)};
           }),
           py::arg("mine"), py::arg("role"), py::arg("index"), py::arg("golden_path"), py::arg("golden_role"),
           py::arg("golden_index"), py::arg("target_format") = py::none(), py::arg("max_elements") = 0,
           py::arg("target_shape") = py::none(),
           "target_format: lay my tensor out in this Ascend format with the golden's shape (None: each side in "
           "its own logical layout); max_elements > 0: compare only the first that many elements; "
           "target_shape: my tensor's own logical shape in target_format (its original shape), compared with "
           "a golden of another shape by element count where the element order allows (else order_differs).")
      .def_property_readonly("mine", [](const PairRequest& r) { return std::const_pointer_cast<TensorFile>(r.mine); })
      .def_readonly("role", &PairRequest::role)
      .def_readonly("index", &PairRequest::index)
      .def_readonly("golden_path", &PairRequest::golden_path)
      .def_readonly("golden_role", &PairRequest::golden_role)
      .def_readonly("golden_index", &PairRequest::golden_index)
      .def_readonly("target_format", &PairRequest::target_format)
      .def_readonly("max_elements", &PairRequest::max_elements)
      .def_readonly("target_shape", &PairRequest::target_shape);

  py::class_<PairOutcome>(m, "PairOutcome", "What became of one PairRequest.")
      .def_readonly("status", &PairOutcome::status)
      .def_readonly("message", &PairOutcome::message)
      .def_property_readonly("golden_dtype", &golden_dtype_name,
                             "The partner's core element type, None when it cannot be decoded.")
      .def_readonly("golden_data_type", &PairOutcome::golden_data_type, "The partner's Ascend data type number.")
      .def_readonly("golden_address", &PairOutcome::golden_address)
      .def_property_readonly("my_shape", [](const PairOutcome& o) { return shape_tuple(o.my_shape); })
      .def_property_readonly("golden_shape", [](const PairOutcome& o) { return shape_tuple(o.golden_shape); })
      .def_property_readonly(
          "metrics",
          [](const PairOutcome& o) -> std::optional<MetricsResult> {
            if (o.status != PairStatus::compared) return std::nullopt;
            return o.metrics;
          },
          "Every metric when compared, else None.")
      .def_property_readonly(
          "reference_text",
          [](const PairOutcome& o) -> std::optional<std::string> {
            if (o.status != PairStatus::compared) return std::nullopt;
            return o.reference_text;
          },
          "When compared, the reference CSV's text of the ten reference metrics (-alg order, joined as a CSV "
          "line holds them), written by the thread that compared the pair; else None.")
      .def("row_facts", &row_facts,
           "(compared, golden_dtype, golden_data_type, golden_address, my_shape, golden_shape, metrics.fields() or "
           "None, reference_text or None): what a row needs, in one call.");

  py::class_<PairBatch>(m, "PairBatch",
                        "Pairs compared in the background on the core's pool, started when made; wait() works on "
                        "them too and returns one PairOutcome per request, in order.")
      .def(py::init([](std::vector<PairRequest> requests, std::shared_ptr<TensorFileCache> cache, double rtol,
                       double atol, bool kl, size_t threads) {
             const MetricsOptions options{rtol, atol, kl, false};  // scalar_shape: decided per pair
             return std::make_unique<PairBatch>(std::move(requests), std::move(cache), options, default_thread_pool(),
                                                threads);
           }),
           py::arg("requests"), py::arg("cache"), py::arg("rtol") = MetricsOptions::kDefaultRtol,
           py::arg("atol") = MetricsOptions::kDefaultAtol, py::arg("kl") = true, py::arg("threads") = 0,
           "Partner files come from `cache`; at most `threads` pairs at once (0 = every core).")
      .def("wait", &wait_for_outcomes,
           "The outcomes, once every pair is done; Ctrl-C cancels the batch and raises KeyboardInterrupt.")
      .def("cancel", &cancel_and_drain<PairBatch>, "Start no more pairs and wait for those running.")
      .def("__len__", &PairBatch::size);

  py::class_<OpenedFile>(m, "OpenedFile", "One path of a FileOpening: the open file, or why it could not be opened.")
      .def_property_readonly(
          "file",
          [](const OpenedFile& o) -> std::shared_ptr<TensorFile> { return std::const_pointer_cast<TensorFile>(o.file); },
          "The open file, None when it could not be opened.")
      .def_readonly("error", &OpenedFile::error, "What DumpFormatError would say, when `file` is None.");

  py::class_<FileOpening>(m, "FileOpening",
                          "Files opened in the background on the core's pool, started when made; wait() works on "
                          "them too and returns one OpenedFile per path, in order.")
      .def(py::init([](std::vector<std::string> paths) {
             return std::make_unique<FileOpening>(std::move(paths), default_thread_pool());
           }),
           py::arg("paths"))
      .def("wait", &wait_for_files,
           "The opened files, once every one is done; Ctrl-C cancels the opening and raises KeyboardInterrupt.")
      .def("cancel", &cancel_and_drain<FileOpening>, "Open no more files and wait for those being opened.")
      .def("__len__", &FileOpening::size);
  register_read_ahead(m);
}
