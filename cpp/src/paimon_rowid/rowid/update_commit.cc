// The commit side of update_by_row_id (update_by_row_id.h): the rebase checks, CommitWithRebase,
// the file names a Ray round deletes, CommitUpdate.
#include "arrow/api.h"
#include "arrow/compute/api.h"
#include "paimon_rowid/rowid/blob_update_internal.h"
#include "paimon_rowid/rowid/rebase_internal.h"
#include "paimon_rowid/rowid/update_by_row_id.h"
#include "paimon_rowid/write/append_writer.h"

namespace paimon_rowid {
namespace rowid_internal {
namespace cp = arrow::compute;

// A reader of the update columns of `table` pinned at `index`'s snapshot.
Result<std::shared_ptr<RowIdRead>> ReaderAt(const Table& table,
                                            const std::vector<std::string>& cols,
                                            std::shared_ptr<const RowIdIndex> index,
                                            arrow::MemoryPool* pool) {
  // The index names its files, so the handle only supplies schema and options. An update's
  // base snapshot may have been expired since it was planned (maint/expire.h): its data files
  // are still there (only DELETEd files go), so they are read through the unpinned handle. Its
  // deletion-vector files may not be (a later delete replaced them, and expiration removed
  // them with the base): the base is then read without them. That is safe for what the base
  // read is for, the values of rows that were live at the base (the update refused deleted
  // rows when it was planned); a row deleted since is missing from the latest read instead,
  // which the rebase reports as a conflict.
  ARROW_ASSIGN_OR_RAISE(bool exists,
                        table.file_io()->Exists(table.SnapshotPath(index->snapshot_id())));
  std::optional<std::string> snapshot_id;
  if (exists) {
    snapshot_id = std::to_string(index->snapshot_id());
  } else {
    index = index->WithoutDeletionVectors();
  }
  // BLOB columns compare as descriptors (file and byte range): no payload is fetched, and an
  // unchanged row keeps its file.
  ARROW_ASSIGN_OR_RAISE(auto pinned, table.Copy({{options::kScanSnapshotId, snapshot_id},
                                                 {options::kScanTagName, std::nullopt},
                                                 {options::kBlobAsDescriptor, "true"}}));
  RowIdReadOptions options;
  options.pool = pool;
  return RowIdRead::Make(std::move(pinned), cols, std::move(index), options);
}

Status BaseExpiredOr(const Table& table, int64_t base_id, Status error) {
  if (error.ok() || !(error.IsIOError() || error.IsInvalid())) return error;
  if (GetErrorKind(error) != nullptr) return error;
  auto exists = table.file_io()->Exists(table.SnapshotPath(base_id));
  if (!exists.ok() || *exists) return error;
  return MakeKindError(arrow::StatusCode::Invalid, ErrorKind::kBaseExpired,
                       "The base snapshot " + std::to_string(base_id) +
                           " of this update was expired while it ran (" + error.message() +
                           "). Plan the update again on the latest snapshot.");
}

bool IsBaseExpired(const Status& st) {
  const ErrorKind* kind = GetErrorKind(st);
  return kind != nullptr && *kind == ErrorKind::kBaseExpired;
}

namespace {

// The values `read` gives for `ids`, ordered by row id.
Result<std::shared_ptr<arrow::Table>> ValuesOf(
    const RowIdRead& read, const std::vector<std::shared_ptr<arrow::Array>>& ids,
    arrow::MemoryPool* pool) {
  ARROW_ASSIGN_OR_RAISE(auto reader, read.Read(ids, /*threads=*/1));
  ARROW_ASSIGN_OR_RAISE(auto table, reader->ToTable());
  cp::ExecContext ctx(pool);
  ARROW_ASSIGN_OR_RAISE(auto sorted, cp::SortIndices(*table->GetColumnByName(system_fields::kRowId),
                                                     cp::SortOrder::Ascending, &ctx));
  ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(table, sorted, cp::TakeOptions::Defaults(), &ctx));
  return taken.table();
}

}  // namespace

// OK when the update columns of `ids` hold the same values in `before`'s snapshot and in
// `after`'s; else the conflict error every rebase reports.
Status CheckUnchanged(const RowIdRead& before, const RowIdRead& after,
                      const std::vector<std::shared_ptr<arrow::Array>>& ids,
                      const std::vector<std::string>& cols, arrow::MemoryPool* pool) {
  ARROW_ASSIGN_OR_RAISE(auto old_values, ValuesOf(before, ids, pool));
  ARROW_ASSIGN_OR_RAISE(auto new_values, ValuesOf(after, ids, pool));
  if (old_values->Equals(*new_values)) return Status::OK();
  std::string columns;
  for (const auto& c : cols) columns += (columns.empty() ? "'" : ", '") + c + "'";
  return MakeKindError(
      arrow::StatusCode::Invalid, ErrorKind::kCommitConflict,
      "update_by_row_id conflicts with snapshot " + std::to_string(after.index()->snapshot_id()) +
          ", which changed some of the same rows in column(s) " + columns + " since snapshot " +
          std::to_string(before.index()->snapshot_id()) + "; re-run the update on the latest data");
}

}  // namespace rowid_internal

