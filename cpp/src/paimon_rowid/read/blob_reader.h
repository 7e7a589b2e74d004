// Reads one BLOB column of a data-evolution file group from its `.blob` files (docs/format.md
// §5.3 step 6, §6.2).
//
// The group's blob files of one field form a "bunch". Files are ranked by max sequence number
// (newest first); for each requested row id the newest file covering it decides, unless its
// entry is a placeholder (-2, written by blob updates for rows they did not touch), in which
// case the next older file is asked. A null (-1) is a real value. A row no file resolves reads
// as null. When all files share one max sequence number this is the plain sequential read.
//
// Cost: each touched file's index is read from its tail once (a few bytes per row); then only
// the payloads of the requested rows are fetched, by byte range. Adjacent requested entries
// are coalesced into one read (gaps of at most a few KiB), so scanning a whole file costs one
// pass and a few random rows cost little more than their payloads. In descriptor mode no
// payload byte is read: each value is BlobDescriptor bytes (version 2, uri = the blob file's
// path, offset = payload position, length = payload length).
//
// ARRAY<BLOB> and MAP<K, BLOB> rows are structured payloads (codec/blob_file_nested.h). In
// payload mode the row's whole payload is fetched as above and split into elements; in
// descriptor mode only each row's header, indexes and (maps) keys are read, and every element
// becomes a descriptor of its own byte range, as pypaimon returns them.
//
// Integrity (docs/format.md §6.2): every payload this reader returns is checked against its
// entry's CRC first (the whole entry is read: 16 bytes more per row), and a .blob file whose
// size differs from its manifest entry's is rejected when opened (no extra syscall: the open
// file knows its size). IOError names the file and the row id. In descriptor mode nothing is
// verified here (no payload byte is read); the bytes are verified when a descriptor is
// dereferenced (ReadBlobRanges). The framing of nested rows read in descriptor mode (header,
// indexes, map keys) is checked for consistency only: its CRC needs the whole payload.
//
// Thread-safety: the functions are reentrant; they open their own file handles.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arrow/array.h"
#include "arrow/memory_pool.h"
#include "paimon_rowid/fs/file_io.h"
#include "paimon_rowid/meta/manifest.h"
#include "paimon_rowid/types/data_type.h"

namespace paimon_rowid {

struct BlobBunchFile {
  const DataFileMeta* meta;  // a .blob file with first_row_id set
  std::string path;          // full path (also the descriptor uri)
};

/// The values of `row_ids` (ascending, distinct) from the bunch `files` of a field of `type`
/// (BLOB, ARRAY<BLOB> or MAP<K, BLOB>), in `type.ToArrow()`: large_binary,
/// list<large_binary>, map<K, large_binary>. In descriptor mode every BLOB value (element,
/// map value) is BlobDescriptor bytes. IOError for unreadable / inconsistent files (e.g.
/// index row count != manifest row count, corrupt nested payload framing). The result is
/// built in `pool`, which also holds the bytes read from the files.
Result<std::shared_ptr<arrow::Array>> ReadBlobBunch(
    const FileIO& io, std::vector<BlobBunchFile> files, const std::vector<int64_t>& row_ids,
    const DataType& type, bool as_descriptor,
    arrow::MemoryPool* pool = arrow::default_memory_pool());

/// A byte range of a file, as a BlobDescriptor names it (`uri`: a local path or file: uri).
struct BlobRange {
  std::string uri;
  int64_t offset = 0;
  int64_t length = 0;
};

/// The bytes of each range, in order. Ranges into `.blob` files (the only files that carry
/// checksums) are verified: the entry whose payload holds the range is located (directly when
/// the range is a whole payload, else through the file's index, read once per file per call)
/// and its CRC checked; consecutive ranges inside one entry (the elements of an ARRAY<BLOB>
/// or MAP<K, BLOB> row) reuse the verified entry. IOError when an entry is corrupt, when a
/// range lies outside every payload of a .blob file, or outside any other file;
/// NotImplemented for non-local uris and Invalid for a negative offset or length, both
/// checked for every range before the first byte is read. Other files are read as they are.
/// The bytes are read into buffers of `pool`.
Result<std::vector<std::shared_ptr<arrow::Buffer>>> ReadBlobRanges(
    const FileIO& io, const std::vector<BlobRange>& ranges,
    arrow::MemoryPool* pool = arrow::default_memory_pool());

/// The payloads referenced by the BlobDescriptor bytes in `stored` (large_binary, e.g. a
/// `blob-descriptor-field` column read with blob-as-descriptor=false), read and verified by
/// ReadBlobRanges. Invalid when a value is not descriptor bytes;
/// NotImplemented for non-local uris; IOError when a range lies past the end of its file.
/// The result is built in `pool`.
Result<std::shared_ptr<arrow::Array>> DereferenceBlobDescriptors(
    const FileIO& io, const arrow::Array& stored, const std::string& column,
    arrow::MemoryPool* pool = arrow::default_memory_pool());

}  // namespace paimon_rowid
