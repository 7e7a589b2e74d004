// update_by_row_id: overwrite some columns of rows addressed by _ROW_ID
// (docs/architecture.md, "The row-id jobs").
//
// Cost model: one manifest read to build the RowIdIndex of the pinned base snapshot; the
// source is cast and routed to groups by binary search (no sort, no join, no scan of the
// target); then, per touched group, only the update columns' current values of that group are
// read (skipped when every row of the group is updated), the new values are scattered in by
// position, and one partial-column file is written with the group's first_row_id, row count
// and _WRITE_COLS = update columns. Groups are processed in parallel.
//
// Memory: routed rows are held in memory up to a budget (table/dynamic option
// `paimon-rowid.update.memory-budget`, default 256 mb); beyond it they are spilled to Arrow IPC
// files in `paimon-rowid.update.spill-dir` (default: the system temp directory) and read back
// one group at a time. Peak memory is therefore the budget plus the groups being written (one
// per thread: the group's source rows, its current column values and the encoded file), not the
// size of the source. A rebase re-reads and re-routes the rows group by group under the same
// budget.
//
// Errors follow pypaimon's validations (types and messages, docs/pypaimon-compat.md §1.2).
// Every file written by a failed update is deleted.
//
// Thread-safety: one thread drives an RowIdUpdate; Finish uses a pool internally.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/catalog/table_options.h"
#include "paimon_rowid/commit/committer.h"
#include "paimon_rowid/meta/commit_message.h"
#include "paimon_rowid/rowid/row_id_index.h"

namespace paimon_rowid {

/// The checks pypaimon runs before touching the source (docs/pypaimon-compat.md §1.2 rows 2–8):
/// non-empty columns, data evolution and row tracking on, and each
/// column an existing, non-partition field. `target` names the table in messages.
/// BLOB columns ("{operation} cannot update blob column 'c'.") are refused unless
/// `allow_blob_columns` (merge_into: pypaimon's MERGE can set them, its update_by_row_id
/// cannot); even then a `blob-descriptor-field` column is refused (Invalid).
/// Returns the de-duplicated columns (order kept).
Result<std::vector<std::string>> ValidateUpdateColumns(const Table& table,
                                                       const std::vector<std::string>& update_cols,
                                                       const std::string& target,
                                                       const std::string& operation,
                                                       bool allow_blob_columns = false);

struct RowIdUpdateOptions {
  /// Every allocation of the update: casts and routing of the source, spill files, the
  /// reads of the current values (ReadOptions::pool), the merge (takes, concatenation) and
  /// the partial-column writers (AppendWriterOptions::pool). Not owned; must outlive the
  /// RowIdUpdate.
  arrow::MemoryPool* pool = arrow::default_memory_pool();
  /// Refuse ids of deleted rows (deletion vectors) with "Cannot update deleted _ROW_ID {id}."
  /// (pypaimon's Ray job does; its table-level update writes them, and the rows stay deleted).
  bool reject_deleted_rows = false;
  /// Accept `.blob`-stored update columns (BLOB, ARRAY<BLOB>, MAP<K, BLOB>): per touched group
  /// each is written into `.blob` files covering the whole group (rowid/blob_update_internal.h:
  /// untouched rows' payloads are copied, a slice of rows at a time), beside the partial
  /// Parquet file of the other columns (none when every update column is a BLOB). Off: Make
  /// refuses them (Invalid).
  bool allow_blob_columns = false;
  /// Payload bytes per slice when untouched BLOB values are copied (the memory bound of
  /// one group task; at least one row per slice).
  int64_t blob_slice_bytes = int64_t{32} << 20;
};

class RowIdUpdate {
 public:
  /// Bytes of routed source rows held in memory before spilling ("0" never spills).
  static constexpr const char* kMemoryBudgetOption = UpdateSettings::kMemoryBudgetOption;
  static constexpr int64_t kDefaultMemoryBudget = UpdateSettings::kDefaultMemoryBudget;
  /// Directory of the spill files (deleted when the update ends).
  static constexpr const char* kSpillDirOption = UpdateSettings::kSpillDirOption;

  /// Pins the latest snapshot of `table` as the base. `update_cols` must be validated.
  static Result<std::unique_ptr<RowIdUpdate>> Make(std::shared_ptr<const Table> table,
                                                   std::vector<std::string> update_cols,
                                                   std::string target,
                                                   const RowIdUpdateOptions& options = {});
  /// Uses an index built elsewhere (e.g. shipped from a driver) instead of reading manifests.
  static Result<std::unique_ptr<RowIdUpdate>> Make(std::shared_ptr<const Table> table,
                                                   std::vector<std::string> update_cols,
                                                   std::string target,
                                                   std::shared_ptr<const RowIdIndex> index,
                                                   const RowIdUpdateOptions& options = {});
  ~RowIdUpdate();

  /// The Arrow schema rows are cast to: _ROW_ID int64 not null, then the update columns with
  /// the table's types and nullability.
  const std::shared_ptr<arrow::Schema>& update_schema() const;
  /// The base snapshot id (nullopt for a table without snapshots).
  std::optional<int64_t> base_snapshot_id() const;

