#include "paimon_rowid/maint/compact.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "paimon_rowid/catalog/table_options.h"
#include "paimon_rowid/commit/committer.h"
#include "paimon_rowid/common/identifier.h"
#include "paimon_rowid/exec/executor.h"
#include "paimon_rowid/read/table_read.h"
#include "paimon_rowid/scan/deletion_files.h"
#include "paimon_rowid/scan/plan.h"
#include "paimon_rowid/write/append_writer.h"

namespace paimon_rowid {
namespace {

// Input bytes (compressed) read per slice of a group: a group of one 256 MB base file and its
// partial files is read in pieces of about this much, so memory stays bounded.
constexpr int64_t kSliceBytes = int64_t{32} << 20;
constexpr int64_t kMinSliceRows = 64 * 1024;

std::vector<const DataFileMeta*> NormalFiles(const FileGroup& group) {
  std::vector<const DataFileMeta*> out;
  for (const auto& f : group) {
    if (f.is_normal_file()) out.push_back(&f);
  }
  return out;
}

Status CheckCompactable(const Table& table) {
  if (!table.data_evolution_enabled()) {
    return Status::Invalid("compaction of table '", table.identifier().FullName(),
                           "' needs a data-evolution table ('data-evolution.enabled' = true)");
  }
  ARROW_ASSIGN_OR_RAISE(const CompactionSettings settings,
                        ParseCompactionSettings(table.options()));
  if (settings.blob_compaction) {
    // Refused rather than ignored: the caller asked for .blob files to be rewritten.
    return Status::NotImplemented(
        "table '", table.identifier().FullName(), "' sets '", kBlobCompactionEnabled,
        "' = true: paimon-rowid compacts the normal files of a group and leaves its .blob "
        "files alone; rewriting .blob files is not supported yet (unset the option, or set it "
        "to false, to compact the normal files)");
  }
  return Status::OK();
}

const DataFileMeta& OnlyFile(const std::vector<CommitMessage>& messages) {
  return messages.front().new_files.front();
}

}  // namespace

Result<CompactionPlan> PlanCompaction(std::shared_ptr<const Table> table,
                                      const CompactOptions& options) {
  ARROW_RETURN_NOT_OK(CheckCompactable(*table));
  int64_t min_files = 2;
  if (!options.full) {
    ARROW_ASSIGN_OR_RAISE(const CompactionSettings settings,
                          ParseCompactionSettings(table->options()));
    min_files = options.min_file_num.value_or(settings.min_file_num);
    if (min_files < 2) {
      return Status::Invalid(kCompactionMinFileNum, " (min_file_num) must be at least 2, got ",
                             min_files);
    }
  }
  // Plan the latest snapshot, whatever time travel the table's options ask for: compaction
  // always rewrites the current state.
  ARROW_ASSIGN_OR_RAISE(auto latest_table, table->Copy({{options::kScanSnapshotId, std::nullopt},
                                                        {options::kScanTagName, std::nullopt}}));
  ARROW_ASSIGN_OR_RAISE(ScanPlan scan, ScanPlanner(latest_table).Plan());
  CompactionPlan plan;
  plan.snapshot_id = scan.snapshot_id;
  for (auto& split : scan.splits) {
    for (auto& group : split.groups) {
      ++plan.groups_total;
      auto normal = NormalFiles(group);
      if (static_cast<int64_t>(normal.size()) < min_files) continue;
      plan.files_before += static_cast<int64_t>(normal.size());
      DataSplit one;
      one.snapshot_id = split.snapshot_id;
      one.partition = split.partition;
      one.bucket = split.bucket;
      one.bucket_dir = split.bucket_dir;
      one.groups.push_back(std::move(group));
      plan.groups.push_back(std::move(one));
    }
  }
  return plan;
}

Result<std::string> CompactedFilePath(std::shared_ptr<const Table> table, const DataSplit& split) {
  if (!table->options().Get(AppendWriter::kFileStemOption)) {
    return Status::Invalid("compacted file paths are known only with ",
                           AppendWriter::kFileStemOption);
  }
  if (split.groups.size() != 1) return Status::Invalid("a compaction split holds one group");
  ARROW_ASSIGN_OR_RAISE(auto writer,
                        AppendWriter::MakeForCompaction(table, split.partition, split.bucket_dir,
                                                        GroupRange(split.groups[0]).from));
  return writer->row_id_file_path();
}

Result<CommitMessage> CompactGroup(std::shared_ptr<const Table> table, const DataSplit& split,
                                   arrow::MemoryPool* pool, bool parallel_writer) {
  ARROW_RETURN_NOT_OK(CheckCompactable(*table));
  if (split.groups.size() != 1) return Status::Invalid("a compaction split holds one group");
  const FileGroup& group = split.groups[0];
  const auto normal = NormalFiles(group);
  if (normal.empty()) return Status::Invalid("a compaction group needs a normal file");
  const RowRange range = GroupRange(group);
  int64_t input_bytes = 0;
  int64_t min_seq = std::numeric_limits<int64_t>::max(), max_seq = 0;
  for (const DataFileMeta* f : normal) {
    input_bytes += f->file_size;
    min_seq = std::min(min_seq, f->min_sequence_number);
    max_seq = std::max(max_seq, f->max_sequence_number);
  }

  AppendWriterOptions write_options;
  write_options.pool = pool;
  write_options.parallel = parallel_writer;
  ARROW_ASSIGN_OR_RAISE(auto writer,
                        AppendWriter::MakeForCompaction(table, split.partition, split.bucket_dir,
                                                        range.from, write_options));
  auto fail = [&](Status st) -> Status {
    (void)writer->Abort();
    return st;
  };
  // Stored bytes, not dereferenced payloads, for `blob-descriptor-field` columns.
  ARROW_ASSIGN_OR_RAISE(auto read_table, table->Copy({{options::kBlobAsDescriptor, "true"}}));
  ReadOptions read_options;
  for (const auto& field : writer->write_schema()->fields()) {
    read_options.fields.push_back(field->name());
  }
  read_options.pool = pool;
  ARROW_ASSIGN_OR_RAISE(auto read, TableRead::Make(read_table, std::move(read_options)));

  const int64_t rows = range.count();
  const int64_t slice_rows =
      std::max(kMinSliceRows, static_cast<int64_t>(static_cast<double>(rows) * kSliceBytes /
                                                   std::max<int64_t>(1, input_bytes)));
  DataSplit slice = split;
  // Deleted rows are rewritten too (positions must not move); their vector moves to the new
  // file at commit (MoveDeletionVectors).
  slice.deletion_files.clear();
  for (int64_t from = range.from; from <= range.to; from += slice_rows) {
    const int64_t to = std::min(range.to, from + slice_rows - 1);
    slice.row_ranges = std::vector<RowRange>{{from, to}};
    auto batch = read->ReadGroup(slice, slice.groups[0]);
    if (!batch.ok()) return fail(batch.status());
    if (!*batch || (*batch)->num_rows() != to - from + 1) {
      return fail(Status::Invalid("compaction read ", *batch ? (*batch)->num_rows() : 0,
                                  " rows of row ids [", from, ", ", to, "] of a group of ",
                                  split.bucket_dir, "; expected ", to - from + 1));
    }
    Status st = writer->Write(*batch);
    if (!st.ok()) return fail(st);
  }
  auto messages = writer->PrepareCommit();
  if (!messages.ok()) return fail(messages.status());
  if (messages->size() != 1 || (*messages)[0].new_files.size() != 1 ||
      OnlyFile(*messages).row_count != rows) {
    return fail(Status::Invalid("internal: compaction of ", split.bucket_dir,
                                " did not write exactly one file of ", rows, " rows"));
  }
  CommitMessage msg = std::move((*messages)[0]);
  DataFileMeta& out = msg.new_files[0];
  out.file_source = static_cast<int32_t>(FileSource::kCompact);
  out.min_sequence_number = min_seq;
  out.max_sequence_number = max_seq;
  msg.bucket = split.bucket;
  for (const DataFileMeta* f : normal) msg.deleted_files.push_back(*f);
  return msg;
}

Status MoveDeletionVectors(const Table& table, std::vector<CommitMessage>* messages,
                           std::vector<std::string>* written) {
  using BucketKey = std::pair<std::string, int32_t>;
  // The vector of a compacted group is keyed by its old anchor; the compacted file (the
  // group's only normal file, with the inputs' smallest sequence numbers) anchors it next.
  std::map<BucketKey, std::map<std::string, std::string>> renames;  // old anchor -> new file
  std::map<BucketKey, size_t> first_message;
  for (size_t i = 0; i < messages->size(); ++i) {
    const CommitMessage& msg = (*messages)[i];
    if (msg.new_files.size() != 1 || msg.deleted_files.empty()) continue;
    const DataFileMeta* old_anchor = DeletionAnchor(msg.deleted_files);
    if (old_anchor == nullptr) continue;
    BucketKey key{msg.partition, msg.bucket};
    renames[key][old_anchor->file_name] = msg.new_files[0].file_name;
    first_message.try_emplace(key, i);
  }
  if (renames.empty()) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto latest, table.LatestSnapshot());
  if (!latest) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto live_index, ReadLiveIndexEntries(table, *latest));
  // The buckets where a live vector is keyed by an anchor this compaction replaces.
  std::map<BucketKey, std::vector<const IndexManifestEntry*>> touched;
  for (const auto& e : live_index) {
    if (e.index_type != kDeletionVectorsIndex) continue;
    auto it = renames.find({e.partition, e.bucket});
    if (it == renames.end()) continue;
    for (const auto& r : e.dv_ranges.value_or(std::vector<DeletionVectorRange>{})) {
      if (it->second.count(r.data_file)) {
        touched[it->first];
        break;
      }
    }
  }
  if (touched.empty()) return Status::OK();
  for (const auto& e : live_index) {
    auto it = touched.find({e.partition, e.bucket});
    if (it != touched.end() && e.index_type == kDeletionVectorsIndex) it->second.push_back(&e);
  }
  // Vectors of files no longer live are dropped, as a delete drops them.
  ARROW_ASSIGN_OR_RAISE(auto entries, ReadLiveEntries(table, *latest, nullptr));
  std::map<BucketKey, std::set<std::string>> live_files;
  for (const auto& e : entries) {
    if (touched.count({e.partition, e.bucket})) {
      live_files[{e.partition, e.bucket}].insert(e.file.file_name);
    }
  }
  for (const auto& [key, files] : touched) {
    ARROW_ASSIGN_OR_RAISE(auto vectors, ReadBucketVectors(table, files, live_files[key]));
    std::map<std::string, DeletionVector> moved;
    for (auto& [file, dv] : vectors) {
      auto to = renames[key].find(file);
      moved[to == renames[key].end() ? file : to->second].AddAll(dv.positions());
    }
    ARROW_ASSIGN_OR_RAISE(auto entry,
                          WriteBucketVectors(table, key.first, key.second, moved, written));
    CommitMessage& msg = (*messages)[first_message[key]];
    msg.new_index_files.push_back(std::move(entry));
    for (const IndexManifestEntry* e : files) msg.deleted_index_files.push_back(*e);
  }
  return Status::OK();
}

