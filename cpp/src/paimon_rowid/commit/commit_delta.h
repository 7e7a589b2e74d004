// What one commit adds and deletes (its delta), built from its messages, and the checks of
// that delta that need no table history: the messages belong to this table and name files
// that exist, and against the latest snapshot's live entries, nothing is committed twice,
// every file it replaces is still live, and its deletion-vector changes are consistent.
// The data-evolution checks that read history are in conflict.h.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/meta/commit_message.h"
#include "paimon_rowid/meta/manifest.h"

namespace paimon_rowid {

/// The entries a commit adds and the oldest base snapshot its messages were planned on.
struct CommitDelta {
  std::vector<ManifestEntry> entries;
  std::optional<int64_t> check_from;
  /// Index files (deletion vectors) added and replaced, partition and bucket set.
  std::vector<IndexManifestEntry> index_adds;
  std::vector<IndexManifestEntry> index_deletes;

  bool empty() const { return entries.empty() && index_adds.empty() && index_deletes.empty(); }
  bool changes_index() const { return !index_adds.empty() || !index_deletes.empty(); }
  bool deletes_files() const;
  /// Adds or drops global indexes only: an APPEND commit, as pypaimon's create_global_index.
  bool only_global_index_changes() const;
};

/// The delta of `messages`: their new files as ADD entries, their deleted files as DELETE
/// entries, their index changes, and the smallest check_from_snapshot among them.
CommitDelta DeltaOf(const std::vector<CommitMessage>& messages);

/// Messages this table can commit: prepared for this table, each file named once, and every
/// file present with the size its message records. A message committed before, aborted, or
/// prepared for another table fails here, before anything is written, with a message that
/// says which; the files are not ours to delete then.
Status CheckMessages(const Table& table, const std::vector<CommitMessage>& messages);

/// The delta adds no file that `live` (the latest snapshot's entries) already holds: the same
/// messages committed twice would make every later read fail. Invalid, no error kind.
Status CheckNotCommitted(const std::vector<ManifestEntry>& live,
                         const std::vector<ManifestEntry>& delta, int64_t latest_id);

/// Every file the delta deletes is live in `live`: a compaction whose inputs were replaced
/// meanwhile (another compaction, an overwrite) must not commit. kCommitConflict.
Status CheckDeletesLive(const std::vector<ManifestEntry>& live,
                        const std::vector<ManifestEntry>& delta, int64_t latest_id);

/// The index side of a commit against the latest snapshot's live data files and index
/// entries: the index files it replaces are still live (else a concurrent delete changed the
/// same bucket's vectors first), every vector it adds is keyed by a data file that stays live
/// (else a concurrent compaction replaced the anchor), and no live vector is keyed by a data
/// file the commit deletes (the rows it hides would come back). A global-index file it adds
/// overlaps no retained file of the same index (type, field, extra fields) and covers only
/// rows its partition holds; one it drops is still live. kCommitConflict, except for
/// index files committed before (Invalid with no error kind: the messages were committed).
Status CheckIndexChanges(const std::vector<ManifestEntry>& live,
                         const std::vector<IndexManifestEntry>& live_index,
                         const CommitDelta& delta, int64_t latest_id);

/// The latest snapshot's live index entries with the commit's index changes applied.
std::vector<IndexManifestEntry> ApplyIndexChanges(std::vector<IndexManifestEntry> live,
                                                  const CommitDelta& delta);

}  // namespace paimon_rowid
