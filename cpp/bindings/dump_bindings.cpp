// opdiff._core: opening dump and .npy files, laying tensors out, copying them out and comparing
// two of them through the metric engine without materialising either.
#include <pybind11/native_enum.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/typing.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "opdiff/ascend_enums.hpp"
#include "opdiff/dump_header.hpp"
#include "opdiff/dump_error.hpp"
#include "opdiff/layout.hpp"
#include "opdiff/metrics.hpp"
#include "opdiff/pair_batch.hpp"  // compare_tensor_views
#include "opdiff/tensor_file_cache.hpp"
#include "opdiff/tensor_view.hpp"
#include "opdiff/thread_pool.hpp"

namespace py = pybind11;
using namespace opdiff;

namespace {

// pybind11 holders cannot be pointers to const; the file is never modified after opening.
using FileHandle = std::shared_ptr<TensorFile>;

FileHandle handle_of(std::shared_ptr<const TensorFile> file) { return std::const_pointer_cast<TensorFile>(std::move(file)); }

TensorRole parse_role(const std::string& name) {
  if (name == "input") return TensorRole::input;
  if (name == "output") return TensorRole::output;
  if (name == "buffer") return TensorRole::buffer;
  if (name == "workspace") return TensorRole::workspace;
  throw py::value_error("role must be input, output, buffer or workspace, not " + name);
}

// Header strings should be UTF-8 (proto3), but a damaged file must not make reading fail here.
py::str text(const std::string& bytes) {
  PyObject* decoded = PyUnicode_DecodeUTF8(bytes.data(), py::ssize_t(bytes.size()), "replace");
  if (!decoded) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

py::object optional_name(std::optional<std::string_view> name) {
  return name ? py::object(py::str(std::string(*name))) : py::object(py::none());
}

py::tuple dims_tuple(const std::vector<uint64_t>& dims) {
  py::tuple t(dims.size());
  for (size_t k = 0; k < dims.size(); ++k) t[k] = py::int_(dims[k]);
  return t;
}

// A read-only memoryview of a tensor's stored bytes that keeps the file's bytes alive.
py::object stored_bytes(const FileHandle& file, const std::string& role, uint32_t index) {
  const TensorEntry& entry = file->find(parse_role(role), index);
  auto* owner = new FileHandle(file);
  py::capsule keep(owner, [](void* p) { delete static_cast<FileHandle*>(p); });
  // A uint8 array view (numpy owns nothing; the capsule holds the file open).
  py::array_t<uint8_t> array({py::ssize_t(entry.bytes.size)}, {py::ssize_t(1)},
                             reinterpret_cast<const uint8_t*>(entry.bytes.data), keep);
  array.attr("setflags")(py::arg("write") = false);
  return std::move(array);
}

TensorView view_of(const FileHandle& file, const std::string& role, uint32_t index, bool as_stored,
                   std::optional<py::object> format, std::optional<std::vector<uint64_t>> shape) {
  TargetSpec target;
  target.as_stored = as_stored;
  if (format && !format->is_none()) {
    if (py::isinstance<py::str>(*format)) {
      const std::string name = format->cast<std::string>();
      auto number = ascend_format_from_name(name);
      if (!number) throw py::value_error("unknown format name " + name);
      target.format = *number;
    } else {
      target.format = format->cast<int64_t>();
    }
  }
  target.shape = std::move(shape);
  return make_tensor_view(file, parse_role(role), index, target);
}

// `max_elements` > 0 compares only the first that many elements of each side (-max N). Different
// element counts are refused by compare_tensor_views (std::invalid_argument: a ValueError here).
MetricsResult compare(const TensorView& x, const TensorView& y, double rtol, double atol, bool kl,
                      bool scalar_shape, size_t threads, uint64_t max_elements) {
  const MetricsOptions options{rtol, atol, kl, scalar_shape};
  py::gil_scoped_release release;
  ThreadPool& pool = default_thread_pool();
  return compare_tensor_views(x, y, options, max_elements, &pool, threads == 0 ? pool.size() : threads);
}

py::dict header_tensor_dict(const HeaderTensor& h) {
  py::dict d;
  d["data_type"] = h.data_type;
  d["format"] = h.format;
  d["shape"] = h.shape;
  d["original_shape"] = h.original_shape;
  d["size"] = h.size;
  d["sub_format"] = h.sub_format;
  d["address"] = h.address;
  d["offset"] = h.offset;
  d["kind"] = h.kind;
  d["origin_name"] = py::bytes(h.origin_name);
  d["origin_format"] = h.origin_format;
  d["data"] = py::bytes(reinterpret_cast<const char*>(h.data.data), h.data.size);
  return d;
}

// The raw header as the C++ decoder sees it (strings as bytes: protobuf does not check them here).
py::dict header_dict(const py::bytes& message) {
  const std::string_view bytes = message;
  const DumpHeader h = decode_dump_header({reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()});
  py::dict d;
  d["version"] = py::bytes(h.version);
  d["dump_time"] = h.dump_time;
  d["op_name"] = py::bytes(h.op_name);
  py::list attrs;
  for (const auto& [name, value] : h.attrs) attrs.append(py::make_tuple(py::bytes(name), py::bytes(value)));
  d["attrs"] = attrs;
  const std::pair<const char*, const std::vector<HeaderTensor>*> lists[] = {
      {"inputs", &h.inputs}, {"outputs", &h.outputs}, {"buffers", &h.buffers}, {"workspaces", &h.workspaces}};
  for (const auto& [key, list] : lists) {
    py::list items;
    for (const auto& tensor : *list) items.append(header_tensor_dict(tensor));
    d[key] = items;
  }
  return d;
}

// DumpFormatError (a ValueError) for damaged files, their messages decoded leniently.
void register_dump_error(py::module_& m) {
  static py::exception<DumpFormatError> dump_error(m, "DumpFormatError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const DumpFormatError& e) {
      py::set_error(dump_error, text(e.what()));  // messages may quote damaged, non-UTF-8 bytes
    } catch (const ParseError& e) {
      py::set_error(dump_error, text(e.what()));
    }
  });
}

