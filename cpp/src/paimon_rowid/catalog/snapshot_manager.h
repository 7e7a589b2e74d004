// The snapshot directory of one table (docs/format.md §1.5): snapshot-N files and the LATEST /
// EARLIEST hints beside them. The one place that knows their names, how a hint is parsed and
// when it is trusted, so the catalog (resolving the latest snapshot) and the committer
// (advancing LATEST after a commit) cannot drift apart.
//
// Hints are plain decimal text written non-atomically after a commit (by us, pypaimon and
// Java alike), so a hint may be missing, empty, garbage or stale. It is a shortcut, never
// the truth: LATEST = h is trusted only when snapshot-h exists and snapshot-(h+1) does not;
// otherwise the directory is listed.
//
// Thread-safety: immutable; every method may be called concurrently (the file system
// serializes the hint writes; a lost hint write only costs a later listing).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "paimon_rowid/fs/file_io.h"

namespace paimon_rowid {

/// Ids of the files named "<prefix><non-negative decimal>" directly in `dir`, ascending;
/// other names (temp files, junk) are ignored. Also used for schema-N files.
Result<std::vector<int64_t>> ListNumberedFiles(const FileIO& io, const std::string& dir,
                                               const std::string& prefix);

class SnapshotManager {
 public:
  static constexpr const char* kSnapshotPrefix = "snapshot-";
  static constexpr const char* kLatestHint = "LATEST";
  static constexpr const char* kEarliestHint = "EARLIEST";

  /// `table_path` is the table's root directory; `io` must not be null.
  SnapshotManager(std::shared_ptr<FileIO> io, std::string table_path);

  std::string snapshot_dir() const;
  std::string SnapshotPath(int64_t id) const;
  std::string HintPath(const char* hint) const;

  /// The ids of all snapshot-N files, ascending (a directory listing).
  Result<std::vector<int64_t>> ListSnapshotIds() const;

  /// The latest snapshot id: the verified LATEST hint, else the largest listed id; nullopt
  /// for a table without snapshots. Only the listing's errors are returned (a hint that
  /// cannot be read is ignored).
  Result<std::optional<int64_t>> LatestSnapshotId() const;

  /// The id in a hint file, nullopt when it is missing, unreadable or not a positive
  /// decimal (surrounding whitespace is tolerated). Not verified against the snapshots.
  std::optional<int64_t> ReadHint(const char* hint) const;

  /// After snapshot `id` was created: sets LATEST to `id` unless it already names a later
  /// snapshot (a slow committer never moves it backwards). Best effort: failures are
  /// ignored, since readers verify the hint anyway.
  void AdvanceLatestHint(int64_t id) const;

  /// Parses hint text: a positive decimal with optional surrounding whitespace.
  static std::optional<int64_t> ParseHint(const std::string& text);

 private:
  std::shared_ptr<FileIO> io_;
  std::string table_path_;
};

}  // namespace paimon_rowid
