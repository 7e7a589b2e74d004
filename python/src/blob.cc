// BLOB descriptors and payload fetches for paimon_rowid.blob. The descriptor bytes are encoded
// and decoded by codec/blob_file.h, and payloads are read by read/blob_reader.h, which checks
// each one against its .blob entry's CRC, so descriptors resolved in Python are checked
// exactly like payloads read by a table read. Python only holds the values.
//
// BlobFiles reads ranges through a table's own FileIO: a REST table's data token is refreshed
// from the server as for any other file of the table (catalog/rest_token_file_io.h). It
// pickles as a table does (directory, filesystem options with the current token, the REST
// catalog's state), without opening the table on the other side, so Ray tasks that fetch
// payloads get the table's credentials and their refresh, not a frozen copy of its keys.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "arrow/array.h"
#include "common.h"
#include "paimon_rowid/catalog/rest_catalog.h"
#include "paimon_rowid/catalog/snapshot_commit.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/codec/blob_file.h"
#include "paimon_rowid/fs/file_io.h"
#include "paimon_rowid/read/blob_reader.h"

namespace paimon_rowid::python {
namespace {

using RangeTuple = std::tuple<nb::object, int64_t, int64_t>;

// The bytes of any object `bytes(obj)` accepts (bytes, bytearray, memoryview, ...), viewed
// without a copy when the object exports a contiguous buffer. Holds the GIL-owned references
// that keep the view alive.
class BytesView {
 public:
  explicit BytesView(nb::handle obj) {
    if (PyObject_GetBuffer(obj.ptr(), &buffer_, PyBUF_SIMPLE) == 0) {
      has_buffer_ = true;
      view_ =
          std::string_view(static_cast<const char*>(buffer_.buf), static_cast<size_t>(buffer_.len));
      return;
    }
    PyErr_Clear();
    copy_ = nb::steal(PyBytes_FromObject(obj.ptr()));
    if (!copy_.is_valid()) throw nb::python_error();
    view_ = std::string_view(PyBytes_AS_STRING(copy_.ptr()),
                             static_cast<size_t>(PyBytes_GET_SIZE(copy_.ptr())));
  }
  ~BytesView() {
    if (has_buffer_) PyBuffer_Release(&buffer_);
  }
  BytesView(const BytesView&) = delete;
  BytesView& operator=(const BytesView&) = delete;

  std::string_view view() const { return view_; }

 private:
  Py_buffer buffer_{};
  bool has_buffer_ = false;
  nb::object copy_;
  std::string_view view_;
};

// A Python str from UTF-8 bytes; UnicodeDecodeError (a ValueError) when they are not UTF-8.
nb::object Utf8(const std::string& text) {
  PyObject* str = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "strict");
  if (str == nullptr) throw nb::python_error();
  return nb::steal(str);
}

bool IsBytesLike(nb::handle obj) {
  return PyBytes_Check(obj.ptr()) || PyByteArray_Check(obj.ptr()) || PyMemoryView_Check(obj.ptr());
}

BlobDescriptor Parse(std::string_view bytes) { return Unwrap(BlobDescriptor::Deserialize(bytes)); }

using RangeList = std::vector<std::tuple<std::string, int64_t, int64_t>>;

// The payloads of `ranges` through `io` (checked against their CRCs), as Python bytes.
nb::list ReadRanges(const FileIO& io, const RangeList& ranges) {
  std::vector<BlobRange> in;
  in.reserve(ranges.size());
  for (const auto& [uri, offset, length] : ranges) in.push_back({uri, offset, length});
  auto buffers = WithoutGil([&] { return ReadBlobRanges(io, in); });
  nb::list out;
  for (const auto& b : buffers) {
    out.append(nb::bytes(reinterpret_cast<const char*>(b->data()), static_cast<size_t>(b->size())));
  }
  return out;
}

// A table's files, for payload reads (see the top of this file). Thread-safe: the FileIO is.
struct BlobFiles {
  std::string path;
  std::shared_ptr<FileIO> io;
  std::map<std::string, std::string> commit_state;  // a REST table's catalog state, else empty
};

}  // namespace