// TensorRole, TensorFile and TensorEntry: an opened file and the tensors it lists.
void register_tensor_files(py::module_& m) {
  py::native_enum<TensorRole>(m, "TensorRole", "enum.Enum", "Which list of a dump a tensor is in.")
      .value("input", TensorRole::input)
      .value("output", TensorRole::output)
      .value("buffer", TensorRole::buffer)
      .value("workspace", TensorRole::workspace)
      .finalize();

  py::class_<TensorFile, FileHandle>(m, "TensorFile", "An opened dump or .npy file (its bytes held in memory: read whole, or mapped when large).")
      .def_readonly("path", &TensorFile::path)
      .def_property_readonly("form", [](const TensorFile& f) { return form_name(f.form); })
      .def_property_readonly("version", [](const TensorFile& f) { return text(f.version); })
      .def_property_readonly("op_name", [](const TensorFile& f) { return text(f.op_name); })
      .def_readonly("dump_time", &TensorFile::dump_time)
      .def_property_readonly("file_size", [](const TensorFile& f) { return f.contents ? f.contents->bytes().size : uint64_t{0}; },
                             "Bytes of the file when it was opened.")
      .def_property_readonly("truncated", [](const TensorFile& f) { return f.contents && f.contents->truncated(); },
                             "Whether the file shrank on disk since it was opened (bytes read since then are void).")
      .def("check_intact", &TensorFile::check_intact,
           "Raise DumpFormatError when the file shrank on disk since it was opened; call after reading its bytes.")
      .def_property_readonly("attrs", [](const TensorFile& f) {
        py::list list;
        for (const auto& [name, value] : f.attrs) list.append(py::make_tuple(text(name), text(value)));
        return list;
      })
      .def_property_readonly(
          "tensors",
          [](const py::object& self) {
            // Each entry refers into the file object, which it keeps alive.
            const auto& file = self.cast<const TensorFile&>();
            py::list list;
            for (const TensorEntry& entry : file.tensors)
              list.append(py::cast(&entry, py::return_value_policy::reference_internal, self));
            return list;
          },
          "The tensors in file order (inputs, outputs, buffers, workspaces).");

  py::class_<TensorEntry>(m, "TensorEntry", "One tensor of an opened file: its header facts as stored.")
      .def_property_readonly("role", [](const TensorEntry& e) { return e.header.role; })
      .def_readonly("index", &TensorEntry::index, "Position within its role.")
      .def_property_readonly("data_type", [](const TensorEntry& e) { return e.header.data_type; }, "Ascend number.")
      .def_property_readonly("dtype",
                             [](const TensorEntry& e) -> std::optional<std::string> {
                               if (!e.dtype) return std::nullopt;
                               return std::string(dtype_name(*e.dtype));
                             },
                             "The core element type, None when opdiff cannot decode it.")
      .def_property_readonly("format", [](const TensorEntry& e) { return e.header.format; }, "Ascend number.")
      .def_property_readonly("sub_format", [](const TensorEntry& e) { return e.header.sub_format; })
      .def_property_readonly("shape", [](const TensorEntry& e) { return dims_tuple(e.header.shape); })
      .def_property_readonly("original_shape", [](const TensorEntry& e) { return dims_tuple(e.header.original_shape); })
      .def_property_readonly("size", [](const TensorEntry& e) { return e.header.size; })
      .def_property_readonly("address", [](const TensorEntry& e) { return e.header.address; })
      .def_property_readonly("offset", [](const TensorEntry& e) { return e.header.offset; })
      .def_property_readonly("kind", [](const TensorEntry& e) { return e.header.kind; })
      .def_property_readonly("origin_name", [](const TensorEntry& e) { return text(e.header.origin_name); })
      .def_property_readonly("origin_format", [](const TensorEntry& e) { return e.header.origin_format; },
                             "original_op.format (Ascend number) of an output whose dump has an original_op, else None.")
      .def_readonly("element_count", &TensorEntry::element_count)
      .def_readonly("fortran_order", &TensorEntry::fortran_order);

  m.def(
      "open_tensor_file",
      [](const std::string& path) {
        py::gil_scoped_release release;
        return handle_of(open_tensor_file(path));
      },
      py::arg("path"), "Open and validate a dump (v2, v1, nano) or .npy file; raises DumpFormatError.");
  m.def("stored_bytes", &stored_bytes, py::arg("file"), py::arg("role"), py::arg("index"),
        "The stored bytes of one tensor as a read-only uint8 array over the file's bytes (no copy).");
}

