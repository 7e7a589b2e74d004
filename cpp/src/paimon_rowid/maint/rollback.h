// Rollback of a table to an earlier snapshot or a tag (docs/tags.md), as Java Paimon (1.4.2,
// Table.rollbackTo / RollbackHelper.cleanLargerThan) and pypaimon 2.1.0 do it, with
// pypaimon's checks and messages:
//
//   * every snapshot newer than the retained one R is deleted (newest first), and every tag
//     on a snapshot newer than R (tags on R or older stay);
//   * LATEST is set to R; rolling back to a tag whose snapshot has expired first re-creates
//     snapshot-R from the tag (no-replace) and sets EARLIEST to R, as Java does;
//   * schemas are not rolled back: later reads and commits use the latest schema; the next
//     commit is snapshot R + 1;
//   * data files, manifests and index files are left where they are, as Java and pypaimon
//     leave them (RemoveOrphanFiles deletes them once older than its margin). With
//     `delete_unused_files` (beyond both; what Java's older RollbackHelper did) the files
//     only the deleted snapshots and tags needed go too: the data files the deleted
//     snapshots added (ADD entries of their delta and changelog manifest lists), the deleted
//     tags' data files, their manifest lists, manifests, index manifests and index files —
//     never one that R or a tag that stays names; when rolling back to a tag older than the
//     earliest snapshot, also the still-live files the expired snapshots in between added.
//
// Order, for crash safety: everything is read first (any read error stops the call before a
// deletion); then snapshot files newest first, the hints, tag files, data files, manifests.
// A crash part-way leaves R readable; what it kept from being deleted is an orphan.
// Not coordinated with a commit running at the same time (neither is Java's).
// Long-lived changelogs (changelog/, primary-key tables only) are not touched.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "paimon_rowid/catalog/table.h"

namespace paimon_rowid {

struct RollbackResult {
  int64_t snapshot_id = 0;  // the table's latest snapshot afterwards (R)
  int64_t snapshots_deleted = 0;
  std::vector<std::string> tags_deleted;  // sorted
  int64_t data_files_deleted = 0;         // data files and their extra files
  int64_t manifest_files_deleted = 0;     // manifest lists, manifests, index manifests/files
  int64_t bytes_freed = 0;
};

struct RollbackOptions {
  /// Also delete the files only the deleted snapshots and tags needed (see above).
  bool delete_unused_files = false;
};

/// Rolls back to snapshot `snapshot_id`; when that snapshot file does not exist but a tag
/// holds it, to that tag. Invalid "Rollback snapshot 'N' doesn't exist." otherwise.
Result<RollbackResult> RollbackToSnapshot(std::shared_ptr<const Table> table, int64_t snapshot_id,
                                          RollbackOptions options = {});

/// Rolls back to the snapshot tag `tag_name` holds. Invalid "Tag 'x' doesn't exist.".
Result<RollbackResult> RollbackToTag(std::shared_ptr<const Table> table,
                                     const std::string& tag_name, RollbackOptions options = {});

/// Rolls back to the latest snapshot with timeMillis <= `timestamp_millis`. Invalid "No
/// snapshot found with timestamp earlier than or equal to <ms>ms.".
Result<RollbackResult> RollbackToTimestamp(std::shared_ptr<const Table> table,
                                           int64_t timestamp_millis, RollbackOptions options = {});

}  // namespace paimon_rowid
