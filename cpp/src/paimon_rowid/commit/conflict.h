// Data-evolution conflict detection (docs/format.md §5.6), run by the committer on every attempt
// of a commit whose messages carry a check_from_snapshot (updates of existing rows).
// A conflict is a Status with ErrorKind kCommitConflict; it is never retried.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/meta/manifest.h"
#include "paimon_rowid/meta/snapshot.h"

namespace paimon_rowid {

/// Row-id existence: every ADD in `delta` with first_row_id < latest.nextRowId must match a
/// live normal file of the same (partition, bucket) exactly (same first_row_id and row
/// count) when it is a normal file, or lie inside one when it is a blob/vector file.
Status CheckRowIdExistence(const std::vector<ManifestEntry>& live,
                           const std::optional<int64_t>& latest_next_row_id,
                           const std::vector<ManifestEntry>& delta);

/// COMPACT commits: every normal file `delta` adds must lie inside the live normal ranges of
/// its (partition, bucket) -- one range, or several that touch end to end (a compaction may
/// merge adjacent groups) -- and every blob/vector file inside one; and after the commit,
/// overlapping normal files must still cover identical ranges (docs/format.md §5.6, check 2).
Status CheckCompactionCoverage(const std::vector<ManifestEntry>& live,
                               const std::vector<ManifestEntry>& delta);

/// Column conflicts: for every snapshot in (check_from, latest] that is not a COMPACT, an
/// entry whose rows existed at check_from (first_row_id < nextRowId(check_from)) and whose
/// row range overlaps a row range of `delta` while sharing a written field id is a conflict.
Status CheckColumnConflicts(std::shared_ptr<const Table> table, int64_t check_from,
                            const Snapshot& latest, const std::vector<ManifestEntry>& delta);

/// The entries listed in a snapshot's delta manifest list.
Result<std::vector<ManifestEntry>> ReadDeltaEntries(const Table& table, const Snapshot& snapshot);

}  // namespace paimon_rowid