void RegisterBlob(nb::module_& m) {
  m.def(
      "blob_descriptor_serialize",
      [](const std::string& uri, int64_t offset, int64_t length) {
        const std::string bytes = BlobDescriptor{uri, offset, length}.Serialize();
        return nb::bytes(bytes.data(), bytes.size());
      },
      nb::arg("uri"), nb::arg("offset"), nb::arg("length"));

  m.def(
      "blob_descriptor_deserialize",
      [](nb::handle data) {
        BytesView bytes(data);
        BlobDescriptor d = Parse(bytes.view());
        return std::make_tuple(Utf8(d.uri), d.offset, d.length, static_cast<int>(d.version));
      },
      nb::arg("data"));

  m.def(
      "blob_looks_like_descriptor",
      [](nb::handle data) {
        BytesView bytes(data);
        return BlobDescriptor::LooksLikeDescriptor(bytes.view());
      },
      nb::arg("data"));

  m.def(
      "blob_array_holds_descriptor",
      [](nb::handle array) {
        auto values = ImportArrayFrom(array);
        auto any_descriptor = [](const auto& binary) {
          for (int64_t i = 0; i < binary.length(); ++i) {
            if (binary.IsValid(i) && BlobDescriptor::LooksLikeDescriptor(binary.GetView(i))) {
              return true;
            }
          }
          return false;
        };
        switch (values->type_id()) {
          case arrow::Type::BINARY:
          case arrow::Type::STRING:
            return any_descriptor(static_cast<const arrow::BinaryArray&>(*values));
          case arrow::Type::LARGE_BINARY:
          case arrow::Type::LARGE_STRING:
            return any_descriptor(static_cast<const arrow::LargeBinaryArray&>(*values));
          default:
            throw nb::type_error("expected a binary or string array");
        }
      },
      nb::arg("array"));

  m.def(
      "blob_ranges_of",
      [](nb::sequence values) {
        std::vector<RangeTuple> out;
        out.reserve(nb::len(values));
        for (nb::handle value : values) {
          if (!IsBytesLike(value) ||
              !BlobDescriptor::LooksLikeDescriptor(BytesView(value).view())) {
            throw nb::value_error(
                "expected serialized BlobDescriptor values (read with "
                "'blob-as-descriptor'='true'), got raw bytes");
          }
          BlobDescriptor d = Parse(BytesView(value).view());
          out.emplace_back(Utf8(d.uri), d.offset, d.length);
        }
        return out;
      },
      nb::arg("values"));

  m.def(
      "read_blob_ranges",
      [](const RangeList& ranges, const std::map<std::string, std::string>& options) {
        // The filesystem of the first uri, configured by the catalog options (an object
        // store's endpoint and keys); without options, the local one.
        std::shared_ptr<FileIO> io = FileIO::Local();
        if (!options.empty() && !ranges.empty()) {
          io = Unwrap(FileIO::Make(std::get<0>(ranges.front()), options));
        }
        return ReadRanges(*io, ranges);
      },
      nb::arg("ranges"), nb::arg("options") = std::map<std::string, std::string>());

  nb::class_<BlobFiles>(m, "BlobFiles")
      .def(
          "__init__",
          [](BlobFiles* self, const Table& table) {
            std::map<std::string, std::string> state;
            if (table.snapshot_commit()) state = table.snapshot_commit()->State();
            new (self) BlobFiles{table.path(), table.file_io(), std::move(state)};
          },
          nb::arg("table"))
      .def_ro("path", &BlobFiles::path)
      .def(
          "read",
          [](const BlobFiles& self, const RangeList& ranges) {
            // Descriptors into local files are read locally whatever the table's filesystem
            // (as read_blob_ranges with the table's options did).
            if (!ranges.empty() && !self.io->CheckUri(std::get<0>(ranges.front())).ok() &&
                FileIO::Local()->CheckUri(std::get<0>(ranges.front())).ok()) {
              return ReadRanges(*FileIO::Local(), ranges);
            }
            return ReadRanges(*self.io, ranges);
          },
          nb::arg("ranges"))
      .def("__getstate__",
           [](const BlobFiles& self) {
             return std::make_tuple(self.path, self.io->options(), self.commit_state);
           })
      .def("__setstate__",
           [](BlobFiles& self, const std::tuple<std::string, std::map<std::string, std::string>,
                                                std::map<std::string, std::string>>& state) {
             const auto& [path, io_options, commit_state] = state;
             // A shipped data token is used while fresh; then the server is asked for one.
             auto io = WithoutGil(
                 [&] { return RestCatalog::FileIOFromState(path, io_options, commit_state); });
             new (&self) BlobFiles{path, std::move(io), commit_state};
           });
}

}  // namespace paimon_rowid::python