  /// Selects [_ROW_ID] + update columns from `batch` (extra columns ignored), casts them
  /// (safe cast; nulls in NOT NULL columns are errors) and routes the rows to their groups.
  Status Add(const std::shared_ptr<arrow::RecordBatch>& batch);
  Status AddAll(arrow::RecordBatchReader* reader);

  /// Rows added so far.
  int64_t num_rows() const;
  /// Spill files written by the routing so far, and the most bytes of rows held in memory.
  int num_spills() const;
  int64_t peak_routed_bytes() const;

  /// Writes one partial-column file per touched group (`threads` workers; plus the `.blob`
  /// files of BLOB update columns) and returns one commit message per group holding them all,
  /// each carrying the base snapshot for conflict detection. On
  /// error every file written is deleted. May be called again after Rebase.
  Result<std::vector<CommitMessage>> Finish(int threads = 0);

  /// Moves the update onto the latest snapshot L after its commit lost a data-evolution
  /// conflict: if any updated row has, in L, a value of an update column that differs from
  /// the base snapshot's, a concurrent commit changed the same rows and columns and the
  /// result is a kCommitConflict error naming them; otherwise the rows are re-routed with
  /// L's index (group boundaries may have moved) and L becomes the base. The overload taking
  /// `latest_index` uses that index (of L, built by the caller) instead of building one.
  Status Rebase();
  Status Rebase(std::shared_ptr<const RowIdIndex> latest_index);

  /// The check of Rebase for an update whose rows were routed with the latest index from the
  /// start (a rebased round on Ray: the driver ships L's index to the tasks): every added
  /// row's update-column values must be equal at `since_index`'s snapshot and at this
  /// update's base, else a kCommitConflict error as from Rebase. Reads only the update
  /// columns of the touched rows, twice.
  Status VerifyUnchangedSince(std::shared_ptr<const RowIdIndex> since_index);

 private:
  RowIdUpdate();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct UpdateOutcome {
  int64_t num_updated = 0;
  std::optional<int64_t> snapshot_id;  // nullopt when nothing was written
  int rebases = 0;
};

/// What a rebased round of an update must do: move from the snapshot the previous round was
/// based on onto `latest_index`'s snapshot, verifying that none of its rows changed between
/// the two (RowIdUpdate::Rebase / VerifyUnchangedSince). `previous_base_id` is -1 when the
/// first round failed because its base was expired under it (kBaseExpired): that round
/// reported no base.
struct RebaseStep {
  int64_t previous_base_id = 0;
  std::shared_ptr<const RowIdIndex> latest_index;
};

/// One round of an update: writes the partial-column files and returns their commit
/// messages, each carrying the snapshot it is based on (check_from_snapshot). `step` is null
/// for the first round. On error the round has deleted the files it wrote.
using UpdateRound = std::function<Result<std::vector<CommitMessage>>(const RebaseStep* step)>;

/// The one commit path of update_by_row_id, for every driver (embedded, Ray, CLI): runs
/// `round`, commits its messages as one APPEND snapshot with `options` (commit user,
/// snapshot properties), and when the commit loses a data-evolution conflict only because a
/// concurrent commit wrote the same columns of the same groups, builds the latest snapshot's
/// index and runs a rebased round, up to `max_rebases` times: both writers' rows are kept,
/// and a true conflict (the same rows changed) fails clearly. A round failing with
/// kBaseExpired (an expiration removed a file of its base under it) moves onto the latest
/// snapshot the same way, within the same `max_rebases`. On failure nothing of any round
/// stays on disk (the committer deletes each lost round's files). `num_updated` is returned
/// in the outcome as given; `operation` names the call in the error after the last rebase.
Result<UpdateOutcome> CommitWithRebase(std::shared_ptr<const Table> table, CommitOptions options,
                                       int max_rebases, int64_t num_updated,
                                       const UpdateRound& round,
                                       const std::string& operation = "update_by_row_id");

/// The paths of the files an update of `update_cols` writes for `groups` of `index` when
/// `table` carries AppendWriter::kFileStemOption (per group: the partial-column file, named
/// from the stem and the group's first row id, and for BLOB columns the `.blob` files of that
/// stem that exist): what a failed Ray round deletes, by name, without listing any directory.
Result<std::vector<std::string>> UpdateFilePaths(std::shared_ptr<const Table> table,
                                                 const std::vector<std::string>& update_cols,
                                                 const RowIdIndex& index,
                                                 const std::vector<int32_t>& groups);

/// Finishes `update` and commits it through CommitWithRebase (rounds: Finish, then
/// Rebase + Finish).
Result<UpdateOutcome> CommitUpdate(RowIdUpdate* update, std::shared_ptr<const Table> table,
                                   std::string commit_user, int threads = 0, int max_rebases = 5,
                                   std::map<std::string, std::string> properties = {});

}  // namespace paimon_rowid
