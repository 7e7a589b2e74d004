// The committer: turns commit messages into one new snapshot (docs/format.md §1.8, §4.3, §5.6).
//
// Each attempt reads the latest snapshot L and, from it alone, recomputes everything:
// conflict checks (for messages with check_from_snapshot), sequence numbers (S = L.id + 1 for
// files with minSeq == 0), partition grouping, first_row_id assignment from L.nextRowId, one
// manifest file, the delta and base manifest lists, and finally snapshot-S, created with
// FileIO::WriteFileNoReplace (link(2) of a complete temp file: a concurrent committer in any
// process, ours, pypaimon or Java, can never be overwritten). Losing the race (AlreadyExists)
// deletes this attempt's manifest files and retries after an exponential back-off
// (commit.min-retry-wait .. commit.max-retry-wait, commit.max-retries). A retry first looks
// for a snapshot with this commit user + identifier + kind, so a commit whose snapshot did
// land is never applied twice.
//
// A commit that finally fails (conflict, retries exhausted, I/O error) deletes every data
// file of its messages and every manifest file it wrote, so nothing is left behind.
//
// Thread-safety: a Committer is used by one thread at a time; any number of Committers in
// any number of processes may commit to the same table concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/commit/overwrite.h"
#include "paimon_rowid/meta/commit_message.h"

namespace paimon_rowid {

/// Writer identity of snapshots made by this engine.
inline constexpr const char* kWriterVersion = "paimon-rowid 0.1.0";

/// Snapshot properties that every commit carries from the snapshot it is built on (the latest
/// at its attempt) unless `CommitOptions::properties` sets them: the resume state of backfills
/// (python/paimon_rowid/_backfill_core.py, docs/backfill.md "Where the progress lives"). So
/// the newest snapshot always holds every key's progress, whatever commits (appends, updates,
/// deletes, overwrites, compactions) came after the backfill, and expiring older snapshots
/// loses nothing. Carrying is safe across overwrites: replaced rows get new row ids, above
/// every recorded range. The batch markers ("paimon-rowid.backfill-batch.") are not carried:
/// they date the commit that finished a range.
inline constexpr const char* kCarriedPropertyPrefix = "paimon-rowid.backfill.";

struct CommitOptions {
  std::string commit_user;  // a random UUID when empty
  int64_t commit_identifier = Snapshot::kBatchCommitIdentifier;
  /// Written into the new snapshot's "properties" (e.g. backfill progress).
  std::map<std::string, std::string> properties;
  /// The snapshot's commitKind: "APPEND" (new files, updates) or "COMPACT" (a rewrite of
  /// live files that changes no value: maint/compact.h). A COMPACT commit fails with a
  /// kCommitConflict error when a file its messages delete is no longer live, and skips the
  /// column-conflict check (a concurrent update keeps winning by its higher sequence number).
  std::string commit_kind = "APPEND";
  /// An overwrite (INSERT OVERWRITE, commit/overwrite.h): the snapshot also deletes every
  /// live data file of the replaced partitions, with their index files, as of the snapshot it
  /// is built on. Its commitKind is OVERWRITE; `commit_kind` must stay APPEND.
  using Overwrite = OverwriteSpec;
  std::optional<Overwrite> overwrite;
  /// Testing hook: called before each attempt's snapshot file is created (attempt number
  /// from 0 and the snapshot id about to be created), e.g. to simulate a lost race.
  std::function<void(int attempt, int64_t snapshot_id)> before_snapshot_create;
  /// Testing hook: called right after snapshot-N was created (e.g. to simulate a
  /// check-then-rename writer replacing it).
  std::function<void(int attempt, int64_t snapshot_id)> after_snapshot_create;
};

class Committer {
 public:
  /// `table` is the table to commit to; its options give the retry and manifest settings.
  static Result<std::unique_ptr<Committer>> Make(std::shared_ptr<const Table> table,
                                                 CommitOptions options = {});

  const std::string& commit_user() const { return options_.commit_user; }

  /// Commits `messages` as one snapshot (options' commit kind) and returns its id; nullopt
  /// when the messages hold no files (no snapshot is made), except for a static overwrite,
  /// which commits its deletes with no new file too (see Overwrite). An overwrite whose new
  /// files lie outside the partitions it replaces fails (ExecutionError) before anything is
  /// written, deleting the new files. Errors:
  /// kCommitConflict (a data-evolution conflict, or retries exhausted); kCommitIO (IOError
  /// "Failed to commit: <the store's message>") when the filesystem or object store refuses a
  /// request (a revoked data token) and no snapshot was made; a plain IOError only when the
  /// snapshot's creation failed in a way that leaves unknown whether it landed. On any error
  /// nothing of the commit stays on disk (data files included), but for files the store
  /// refuses to delete (orphans for remove_orphan_files).
  Result<std::optional<int64_t>> Commit(const std::vector<CommitMessage>& messages);

  /// Deletes the new data files of `messages` (never committed ones; never the files they
  /// delete). Missing files are fine.
  Status Abort(const std::vector<CommitMessage>& messages) const;

 private:
  Committer(std::shared_ptr<const Table> table, CommitOptions options);
  /// Commit's work; sets `*maybe_landed` when an error leaves the messages' files possibly in
  /// a snapshot (this commit's, whose creation failed ambiguously, or an earlier one).
  Result<std::optional<int64_t>> CommitOrFail(const std::vector<CommitMessage>& messages,
                                              bool* maybe_landed);
  struct Attempt;
  std::shared_ptr<const Table> table_;
  CommitOptions options_;
};

/// `st` as a kCommitIO error ("Failed to commit: " and its message) when it is an IOError
/// without a kind; any other status unchanged. For a commit's failures that made no snapshot.
Status AsCommitIOError(Status st);

/// The path of a data file of `table` in (partition, bucket): its external path if set,
/// otherwise inside the partition's bucket directory (Java's escaped partition path).
Result<std::string> DataFilePath(const Table& table, const std::string& partition, int32_t bucket,
                                 const DataFileMeta& file);

}  // namespace paimon_rowid
