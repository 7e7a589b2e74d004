// Rollback of a table to an earlier snapshot or a tag (docs/tags.md), as Java Paimon's
// Table.rollbackTo / RollbackHelper.cleanLargerThan do it, with pypaimon 2.1.0's checks and
// messages:
//
//   * every snapshot newer than the retained one R is deleted, and every tag on a snapshot
//     newer than R (tags on R or older stay);
//   * the files only those snapshots and tags needed go with them, as Java deletes them
//     (pypaimon leaves them): data files the deleted snapshots added (their delta and
//     changelog manifest lists' ADD entries) and the deleted tags' data files, then their
//     manifest lists, manifests, index manifests and index files — never one that R, or a
//     tag that stays, still names; when rolling back to a tag older than the earliest
//     snapshot, also the files the expired snapshots in between added that are still live
//     (Java leaves those to orphan cleaning);
//   * LATEST is set to R; rolling back to a tag whose snapshot has expired first re-creates
//     snapshot-R from the tag (no-replace) and sets EARLIEST to R, as Java does;
//   * schemas are not rolled back (as Java and pypaimon): later reads and commits use the
//     latest schema; the next commit is snapshot R + 1.
//
// Order, for crash safety: everything is read first (any read error stops the call before a
// deletion); then snapshot files newest first, the hint, tag files, data files, manifests.
// A crash part-way leaves R readable; files it did not reach are orphans
// (RemoveOrphanFiles). Empty partition/bucket directories are left to RemoveOrphanFiles.
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

/// Rolls back to snapshot `snapshot_id`; when that snapshot file does not exist but a tag
/// holds it, to that tag. Invalid "Rollback snapshot 'N' doesn't exist." otherwise.
Result<RollbackResult> RollbackToSnapshot(std::shared_ptr<const Table> table, int64_t snapshot_id);

/// Rolls back to the snapshot tag `tag_name` holds. Invalid "Tag 'x' doesn't exist.".
Result<RollbackResult> RollbackToTag(std::shared_ptr<const Table> table,
                                     const std::string& tag_name);

/// Rolls back to the latest snapshot with timeMillis <= `timestamp_millis`. Invalid "No
/// snapshot found with timestamp earlier than or equal to <ms>ms.".
Result<RollbackResult> RollbackToTimestamp(std::shared_ptr<const Table> table,
                                           int64_t timestamp_millis);

}  // namespace paimon_rowid
