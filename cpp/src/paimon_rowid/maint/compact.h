// Data-evolution compaction (docs/maintenance.md, "Data-evolution compaction";
// docs/format.md §5.5).
//
// Every update adds one partial-column file to each file group it touches, so after n updates
// a read of the group merges n + 1 files. Compaction rewrites a group's current values into
// ONE normal file with the group's row-id range (same first_row_id and row count, so row ids
// never move), min/max sequence numbers of its inputs, _FILE_SOURCE = COMPACT and _WRITE_COLS
// null (or the Parquet-bound columns when the table has .blob columns: .blob files stay as they
// are, their ranges still inside the group's). The commit is a COMPACT snapshot: DELETE entries
// for the group's normal files, an ADD for the new file.
//
// Why this is safe against concurrent writers, without a rebase:
//   * an update planned before the compaction still names the group's exact range, so the
//     committer's row-id existence check passes, and its file's sequence number (its own
//     snapshot id) is above the compacted file's (the max of the inputs): it keeps winning
//     for its columns;
//   * an update committed between the compaction's plan and its commit stays live (the
//     compaction deletes only its inputs) and keeps winning the same way;
//   * a compaction whose inputs another compaction (or an overwrite) replaced first fails its
//     commit with a kCommitConflict error; Compact() then re-plans on the latest snapshot.
// Values never change, so every reader (ours, pypaimon, Java) reads the same rows before and
// after.
//
// Cost: per compacted group, one merged read of its Parquet-bound columns in row slices of
// about kSliceBytes of input (memory stays bounded for large groups) and one file write.
// Groups run in parallel on the executor (exec/executor.h).
//
// Thread-safety: the functions are safe to call concurrently on different groups.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "arrow/memory_pool.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/common/progress.h"
#include "paimon_rowid/meta/commit_message.h"
#include "paimon_rowid/scan/plan.h"

namespace paimon_rowid {

/// Table option (Java's name and default): a group is compacted once it has at least this
/// many normal files (the base file plus partial-column files).
inline constexpr const char* kCompactionMinFileNum = "compaction.min.file-num";
inline constexpr int64_t kDefaultCompactionMinFileNum = 5;
/// Table option (Java's): also rewrite .blob files. Not supported: NotImplemented when true.
inline constexpr const char* kBlobCompactionEnabled = "blob-compaction.enabled";

struct CompactOptions {
  /// Compact every group with at least two normal files, whatever the threshold.
  bool full = false;
  /// Overrides compaction.min.file-num (must be >= 2).
  std::optional<int64_t> min_file_num;
  /// Workers for the groups (0: one per core).
  int threads = 0;
  /// Re-plans after a lost race with another compaction (each loser's files are deleted).
  int max_attempts = 3;
  std::string commit_user;  // a random UUID when empty
  /// Every allocation of the reads and writes. Not owned.
  arrow::MemoryPool* pool = arrow::default_memory_pool();
  /// Counts groups (total: each attempt's planned groups; done: groups compacted) and is
  /// checked before each group and before the commit; nullptr: none. Not owned.
  ProgressCounter* progress = nullptr;
};

struct CompactionPlan {
  std::optional<int64_t> snapshot_id;  // the base snapshot (nullopt: empty table)
  /// One split per group to compact (its only group), in row-id order per partition.
  std::vector<DataSplit> groups;
  int64_t groups_total = 0;  // groups of the snapshot
  int64_t files_before = 0;  // normal files of the planned groups
};

/// Plans the compaction of the latest snapshot of `table` (a data-evolution table).
/// Invalid for other tables or a min_file_num below 2; NotImplemented when the table sets
/// blob-compaction.enabled = true.
Result<CompactionPlan> PlanCompaction(std::shared_ptr<const Table> table,
                                      const CompactOptions& options);

/// Rewrites the one group of `split` into one compacted file and returns its commit message
/// (the new file, the group's normal files to delete). On error the file is deleted.
/// `parallel_writer`: the file's columns are encoded on threads of their own
/// (AppendWriterOptions::parallel); off when the caller already runs a group per core.
Result<CommitMessage> CompactGroup(std::shared_ptr<const Table> table, const DataSplit& split,
                                   arrow::MemoryPool* pool = arrow::default_memory_pool(),
                                   bool parallel_writer = true);

/// The path CompactGroup writes for `split` when `table` carries AppendWriter::kFileStemOption
/// (named from the stem and the group's first row id): what a failed distributed job deletes
/// by name, without listing any directory.
Result<std::string> CompactedFilePath(std::shared_ptr<const Table> table, const DataSplit& split);

struct CompactResult {
  std::optional<int64_t> snapshot_id;  // the COMPACT snapshot; nullopt when nothing was due
  int64_t groups_total = 0;
  int64_t groups_compacted = 0;
  int64_t files_removed = 0;  // normal files replaced (still on disk until expired)
  int64_t files_written = 0;
  int64_t rows_rewritten = 0;
  int64_t bytes_before = 0;  // of the replaced files
  int64_t bytes_written = 0;
  int attempts = 0;
};

/// Commits compaction messages based on snapshot `base` as one COMPACT snapshot. Deletion
/// vectors keyed by a compacted group's old anchor move to its compacted file: per such
/// (partition, bucket) one new index file holds the bucket's live vectors and replaces its
/// index files (as a delete does). A lost race (an input no longer live, or a concurrent
/// delete in a touched bucket) is a kCommitConflict error and deletes the new files.
Result<std::optional<int64_t>> CommitCompaction(std::shared_ptr<const Table> table,
                                                const std::vector<CommitMessage>& messages,
                                                const std::string& commit_user);

/// Summarizes committed messages into `result` (files, rows, bytes).
void TallyCompaction(const std::vector<CommitMessage>& messages, CompactResult* result);

/// The embedded driver: plan, compact the groups in parallel, commit once; after a lost race
/// with another compaction, re-plan on the latest snapshot (up to max_attempts).
Result<CompactResult> Compact(std::shared_ptr<const Table> table, const CompactOptions& options);

}  // namespace paimon_rowid
