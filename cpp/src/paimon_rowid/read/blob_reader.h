// Reads one BLOB column of a data-evolution file group from its `.blob` files (format doc
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
// Thread-safety: the function is reentrant; it opens its own file handles.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arrow/array.h"
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
/// index row count != manifest row count, corrupt nested payload framing).
Result<std::shared_ptr<arrow::Array>> ReadBlobBunch(const FileIO& io,
                                                    std::vector<BlobBunchFile> files,
                                                    const std::vector<int64_t>& row_ids,
                                                    const DataType& type, bool as_descriptor);

/// The payloads referenced by the BlobDescriptor bytes in `stored` (large_binary, e.g. a
/// `blob-descriptor-field` column read with blob-as-descriptor=false): one ranged read per
/// value, each referenced file opened once. Invalid when a value is not descriptor bytes;
/// NotImplemented for non-local uris; IOError when a range lies past the end of its file.
Result<std::shared_ptr<arrow::Array>> DereferenceBlobDescriptors(const FileIO& io,
                                                                 const arrow::Array& stored,
                                                                 const std::string& column);

}  // namespace paimon_rowid