Result<std::optional<int64_t>> CommitCompaction(std::shared_ptr<const Table> table,
                                                const std::vector<CommitMessage>& compacted,
                                                const std::string& commit_user) {
  std::vector<CommitMessage> messages = compacted;
  std::vector<std::string> written;
  Status moved = MoveDeletionVectors(*table, &messages, &written);
  if (!moved.ok()) {
    for (const auto& p : written) (void)table->file_io()->DeleteFile(p);
    return AsCommitIOError(moved);  // nothing committed, as a refused Commit
  }
  CommitOptions options;
  options.commit_user = commit_user;
  options.commit_kind = "COMPACT";
  ARROW_ASSIGN_OR_RAISE(auto committer, Committer::Make(std::move(table), std::move(options)));
  return committer->Commit(messages);
}

void TallyCompaction(const std::vector<CommitMessage>& messages, CompactResult* result) {
  for (const auto& msg : messages) {
    result->groups_compacted += msg.new_files.empty() ? 0 : 1;
    result->files_written += static_cast<int64_t>(msg.new_files.size());
    result->files_removed += static_cast<int64_t>(msg.deleted_files.size());
    for (const auto& f : msg.new_files) {
      result->rows_rewritten += f.row_count;
      result->bytes_written += f.file_size;
    }
    for (const auto& f : msg.deleted_files) result->bytes_before += f.file_size;
  }
}

