// Global indexes on the read side (docs/global-index.md §"Reading"): the live files of an
// index, key lookups, and the row ranges a predicate leaves to read.
// The build and drop are indexing/global_index.h. Stateless; thread-safe.
#pragma once

#include <arrow/array.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/common/row_range.h"
#include "paimon_rowid/gindex/key_codec.h"
#include "paimon_rowid/meta/manifest.h"
#include "paimon_rowid/scan/predicate.h"

namespace paimon_rowid {

/// Whether reads may depend on the table's global indexes (btree, vector, full-text):
/// `global-index.enabled` (default true), and `global-index.column-update-action` is not IGNORE
/// (under IGNORE an update of an indexed column may have left an index stale, so no read uses
/// one; THROW_ERROR and DROP_PARTITION_INDEX keep every live index true).
Result<bool> GlobalIndexesTrusted(const Table& table);

/// The live files of the (field, type) index in `snapshot` (single-field indexes only).
Result<std::vector<IndexManifestEntry>> LiveGlobalIndexFiles(const Table& table,
                                                             const Snapshot& snapshot,
                                                             int32_t field_id,
                                                             const std::string& index_type);

/// The live btree files of the field in `snapshot`, or without any its live bitmap files: the
/// files key lookups use.
Result<std::vector<IndexManifestEntry>> LiveSortedIndexFiles(const Table& table,
                                                             const Snapshot& snapshot,
                                                             int32_t field_id);

/// What an index says about `column IN keys`: the absolute row ids of the matching rows among
/// the covered ranges (ascending, distinct) and the covered ranges (sorted, merged). Rows
/// outside `covered` are unknown to the index and must be scanned.
struct GlobalIndexLookup {
  std::vector<int64_t> row_ids;
  std::vector<RowRange> covered;
  int64_t files_read = 0;
  int64_t bytes_read = 0;  // of the index files read (ranged: footer, blocks, bitmaps)
};

/// Looks `keys` (encoded, sorted ascending in `codec` order, distinct) up in `files` (live
/// btree or bitmap files of one column) and calls `found(key position, absolute row id)` for each
/// match. Files whose first/last keys exclude every key are not read; each data block is decoded at
/// most once. Returns the covered ranges and files read (`row_ids` is left empty).
Result<GlobalIndexLookup> MatchSortedKeys(const Table& table, const KeyCodec& codec,
                                          const std::vector<IndexManifestEntry>& files,
                                          const std::vector<std::string>& keys,
                                          const std::function<void(size_t, int64_t)>& found);

/// Looks `keys` (null keys skipped) up in the btree index of `column` at `snapshot` (its bitmap
/// index without one): files whose first/last keys exclude every key are not read. Invalid for
/// an unknown column; KeyError when the column has neither.
Result<GlobalIndexLookup> LookupGlobalIndex(const Table& table, const Snapshot& snapshot,
                                            const std::string& column, const arrow::Array& keys);

/// What planning through the indexes did: the plan statistic.
struct GlobalIndexPlanStats {
  std::vector<std::string> columns;  // indexed columns whose leaves answered
  int64_t files_read = 0;            // index files read
  int64_t rows_total = 0;            // the snapshot's row ids: [0, nextRowId)
  int64_t rows_selected = 0;         // row ids left to read (matches + rows not covered)
};

struct GlobalIndexRanges {
  std::vector<RowRange> ranges;  // sorted, merged
  GlobalIndexPlanStats stats;
};

/// The row ranges `predicate` can match according to the btree and bitmap indexes of `snapshot`,
/// a superset of the matching rows (pypaimon's index evaluation in its FULL search mode). A leaf
/// on a column with a btree index (else a bitmap index) answers for `=`, `IN`, `<`, `<=`, `>`,
/// `>=`, `BETWEEN`, `IS NULL` and their negations `!=`, `NOT IN`, `NOT BETWEEN`, `IS NOT NULL`: its
/// matching row ids plus every row id the index does not cover (appended after the build, other
/// partitions). AND intersects the children that answer (the others only widen it); OR answers only
/// when every child does (the union). Other leaves, columns whose key type has no codec yet and
/// literals the column cannot hold do not answer; nor does a range or negation whose candidate
/// index files exceed `btree-index.fallback-scan-max-size` / `bitmap-index.fallback-scan-max-size`
/// (256 MiB, as pypaimon). nullopt when nothing answers, `global-index.enabled` is false, or
/// `global-index.column-update-action` is IGNORE (the index may be stale). Errors reading or
/// decoding an index file are returned.
Result<std::optional<GlobalIndexRanges>> RangesFromGlobalIndexes(const Table& table,
                                                                 const Snapshot& snapshot,
                                                                 const Predicate& predicate);

}  // namespace paimon_rowid
