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
// btree and bitmap indexes are built and read here (the same plan, sort and commit; only the
// file writer differs). Not thread-safe per
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
  /// btree-index.compression(-level), bitmap-index.dictionary-block-size,
  /// bitmap-index.compression (none only), sorted-index.records-per-file (x 1.2 rows per
  /// file, as pypaimon).
  std::map<std::string, std::string> options;
  /// Counts rows (total: the row ids of the ranges to index; done: those indexed) and is
  /// checked before each range and before the commit. nullptr: none. Not owned.
  ProgressCounter* progress = nullptr;
};

/// Builds the index over the rows it does not cover yet and commits it. Returns the number of
/// index files added (0 when every row is covered or the table is empty). Invalid for an
/// unknown column, a table without row tracking, an unknown index type or a column type no
/// index accepts (btree and bitmap are built).
Result<int64_t> CreateGlobalIndex(std::shared_ptr<const Table> table,
                                  const GlobalIndexBuildOptions& options);

/// Drops (commits DELETE entries for) the live files of the (column, type) index in the
/// partitions `partition_filter` selects; returns how many. With `dry_run` nothing is
/// committed. The files themselves stay until expiration or orphan cleaning removes them.
Result<int64_t> DropGlobalIndex(std::shared_ptr<const Table> table, const std::string& column,
                                const std::string& index_type,
                                std::shared_ptr<Predicate> partition_filter, bool dry_run);

/// The rows a global index whose files another library writes (paimon-vindex vector indexes,
/// paimon-ftindex full-text indexes: docs/search.md) does not cover yet, at the latest snapshot.
struct ExternalIndexRange {
  std::string partition;  // BinaryRow bytes
  RowRange range;         // inclusive; one index file (or shard) each
};
struct ExternalIndexPlan {
  int64_t snapshot_id = 0;  // 0: the table has no snapshot
  int32_t field_id = 0;
  std::vector<ExternalIndexRange> ranges;  // ascending by range start
};

/// Plans a build of the (column, index_type) index as CreateGlobalIndex does for btree: each
/// selected partition's contiguous row-id segments of live data files, minus the ranges live
/// files of that index cover. The index type is not checked here (the caller owns the format).
/// Invalid for an unknown column or a table without row tracking.
Result<ExternalIndexPlan> PlanExternalIndexBuild(std::shared_ptr<const Table> table,
                                                 const std::string& column,
                                                 const std::string& index_type,
                                                 std::shared_ptr<Predicate> partition_filter);

/// Commits index files written by another library (ADD entries with `global_index` set, bucket
/// 0, one message per partition) through the ordinary committer and its global-index checks
/// (no overlap with a live file of the same index; ranges over live data). On failure the
/// files are deleted. Returns the snapshot id committed.
Result<int64_t> CommitExternalIndexFiles(std::shared_ptr<const Table> table,
                                         std::vector<IndexManifestEntry> entries);

/// Writes the btree or bitmap files of one planned range (PlanExternalIndexBuild) of `pinned` (a
/// table pinned to the plan's snapshot) without committing them: the sorted rows of `range` cut
/// into files of `sorted-index.records-per-file` x 1.2 rows, as CreateGlobalIndex writes them.
/// Returns their ADD entries (empty when the range holds no row), for
/// CommitExternalIndexFiles; on failure every file written is deleted. The Ray build runs one
/// per task.
Result<std::vector<IndexManifestEntry>> WriteSortedIndexRange(
    std::shared_ptr<const Table> pinned, const GlobalIndexBuildOptions& options,
    const std::string& partition, RowRange range);

/// The row ids the deletion vectors of `snapshot` hide (ascending); empty without any.
Result<std::vector<int64_t>> DeletedRowIds(const Table& table, const Snapshot& snapshot);

}  // namespace paimon_rowid