Result<UpdateOutcome> CommitWithRebase(std::shared_ptr<const Table> table, CommitOptions options,
                                       int max_rebases, int64_t num_updated,
                                       const UpdateRound& round, const std::string& operation) {
  UpdateOutcome outcome;
  outcome.num_updated = num_updated;
  ARROW_ASSIGN_OR_RAISE(auto committer, Committer::Make(table, std::move(options)));
  std::optional<RebaseStep> step;
  // The next round moves onto the latest snapshot, from the snapshot `base_id` the last one
  // was based on.
  auto move_on = [&](int64_t base_id) -> Status {
    ARROW_ASSIGN_OR_RAISE(auto latest, table->LatestSnapshot());
    if (!latest) return Status::Invalid("cannot rebase an update without snapshots");
    ARROW_ASSIGN_OR_RAISE(std::shared_ptr<const RowIdIndex> latest_index,
                          RowIdIndex::Build(table, *latest));
    step = RebaseStep{base_id, std::move(latest_index)};
    ++outcome.rebases;
    return Status::OK();
  };
  while (true) {
    auto round_messages = round(step ? &*step : nullptr);
    if (!round_messages.ok()) {
      // Expiration removed a file of the round's base under it (a replaced deletion vector,
      // say): the round deleted what it wrote and moves onto the latest snapshot, as after a
      // lost race. Expiration keeps the latest snapshot, so one move suffices unless the table
      // is expired faster than a round runs.
      if (!rowid_internal::IsBaseExpired(round_messages.status()) ||
          outcome.rebases >= max_rebases) {
        return round_messages.status();
      }
      ARROW_RETURN_NOT_OK(move_on(step ? step->latest_index->snapshot_id() : -1));
      continue;
    }
    std::vector<CommitMessage> messages = std::move(round_messages).ValueOrDie();
    if (messages.empty()) return outcome;
    auto committed = committer->Commit(messages);
    if (committed.ok()) {
      outcome.snapshot_id = *committed;
      return outcome;
    }
    const ErrorKind* kind = GetErrorKind(committed.status());
    if (kind == nullptr || *kind != ErrorKind::kRowIdConflict) return committed.status();
    if (outcome.rebases >= max_rebases) {
      // Every attempt's files were deleted by the committer; say why the update gave up.
      return MakeKindError(
          committed.status().code(), ErrorKind::kRowIdConflict,
          operation + " gave up after " + std::to_string(outcome.rebases + 1) + " attempts (" +
              std::to_string(outcome.rebases) +
              " rebases onto newer snapshots): other writers kept committing to the same file "
              "groups first. Last conflict: " +
              committed.status().message());
    }
    // The committer deleted this round's files; the next round moves onto the latest snapshot.
    const std::optional<int64_t>& base = messages.front().check_from_snapshot;
    if (!base) return committed.status();
    ARROW_RETURN_NOT_OK(move_on(*base));
  }
}

Result<std::vector<std::string>> UpdateFilePaths(std::shared_ptr<const Table> table,
                                                 const std::vector<std::string>& update_cols,
                                                 const RowIdIndex& index,
                                                 const std::vector<int32_t>& groups) {
  const auto stem = table->options().Get(AppendWriter::kFileStemOption);
  if (!stem) {
    return Status::Invalid("update file paths are known only with ", AppendWriter::kFileStemOption);
  }
  std::vector<std::string> parquet_cols;
  std::vector<int32_t> blob_field_ids;
  for (const auto& c : update_cols) {
    const DataField* f = table->schema().FieldByName(c);
    if (f != nullptr && rowid_internal::IsBlobFileColumn(*table, *f)) {
      blob_field_ids.push_back(f->id);
    } else {
      parquet_cols.push_back(c);
    }
  }
  std::vector<std::string> paths;
  paths.reserve(groups.size());
  for (int32_t g : groups) {
    if (g < 0 || static_cast<size_t>(g) >= index.groups().size()) {
      return Status::IndexError("no file group ", g, " in the row-id index");
    }
    const RowIdIndex::Group& group = index.groups()[static_cast<size_t>(g)];
    if (!parquet_cols.empty()) {
      ARROW_ASSIGN_OR_RAISE(auto writer,
                            AppendWriter::MakeForRowIds(table, parquet_cols, group.partition,
                                                        group.bucket_dir, group.range.from));
      paths.push_back(writer->row_id_file_path());
    }
    for (int32_t field_id : blob_field_ids) {
      ARROW_ASSIGN_OR_RAISE(
          auto blobs, rowid_internal::ExistingBlobUpdatePaths(*table, group, *stem, field_id));
      paths.insert(paths.end(), blobs.begin(), blobs.end());
    }
  }
  return paths;
}

Result<UpdateOutcome> CommitUpdate(RowIdUpdate* update, std::shared_ptr<const Table> table,
                                   std::string commit_user, int threads, int max_rebases,
                                   std::map<std::string, std::string> properties) {
  CommitOptions options;
  options.commit_user = std::move(commit_user);
  options.properties = std::move(properties);
  return CommitWithRebase(std::move(table), std::move(options), max_rebases, update->num_rows(),
                          [&](const RebaseStep* step) -> Result<std::vector<CommitMessage>> {
                            if (step) ARROW_RETURN_NOT_OK(update->Rebase(step->latest_index));
                            return update->Finish(threads);
                          });
}

}  // namespace paimon_rowid
