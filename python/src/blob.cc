// BLOB payload fetches for paimon_rowid.blob: the C++ reader verifies each payload against its
// .blob entry's CRC (read/blob_reader.h), so descriptors resolved in Python are checked exactly
// like payloads read by a table read.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "common.h"
#include "paimon_rowid/fs/file_io.h"
#include "paimon_rowid/read/blob_reader.h"

namespace paimon_rowid::python {

void RegisterBlob(nb::module_& m) {
  m.def("read_blob_ranges",
        [](const std::vector<std::tuple<std::string, int64_t, int64_t>>& ranges) {
          std::vector<BlobRange> in;
          in.reserve(ranges.size());
          for (const auto& [uri, offset, length] : ranges) in.push_back({uri, offset, length});
          auto buffers = WithoutGil([&] { return ReadBlobRanges(*FileIO::Local(), in); });
          nb::list out;
          for (const auto& b : buffers) {
            out.append(nb::bytes(reinterpret_cast<const char*>(b->data()),
                                 static_cast<size_t>(b->size())));
          }
          return out;
        },
        nb::arg("ranges"));
}

}  // namespace paimon_rowid::python
