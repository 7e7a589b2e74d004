// Snapshot expiration (docs/maintenance.md, "Snapshot expiration"): deletes old snapshots and
// the files only they need, with Java Paimon's retention rules.
//
// Which snapshots go. With latest L and earliest E, snapshots below
//   maxExclusive = min(L - retain_min + 1, E + max_deletes)
// may expire, and those below max(L - retain_max + 1, E) must (the retain_max bound); in
// between, the first snapshot whose timeMillis >= older_than_ms stops the expiration. So at
// least retain_min and at most retain_max snapshots stay, and no more than max_deletes go.
//
// What goes with them. Data files that an expired snapshot's successor deleted (DELETE
// entries of the deltas of the expired range), manifest lists, manifests and index
// manifests of the expired snapshots, except those still named by the first retained snapshot
// or by a tag. A tag keeps its snapshot's files alive, never its snapshot file.
//
// Crash safety. Files go first (data files, then manifests), snapshot files after, oldest
// first, and the EARLIEST hint last. A crash at any point leaves every retained snapshot and
// every tag readable; it can leave expired snapshots whose files are partly gone (the next
// expiration removes them; files it can no longer find through them are orphans, which
// RemoveOrphanFiles cleans).
//
// Concurrency. Safe against committers (they build on the latest snapshot, which is always
// retained) and against readers of retained snapshots. Two expirations of one table at once
// are not coordinated (as in Java); each only deletes what neither needs, but counts may
// overlap.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/common/progress.h"

namespace paimon_rowid {

/// Each field unset takes the table option of Java's name.
struct ExpireOptions {
  /// Snapshots to keep at most: `snapshot.num-retained.max`, default INT32 max.
  std::optional<int32_t> retain_max;
  /// Snapshots to keep at least: `snapshot.num-retained.min`, default 10.
  std::optional<int32_t> retain_min;
  /// Epoch ms: only snapshots with timeMillis < it may expire. Default now minus
  /// `snapshot.time-retained` (1 h).
  std::optional<int64_t> older_than_ms;
  /// Snapshots to expire at most in this call: `snapshot.expire.limit`, default 50.
  std::optional<int32_t> max_deletes;
  /// Counts steps: three per expired snapshot (its deleted data files, its manifests, its
  /// snapshot file). Cancel() is honoured until the first deletion, not after it (the rest
  /// is short, and stopping halfway would leave what a crash leaves). nullptr: none. Not
  /// owned.
  ProgressCounter* progress = nullptr;
};

struct ExpireResult {
  int64_t snapshots_expired = 0;
  int64_t data_files_deleted = 0;      // data files and their extra files
  int64_t manifest_files_deleted = 0;  // manifest lists + manifests + index manifests/files
  int64_t bytes_freed = 0;
  /// The earliest snapshot after the call; nullopt for a table without snapshots.
  std::optional<int64_t> earliest_snapshot_id;
};

/// Expires snapshots of `table` (see above). Invalid for bad options: "retain_min must be at
/// least 1, got N", "retain_max (N) must be >= retain_min (M)", "max_deletes must be at
/// least 1, got N", or a malformed table option. I/O errors stop the call; what was deleted
/// before stays deleted (see crash safety). A table without snapshots is a no-op.
Result<ExpireResult> ExpireSnapshots(std::shared_ptr<const Table> table,
                                     ExpireOptions options = {});

}  // namespace paimon_rowid