// TensorView: one tensor in a logical layout, and the comparison of two of them.
void register_tensor_views(py::module_& m) {
  py::class_<TensorView>(m, "TensorView", "One tensor laid out in a logical format; an ElementSource for the core.")
      .def(py::init(&view_of), py::arg("file"), py::arg("role"), py::arg("index"), py::arg("as_stored") = false,
           py::arg("format") = py::none(), py::arg("shape") = py::none())
      .def_property_readonly("shape", [](const TensorView& v) { return v.shape(); })
      .def_property_readonly("format", [](const TensorView& v) { return v.source->plan().target_format; })
      .def_property_readonly("identity", [](const TensorView& v) { return v.source->plan().identity; })
      .def_property_readonly("dtype", [](const TensorView& v) { return std::string(dtype_name(v.output_dtype)); })
      .def_property_readonly("stored_dtype",
                             [](const TensorView& v) { return std::string(dtype_name(v.source->stored_dtype())); })
      .def_property_readonly("count", [](const TensorView& v) { return v.source->logical_count(); })
      .def_property_readonly("file", [](const TensorView& v) { return handle_of(v.file); })
      .def(
          "read_into",
          [](const TensorView& v, const py::buffer& out) {
            py::buffer_info info = out.request(true);
            const uint64_t needed = v.source->logical_count() * (dtype_info(v.output_dtype).bits / 8);
            if (uint64_t(info.size) * uint64_t(info.itemsize) != needed)
              throw py::value_error("output buffer holds " + std::to_string(info.size * info.itemsize) +
                                    " bytes, the tensor needs " + std::to_string(needed));
            py::gil_scoped_release release;
            copy_logical(v, static_cast<std::byte*>(info.ptr));
          },
          py::arg("out"), "Copy the logical elements into a writable contiguous buffer of the exact size.")
      .def(
          "read_range",
          [](const TensorView& v, uint64_t start, uint64_t count) {
            const ElementSource& source = *v.source;
            if (start > source.size() || count > source.size() - start)
              throw py::value_error("range past the end of the tensor");
            const uint64_t width = dtype_info(source.dtype()).bits / 8;
            if (width == 0) throw py::value_error("packed int4 read as stored has no byte-wide elements");
            std::vector<std::byte> scratch(count * ElementSource::kScratchBytesPerElement);
            std::string bytes(count * width, '\0');
            {
              py::gil_scoped_release release;
              const ElementRun run = source.run(start, count, scratch.data());
              std::memcpy(bytes.data(), run.data, bytes.size());
            }
            return py::bytes(bytes);
          },
          py::arg("start"), py::arg("count"),
          "Components [start, start + count) as the metric engine reads them, in the source's element type "
          "(for tests: any range, chunk edges anywhere).")
      .def(
          "read_siblings",
          [](const TensorView& v, uint64_t first, uint64_t stride, uint32_t n, uint64_t count) {
            const ElementSource& source = *v.source;
            const uint64_t size = source.size();
            if (n == 0 || first > size || count > size - first ||
                (n > 1 && stride > 0 && uint64_t(n - 1) > (size - first - count) / stride))
              throw py::value_error("ranges past the end of the tensor");
            const uint64_t width = dtype_info(source.dtype()).bits / 8;
            if (width == 0) throw py::value_error("packed int4 read as stored has no byte-wide elements");
            std::vector<std::byte> scratch(n * count * ElementSource::kScratchBytesPerElement);
            std::vector<ElementRun> runs(n);
            std::vector<std::string> parts(n, std::string(count * width, '\0'));
            {
              py::gil_scoped_release release;
              source.run_siblings(first, stride, n, count, scratch.data(), runs.data());
              for (uint32_t k = 0; k < n; ++k) std::memcpy(parts[k].data(), runs[k].data, parts[k].size());
            }
            py::list list;
            for (const std::string& part : parts) list.append(py::bytes(part));
            return list;
          },
          py::arg("first"), py::arg("stride"), py::arg("n"), py::arg("count"),
          "Ranges [first + k * stride, ... + count) for k < n read in one pass (ElementSource::run_siblings).")
      .def_property_readonly("sibling_stride", [](const TensorView& v) { return v.source->sibling_stride(); })
      .def_property_readonly("sibling_count", [](const TensorView& v) { return v.source->sibling_count(); })
      .def_property_readonly("gather_axes",
                             [](const TensorView& v) {
                               py::list list;
                               for (const GatherAxis& a : v.source->gather().axes())
                                 list.append(py::dict(py::arg("extent") = a.extent, py::arg("block") = a.block,
                                                      py::arg("inner") = a.inner, py::arg("outer") = a.outer,
                                                      py::arg("regular") = a.table == nullptr));
                               return list;
                             },
                             "The gather's merged axes (tests and benches: which fast path a layout takes).")
      .def_property_readonly("tile_axis", [](const TensorView& v) { return v.source->gather().tile_axis(); })
      .def(
          "write_file",
          [](const TensorView& v, const std::string& path, const py::bytes& prefix, bool float32) {
            std::string head = prefix;
            py::gil_scoped_release release;
            write_logical(v, path, head, float32);
          },
          py::arg("path"), py::arg("prefix") = py::bytes(), py::arg("float32") = false,
          "Write prefix + logical elements to a new file (float32=True widens real types to float32).");

  m.def(
      "compare_views",
      [](const TensorView& x, const TensorView& y, double rtol, double atol, bool kl, bool scalar_shape,
         size_t threads, uint64_t max_elements) {
        return compare(x, y, rtol, atol, kl, scalar_shape, threads, max_elements);
      },
      py::arg("x"), py::arg("y"), py::arg("rtol") = MetricsOptions::kDefaultRtol,
      py::arg("atol") = MetricsOptions::kDefaultAtol, py::arg("kl") = true, py::arg("scalar_shape") = false,
      py::arg("threads") = 0, py::arg("max_elements") = 0,
      "Every metric of x (my) against y (golden), reading both through their layouts; as compute_metrics.\n"
      "max_elements > 0 compares only the first that many logical elements of each side.");
}

