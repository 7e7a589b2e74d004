// Deleting rows of a data-evolution table by _ROW_ID, through deletion vectors
// (docs/deletes.md; pypaimon's TableDeleteByRowId).
//
// A delete rewrites no data file. Per touched (partition, bucket) it writes one new index file
// holding every vector of that bucket (the existing ones, merged with the new positions) and
// returns a commit message that adds it and replaces the bucket's old index files; the
// committer makes that an OVERWRITE snapshot. Positions count from each group's anchor
// (scan/deletion_files.h), so row ids never move.
//
// Messages carry their base snapshot: a concurrent delete of the same bucket, or a compaction
// of a touched group, makes the commit fail with a kCommitConflict error (plan it again).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/meta/commit_message.h"
#include "paimon_rowid/scan/predicate.h"

namespace paimon_rowid {

/// pypaimon's checks, in its order (Invalid): data evolution, row tracking, deletion vectors
/// ("delete requires '<option>' = 'true'.").
Status ValidateDelete(const Table& table);

/// Commit messages deleting `row_ids` (any order; duplicates and already deleted ids are
/// fine) from the snapshot `table` resolves to (the latest, or the one its time-travel options
/// pin). Empty when nothing changes. Invalid for an id outside every file group ("Row ID {id}
/// does not belong to any valid range [...]"). On error no file is left.
Result<std::vector<CommitMessage>> DeleteByRowId(std::shared_ptr<const Table> table,
                                                 std::vector<int64_t> row_ids);

/// True when `predicate` looks at partition keys only, on a partitioned table: such a delete
/// drops whole partitions (DeletePartitions) instead of writing deletion vectors.
bool IsPartitionOnly(const Table& table, const Predicate& predicate);

/// pypaimon's partition fast path of delete_by_predicate: commit messages that delete every
/// data file of the partitions matching `predicate` (evaluated exactly on the partition
/// values), with their index files, at the latest snapshot. No data-evolution or
/// deletion-vector requirement; the committer makes it an OVERWRITE snapshot, which fails with
/// a kCommitConflict error when a concurrent commit replaced one of the files first.
/// REQUIRES: IsPartitionOnly(*table, *predicate).
Result<std::vector<CommitMessage>> DeletePartitions(std::shared_ptr<const Table> table,
                                                    const Predicate& predicate);

}  // namespace paimon_rowid
