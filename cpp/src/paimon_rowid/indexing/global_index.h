// Global indexes of a data-evolution table (docs/global-index.md): building, dropping and
// looking keys up, with pypaimon 2.1.0's behaviour and files.
//
// An index is identified by (type, field id); its files are listed in the snapshot's index
// manifest, each with the inclusive row-id range it covers. Building one indexes only the
// row ids no live file of the same index covers yet ([0, nextRowId - 1] minus the covered
// ranges, cut at the partitions' contiguous row-id segments), so a second build after appends
// indexes only the appended rows. One build or drop is one atomic APPEND commit; a build that
// fails deletes every index file it wrote, and leaves the table as it was.
//
// Only btree indexes are built and read here (bitmap: NotImplemented). Not thread-safe per
// call; any number of builds may run against one table (the commit refuses a build whose
// ranges a concurrent one covered first: kCommitConflict).
#pragma once

#include <arrow/array.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/common/progress.h"
#include "paimon_rowid/common/row_range.h"
#include "paimon_rowid/meta/manifest.h"
#include "paimon_rowid/scan/global_index_scan.h"
#include "paimon_rowid/scan/predicate.h"

namespace paimon_rowid {

struct GlobalIndexBuildOptions {
  std::string column;
  std::string index_type = "btree";
  /// A predicate on partition keys only; nullptr indexes every partition.
  std::shared_ptr<Predicate> partition_filter;
  /// Overlaid on the table's options: btree-index.block-size, btree-index.bloom-filter.enabled,
  /// btree-index.compression(-level), sorted-index.records-per-file (x 1.2 rows per file, as
  /// pypaimon).
  std::map<std::string, std::string> options;
  /// Counts rows (total: the row ids of the ranges to index; done: those indexed) and is
  /// checked before each range and before the commit. nullptr: none. Not owned.
  ProgressCounter* progress = nullptr;
};

/// Builds the index over the rows it does not cover yet and commits it. Returns the number of
/// index files added (0 when every row is covered or the table is empty). Invalid for an
/// unknown column, a table without row tracking, an unknown index type or a column type no
/// index accepts; NotImplemented for bitmap and for DECIMAL/TIME/TIMESTAMP keys.
Result<int64_t> CreateGlobalIndex(std::shared_ptr<const Table> table,
                                  const GlobalIndexBuildOptions& options);

/// Drops (commits DELETE entries for) the live files of the (column, type) index in the
/// partitions `partition_filter` selects; returns how many. With `dry_run` nothing is
/// committed. The files themselves stay until expiration or orphan cleaning removes them.
Result<int64_t> DropGlobalIndex(std::shared_ptr<const Table> table, const std::string& column,
                                const std::string& index_type,
                                std::shared_ptr<Predicate> partition_filter, bool dry_run);

}  // namespace paimon_rowid