Result<CompactResult> Compact(std::shared_ptr<const Table> table, const CompactOptions& options) {
  const std::string user = options.commit_user.empty() ? RandomUuid() : options.commit_user;
  ARROW_ASSIGN_OR_RAISE(auto cleaner, Committer::Make(table));
  CompactResult result;
  for (int attempt = 1;; ++attempt) {
    result.attempts = attempt;
    ARROW_ASSIGN_OR_RAISE(CompactionPlan plan, PlanCompaction(table, options));
    result.groups_total = plan.groups_total;
    if (plan.groups.empty()) return result;
    ProgressTotal(options.progress, static_cast<int64_t>(plan.groups.size()));
    std::vector<CommitMessage> messages(plan.groups.size());
    std::vector<char> done(plan.groups.size(), 0);  // not vector<bool>: set concurrently
    // A group per core: each group's writer encodes on its task's thread, as in an update.
    const bool parallel_writer = static_cast<int64_t>(plan.groups.size()) <
                                 static_cast<int64_t>(Executor::ResolveThreads(options.threads));
    Status st = Executor::Default()->ParallelFor(
        static_cast<int64_t>(plan.groups.size()), options.threads, [&](int64_t i) -> Status {
          ARROW_RETURN_NOT_OK(ProgressCheck(options.progress, "compact"));
          ARROW_ASSIGN_OR_RAISE(messages[i],
                                CompactGroup(table, plan.groups[i], options.pool, parallel_writer));
          done[i] = 1;
          ProgressDone(options.progress);
          return Status::OK();
        });
    if (st.ok()) st = ProgressCheck(options.progress, "compact");
    if (!st.ok()) {
      std::vector<CommitMessage> written;
      for (size_t i = 0; i < messages.size(); ++i) {
        if (done[i]) written.push_back(std::move(messages[i]));
      }
      (void)cleaner->Abort(written);
      return st;
    }
    auto committed = CommitCompaction(table, messages, user);
    if (committed.ok()) {
      result.snapshot_id = *committed;
      TallyCompaction(messages, &result);
      return result;
    }
    // The committer has deleted this attempt's files. Only a lost race is worth a re-plan.
    const ErrorKind* kind = GetErrorKind(committed.status());
    const bool lost_race = kind != nullptr && (*kind == ErrorKind::kCommitConflict ||
                                               *kind == ErrorKind::kRowIdConflict);
    if (!lost_race || attempt >= options.max_attempts) {
      return committed.status();
    }
  }
}

}  // namespace paimon_rowid
