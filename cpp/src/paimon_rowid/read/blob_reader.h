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
// Thread-safety: the function is reentrant; it opens its own file handles.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arrow/array.h"
#include "paimon_rowid/fs/file_io.h"
#include "paimon_rowid/meta/manifest.h"

namespace paimon_rowid {

struct BlobBunchFile {
  const DataFileMeta* meta;  // a .blob file with first_row_id set
  std::string path;          // full path (also the descriptor uri)
};

/// The values (large_binary) of `row_ids` (ascending, distinct) from the bunch `files`.
/// IOError for unreadable / inconsistent files (e.g. index row count != manifest row count).
Result<std::shared_ptr<arrow::Array>> ReadBlobBunch(const FileIO& io,
                                                    std::vector<BlobBunchFile> files,
                                                    const std::vector<int64_t>& row_ids,
                                                    bool as_descriptor);

}  // namespace paimon_rowid
