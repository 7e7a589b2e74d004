// Key -> row id without a locator table (docs/global-index.md §"Key lookup"): the row ids of
// the rows whose `key_column` holds one of `keys`, at the snapshot the table's options select.
//
// Where a live btree index of the column covers rows, the index answers for them: the keys are
// looked up file by file (files whose first/last keys exclude every key are not read, each data
// block is decoded once), and the row ids found are checked against the snapshot's live rows
// (files replaced or removed since the build, deletion vectors) by a read of `_ROW_ID` alone,
// which decodes no data page. Rows no index file covers (appended after the build, partitions
// the build skipped) are scanned: `key_column IN keys`, pruned by value stats. Without a usable
// index the whole table is scanned that way. An index is not used when `global-index.enabled`
// is false or `global-index.column-update-action` is IGNORE (the index may be stale there).
//
// Thread-safe (stateless); the GIL-free caller may run any number at once.
#pragma once

#include <arrow/array.h>
#include <arrow/table.h>

#include <cstdint>
#include <memory>
#include <string>

#include "paimon_rowid/catalog/table.h"

namespace paimon_rowid {

struct RowIdLookupStats {
  bool index_used = false;
  int64_t index_files_read = 0;
  int64_t index_rows = 0;      // rows found through the index (after the live check)
  int64_t scanned_ranges = 0;  // row-id ranges scanned (0: no scan; -1: the whole table)
  int64_t scanned_rows = 0;    // rows found by the scan
};

/// A table `(key_column, _ROW_ID)` with one row per matching table row, ascending by
/// `_ROW_ID`; keys found in no row are absent, null keys never match. `keys` are cast to the
/// column's type (Invalid when they cannot be). Invalid for an unknown column, a table without
/// row tracking, or a system column as `key_column`. An index file that cannot be read fails
/// the lookup. `stats` (optional) receives what was done.
Result<std::shared_ptr<arrow::Table>> LookupRowIds(std::shared_ptr<const Table> table,
                                                   const arrow::Array& keys,
                                                   const std::string& key_column,
                                                   RowIdLookupStats* stats = nullptr);

}  // namespace paimon_rowid