// TensorFileCache: the partner files kept open across the pairs of a batch.
void register_file_cache(py::module_& m) {
  py::class_<TensorFileCache, std::shared_ptr<TensorFileCache>>(m, "TensorFileCache",
                              "Recently opened files by path (thread-safe; unreadable files remembered with their error). "
                              "Holds at most budget_bytes of files, never one larger.")
      .def(py::init<size_t, uint64_t>(), py::arg("capacity") = TensorFileCache::kDefaultCapacity,
           py::arg("budget_bytes") = TensorFileCache::kDefaultBudgetBytes)
      .def(
          "get",
          [](TensorFileCache& cache, const std::string& path) {
            std::shared_ptr<const TensorFile> file;
            {
              py::gil_scoped_release release;
              file = cache.get(path);
            }
            return handle_of(std::move(file));
          },
          py::arg("path"), "The open file at path (opened now or earlier); raises its DumpFormatError.")
      .def_property_readonly("files", &TensorFileCache::files)
      .def_property_readonly("bytes", &TensorFileCache::bytes);
}

// The dump header decoder and the Ascend number <-> name tables.
void register_ascend_tables(py::module_& m) {
  m.def("decode_dump_header", &header_dict, py::arg("message"),
        "Decode a serialised DumpData with the core's wire decoder (for tests and tools).");
  m.def("ascend_dtype_name", [](int64_t n) { return optional_name(ascend_dtype_name(n)); });
  m.def("ascend_format_name", [](int64_t n) { return optional_name(ascend_format_name(n)); });
  m.def("ascend_dtype_table", [] {
    py::typing::Dict<py::int_, py::str> names;
    for (const auto& [number, name] : ascend_dtype_table()) names[py::int_(number)] = py::str(std::string(name));
    return names;
  }, "Every DT_* number and its name (dump_data.proto's OutputDataType).");
  m.def("ascend_format_table", [] {
    py::typing::Dict<py::int_, py::str> names;
    for (const auto& [number, name] : ascend_format_table()) names[py::int_(number)] = py::str(std::string(name));
    return names;
  }, "Every FORMAT_* number and its name without the prefix (dump_data.proto's OutputFormat).");
  m.def("ascend_format_number", [](const std::string& name) { return ascend_format_from_name(name); });
  m.def("dtype_from_ascend", [](int64_t n) {
    auto dtype = dtype_from_ascend(n);
    return dtype ? py::object(py::str(std::string(dtype_name(*dtype)))) : py::object(py::none());
  });
  m.def(
      "dtype_bits",
      [](const std::string& name) {
        auto dtype = dtype_from_name(name);
        if (!dtype) throw py::value_error("unknown dtype " + name);
        return dtype_info(*dtype).bits;
      },
      py::arg("name"), "Storage bits of one element of a core dtype (4 for int4; a complex element's both parts).");
  m.def(
      "dtype_names",
      [] {
        std::vector<std::string> names;
        for (int i = 0; i < kDTypeCount; ++i) names.emplace_back(dtype_name(static_cast<DType>(i)));
        return names;
      },
      "Every element type the core decodes, by name, in the core's dtype table order.");
  m.def("ascend_from_dtype", [](const std::string& name) {
    auto dtype = dtype_from_name(name);
    if (!dtype) throw py::value_error("unknown dtype " + name);
    return ascend_from_dtype(*dtype);
  });
  m.def("default_target_format", &default_target_format, py::arg("stored_format"), py::arg("stored_rank"));
  m.def("reference_converts", &reference_converts, py::arg("stored_format"), py::arg("target_format"));
  m.attr("AS_STORED") = kAsStored;
}

}  // namespace

void register_dumps(py::module_& m) {
  register_dump_error(m);
  register_tensor_files(m);  // types before the functions whose signatures name them
  register_tensor_views(m);
  register_file_cache(m);
  register_ascend_tables(m);
}
