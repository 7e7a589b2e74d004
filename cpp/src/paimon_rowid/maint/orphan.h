// Orphan-file cleaning (docs/maintenance.md, "Orphan files"): deletes files under a table's
// directory that no snapshot and no tag references, such as the files of failed or killed
// jobs of other engines (pypaimon leaves them by design) or of an interrupted expiration.
//
// Used files: for every snapshot and every tag, its manifest lists, manifests, index
// manifest and index files, and the data files (with their extra files) of every manifest
// entry. Candidates: every file below the data directories (partition and bucket-N
// directories), manifest/, index/ and statistics/; in snapshot/, schema/ and tag/ only
// leftover temp files (names starting with '.' or containing ".tmp"). snapshot-N, schema-N,
// tag-*, LATEST and EARLIEST are never candidates, nor is anything outside the table
// directory (external data paths included) or in a directory we do not know (branch/, ...).
//
// Safety margin. A candidate is deleted only when it is unused AND older than
// `older_than_ms` (modification time): a commit in flight has written files that no snapshot
// names yet, and a reader may still plan on a snapshot being expired. The default margin is
// one day, as in Java; a shorter one is safe only when no job runs on the table.
//
// Cost: one read of every snapshot and tag file, of every manifest list, and of each
// distinct manifest once; one listing of the table's directories.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/common/progress.h"

namespace paimon_rowid {

struct OrphanOptions {
  /// Epoch ms: only files modified before it may go. Default: now minus one day.
  std::optional<int64_t> older_than_ms;
  /// List what would be deleted, delete nothing.
  bool dry_run = false;
  /// Counts files: the metadata files read (snapshots, tags, distinct manifests) and the
  /// candidate files checked. Cancel() is honoured until the first deletion. nullptr: none.
  /// Not owned.
  ProgressCounter* progress = nullptr;
};

struct OrphanResult {
  /// Files deleted (or, in a dry run, that would be), absolute paths, sorted.
  std::vector<std::string> paths;
  int64_t files = 0;
  int64_t bytes = 0;
  /// Empty partition/bucket directories removed afterwards (0 in a dry run).
  int64_t dirs_removed = 0;
  bool dry_run = false;
};

/// Removes the orphan files of `table` (see above). I/O errors stop the call (files deleted
/// before stay deleted; none of them was used).
Result<OrphanResult> RemoveOrphanFiles(std::shared_ptr<const Table> table,
                                       OrphanOptions options = {});

}  // namespace paimon_rowid
