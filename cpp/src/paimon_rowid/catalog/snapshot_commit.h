// The seam through which a committer creates a snapshot (commit/committer.h).
//
// A table opened from the filesystem catalog has none: the committer creates snapshot-N itself
// with FileIO::WriteFileNoReplace and advances the LATEST hint. A table opened from a REST
// catalog (catalog/rest_catalog.h) carries one that sends the snapshot to the server, which
// decides: it creates snapshot-N, or answers that N is taken. Everything before that (data
// files, manifests, manifest lists, conflict checks) is the committer's, unchanged.
// Thread-safety: implementations may be called from any number of threads at once.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "paimon_rowid/common/status.h"
#include "paimon_rowid/meta/snapshot.h"

namespace paimon_rowid {

class CatalogTags;  // catalog/tags.h

class SnapshotCommit {
 public:
  virtual ~SnapshotCommit() = default;

  /// Creates `snapshot` (id, manifest lists and all) as the table's snapshot `snapshot.id`:
  /// OK when it was created, AlreadyExists when that id is taken (a concurrent commit won:
  /// the committer rebuilds on the new latest), any other error when the outcome is unknown
  /// or refused (the committer then checks whether the snapshot landed).
  /// `statistics_json` is what the commit changes per partition (the REST protocol's
  /// PartitionStatistics array, scan/partition_stats.h), which the server keeps as its
  /// partitions.
  virtual Status Commit(const Snapshot& snapshot, const std::string& statistics_json) const = 0;

  /// Rolls the table back on the server (its rollback endpoint, which deletes the later
  /// snapshots and tags and keeps its own record of the latest snapshot): to snapshot
  /// `snapshot_id`, or to tag `tag_name` when that is set. The caller has checked that the
  /// target exists. Errors as the server's.
  virtual Status Rollback(int64_t snapshot_id, const std::string& tag_name) const = 0;

  /// Strings that recreate this seam in another process (a table pickled to a Ray worker):
  /// the catalog's options and the table's identity. Secrets (a token) are included: the
  /// worker needs them; they are never logged.
  virtual std::map<std::string, std::string> State() const = 0;

  /// The catalog server's tag calls when the server keeps the table's tags (REST), else null:
  /// the table's tag calls (catalog/tags.h) then go to the server instead of the tag files.
  /// Owned by this seam.
  virtual const CatalogTags* catalog_tags() const { return nullptr; }
};

}  // namespace paimon_rowid
