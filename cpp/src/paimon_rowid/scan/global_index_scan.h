// Global indexes on the read side (docs/global-index.md §"Reading"): the live files of an
// index, key lookups, and the row ranges a predicate's `=` / `IN` conjuncts leave to read.
// The build and drop are indexing/global_index.h. Stateless; thread-safe.
#pragma once

#include <arrow/array.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/common/row_range.h"
#include "paimon_rowid/meta/manifest.h"
#include "paimon_rowid/scan/predicate.h"

namespace paimon_rowid {

/// The live files of the (field, type) index in `snapshot` (single-field indexes only).
Result<std::vector<IndexManifestEntry>> LiveGlobalIndexFiles(const Table& table,
                                                             const Snapshot& snapshot,
                                                             int32_t field_id,
                                                             const std::string& index_type);

/// What an index says about `column IN keys`: the absolute row ids of the matching rows among
/// the covered ranges (ascending, distinct) and the covered ranges (sorted, merged). Rows
/// outside `covered` are unknown to the index and must be scanned.
struct GlobalIndexLookup {
  std::vector<int64_t> row_ids;
  std::vector<RowRange> covered;
  int64_t files_read = 0;
};

/// Looks `keys` (null keys skipped) up in the btree index of `column` at `snapshot`: files
/// whose first/last keys exclude every key are not read. Invalid for an unknown column;
/// KeyError when the column has no btree index.
Result<GlobalIndexLookup> LookupGlobalIndex(const Table& table, const Snapshot& snapshot,
                                            const std::string& column, const arrow::Array& keys);

/// What planning through the indexes did: the plan statistic.
struct GlobalIndexPlanStats {
  std::vector<std::string> columns;  // indexed columns whose `=` / `IN` conjuncts were used
  int64_t files_read = 0;            // index files read
  int64_t rows_total = 0;            // the snapshot's row ids: [0, nextRowId)
  int64_t rows_selected = 0;         // row ids left to read (matches + rows not covered)
};

struct GlobalIndexRanges {
  std::vector<RowRange> ranges;  // sorted, merged
  GlobalIndexPlanStats stats;
};

/// The row ranges `predicate` can match according to the btree indexes of `snapshot`: each
/// top-level AND conjunct (or the predicate itself) that is `=` or `IN` on a column with a btree
/// index gives its matching row ids plus every row id its index does not cover (appended after
/// the build, other partitions), and the conjuncts' ranges are intersected. nullopt when no
/// conjunct is answered by an index, or `global-index.enabled` is false. Columns whose key type
/// has no codec yet are skipped. Errors reading or decoding an index file are returned.
Result<std::optional<GlobalIndexRanges>> RangesFromGlobalIndexes(const Table& table,
                                                                 const Snapshot& snapshot,
                                                                 const Predicate& predicate);

}  // namespace paimon_rowid
