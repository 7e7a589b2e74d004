// What a commit attempt stamps on its entries before writing manifests (docs/format.md §4.3),
// in this order: sequence numbers from the new snapshot id, entries grouped by partition,
// then first row ids of new APPEND files from the latest snapshot's `nextRowId`. Each attempt
// restamps a fresh copy of the delta's entries, so a retry on a newer snapshot never sees the
// values of an earlier attempt. Pure functions over entries: no I/O, thread-compatible.
#pragma once

#include <cstdint>
#include <vector>

#include "paimon_rowid/common/status.h"
#include "paimon_rowid/meta/manifest.h"

namespace paimon_rowid {

/// Step 1: ADD entries of new files (min sequence number 0) get (snapshot_id, snapshot_id); a
/// file that has a min but no max sequence number gets snapshot_id as its max. DELETE entries
/// name live files as they are listed and are left alone.
void StampSequenceNumbers(std::vector<ManifestEntry>* entries, int64_t snapshot_id);

/// Step 2: the entries of one partition become contiguous, partitions in first-seen order,
/// entries of a partition in their given order.
std::vector<ManifestEntry> GroupByPartition(std::vector<ManifestEntry> entries);

/// Step 3 (row-tracking tables): `first_row_id` of new APPEND files from `start`, in entry
/// order; returns the next row id (the new snapshot's `nextRowId`). Files that have one
/// already, COMPACT files and files whose write columns include `_ROW_ID` keep theirs. A blob
/// (`.blob`) or vector (`.vector.`) file covers rows of the normal file before it: blob files
/// continue per blob field from that file's first row id, vector files one after another from the
/// first new row id. Invalid when a file has no file source, a blob file has no write columns, or a
/// blob or vector file does not follow a normal file covering its rows.
Result<int64_t> AssignRowIds(std::vector<ManifestEntry>* entries, int64_t start);

}  // namespace paimon_rowid
