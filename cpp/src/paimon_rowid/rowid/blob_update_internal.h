// The BLOB half of a row-id update of one file group (merge_into; docs/merge-into.md, "Writes").
//
// A BLOB column (`.blob`-stored: BLOB, ARRAY<BLOB>, MAP<K, BLOB>; not a `blob-descriptor-field`)
// cannot go to the group's partial Parquet file. Each one is written into `.blob` files
// (write/blob_writer.h, rolling at `blob.target-file-size`) that cover the WHOLE group range
// [f, f + n): the first file has _FIRST_ROW_ID = f, rolled files follow contiguously,
// _WRITE_COLS = [field], sequence numbers 0 so the committer stamps the new snapshot's id,
// which is above every file of the group. Readers take, per row, the value of the newest
// sequence number (docs/format.md §5.3 step 6), so these files win.
//
// Rows the update does not touch carry their current value: their payloads are read (raw
// bytes, never descriptors) from the group's current files and copied. Deleted rows are copied
// too (they stay deleted: positions must stay aligned with the deletion vector).
//
// Memory: the group is processed in row slices of about `slice_bytes` of payload (estimated
// from the group's current .blob files; at least one row), and only the untouched rows of a
// slice are read. Peak memory per group is one slice plus the group's new values (already held
// by the routed source), not the group's payloads.
//
// Errors: the read's and the blob writer's (IOError, Invalid, TypeError). Every created path is
// appended to `*written` before anything is written to it, so the caller deletes them on error.
//
// Thread-safety: reentrant; one call per group, any number of groups in parallel.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arrow/array.h"
#include "arrow/memory_pool.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/meta/manifest.h"
#include "paimon_rowid/read/table_read.h"
#include "paimon_rowid/rowid/row_id_index.h"

namespace paimon_rowid::rowid_internal {

/// True when `field` of `table` is stored in `.blob` files (holds a BLOB and is not a
/// `blob-descriptor-field`, whose descriptors are stored inline in Parquet).
bool IsBlobFileColumn(const Table& table, const DataField& field);

/// A `.blob`-stored update column of one group: the field and its new values, one per
/// updated row in position order (`positions` of WriteBlobColumns).
struct BlobColumnUpdate {
  const DataField* field;
  std::shared_ptr<arrow::Array> new_values;
  /// A TableRead of exactly this column in payload mode (blob-as-descriptor=false).
  std::shared_ptr<TableRead> current;
};

/// The name of the k-th `.blob` file of `field_id` that an update with file stem `stem` writes
/// for the group starting at `first_row_id`.
std::string BlobUpdateFileName(const Table& table, const std::string& stem, int64_t first_row_id,
                               int32_t field_id, int64_t k);

/// Writes the `.blob` files of `columns` for group `g` of `index` and returns their metadata
/// (per column, in rolling order; first row ids set). `positions`: the updated rows' offsets
/// from the group start, ascending and distinct. Files are named by BlobUpdateFileName.
Result<std::vector<DataFileMeta>> WriteBlobColumns(const std::shared_ptr<const Table>& table,
                                                   const RowIdIndex& index, size_t g,
                                                   const std::vector<int64_t>& positions,
                                                   const std::vector<BlobColumnUpdate>& columns,
                                                   const std::string& stem, int64_t slice_bytes,
                                                   arrow::MemoryPool* pool,
                                                   std::vector<std::string>* written);

/// The `.blob` files an update with file stem `stem` wrote for `field_id` in the group: names
/// k = 0, 1, ... while they exist (a writer creates them in that order).
Result<std::vector<std::string>> ExistingBlobUpdatePaths(const Table& table,
                                                         const RowIdIndex::Group& group,
                                                         const std::string& stem, int32_t field_id);

}  // namespace paimon_rowid::rowid_internal
