#include "paimon_rowid/commit/committer.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <thread>

#include "arrow/scalar.h"
#include "paimon_rowid/catalog/snapshot_manager.h"
#include "paimon_rowid/catalog/table_options.h"
#include "paimon_rowid/commit/commit_delta.h"
#include "paimon_rowid/commit/conflict.h"
#include "paimon_rowid/commit/global_index_update.h"
#include "paimon_rowid/commit/manifest_writer.h"
#include "paimon_rowid/commit/stamping.h"
#include "paimon_rowid/common/clock.h"
#include "paimon_rowid/common/fault_points.h"
#include "paimon_rowid/common/identifier.h"
#include "paimon_rowid/exec/compute.h"
#include "paimon_rowid/scan/deletion_files.h"
#include "paimon_rowid/scan/partition.h"
#include "paimon_rowid/scan/partition_stats.h"
#include "paimon_rowid/scan/plan.h"

namespace paimon_rowid {
namespace {

constexpr const char* kDefaultPartitionName = "__DEFAULT_PARTITION__";

// The table options one commit reads, once, before its first attempt.
struct CommitSettings {
  int64_t max_retries = 10;
  int64_t min_wait = 10;
  int64_t max_wait = 10000;
  // How long after creating snapshot-N we check that no check-then-rename writer replaced it.
  int64_t verify_delay = 50;
  bool group_on_commit = true;
  bool row_tracking = false;
  ManifestWriteOptions manifest;

  static Result<CommitSettings> FromTable(const Table& table) {
    const Options& opts = table.options();
    CommitSettings s;
    ARROW_ASSIGN_OR_RAISE(const CommitRetrySettings retry, ParseCommitRetrySettings(opts));
    s.max_retries = retry.max_retries;
    s.min_wait = retry.min_wait_ms;
    s.max_wait = retry.max_wait_ms;
    s.verify_delay = retry.verify_delay_ms;
    s.group_on_commit = retry.group_on_commit;
    ARROW_ASSIGN_OR_RAISE(s.row_tracking, opts.GetBool(options::kRowTrackingEnabled, false));
    ARROW_ASSIGN_OR_RAISE(s.manifest, ManifestWriteOptions::FromTable(table));
    return s;
  }
};

// The two manifest lists of a new snapshot.
struct ManifestLists {
  std::string base_name;
  int64_t base_size = 0;
  std::string delta_name;
  int64_t delta_size = 0;
};

// Whether a writer other than this engine committed one of the snapshots of the last 5 s
// before `latest` (inclusive): only then can a check-then-rename writer replace ours.
bool ForeignWriterActive(const Table& table, const std::optional<Snapshot>& latest) {
  for (std::optional<Snapshot> s = latest; s && NowMillis() - s->time_millis < 5000;) {
    if (s->writer_version.value_or("").rfind("paimon-rowid", 0) != 0) return true;
    if (s->id <= 1) break;
    auto previous = table.SnapshotById(s->id - 1);
    if (!previous.ok()) break;
    s = std::move(*previous);
  }
  return false;
}

}  // namespace

Result<std::string> DataFilePath(const Table& table, const std::string& partition, int32_t bucket,
                                 const DataFileMeta& file) {
  if (file.external_path) return *file.external_path;
  ARROW_ASSIGN_OR_RAISE(auto fields, PartitionFields(table.schema()));
  std::string partition_path;
  if (!fields.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto values, DecodePartition(partition, fields));
    partition_path = JavaPartitionPath(
        fields, values,
        table.options().GetOr(options::kPartitionDefaultName, kDefaultPartitionName));
  }
  return JoinPath(table.BucketPath(partition_path, bucket), file.file_name);
}

// The attempts of one Commit call. Each attempt reads the latest snapshot and recomputes
// everything from it; the files it writes are its own (deleted when it does not become a
// snapshot) until snapshot-N names them.
struct Committer::Attempt {
  const Committer& committer;
  const CommitSettings& settings;
  const CommitDelta& delta;
  // The snapshot's commitKind: the options' kind, OVERWRITE for an APPEND that changes
  // deletion vectors (as pypaimon and Java commit deletes).
  const std::string& kind;
  // The partitions an overwrite replaces (nullptr: not an overwrite).
  OverwriteScope* overwrite = nullptr;
  // The latest snapshot's live index entries (read by CheckConflicts when the commit changes
  // the index or deletes data files, and for an overwrite).
  std::vector<IndexManifestEntry> live_index{};
  // An overwrite removed index entries of replaced partitions from live_index.
  bool overwrite_changes_index = false;
  // Global-index files an update drops (global-index.column-update-action
  // DROP_PARTITION_INDEX), found by CheckConflicts against the latest snapshot.
  std::vector<IndexManifestEntry> dropped_by_update{};
  // The last attempt found nothing to add or delete (an overwrite with skip_if_unchanged).
  bool nothing_to_commit = false;
  // The latest snapshot id the first attempt saw; later attempts look above it for a
  // snapshot of this commit that did land (an ambiguous failure).
  std::optional<int64_t> first_seen_latest{};
  // Set when the messages turn out to be committed already: their files are not ours then.
  bool already_committed = false;
  std::vector<std::string> files{};  // written by the current attempt

  const Table& table() const { return *committer.table_; }
  const CommitOptions& options() const { return committer.options_; }

  void Cleanup() {
    for (const auto& f : files) (void)table().file_io()->DeleteFile(f);
    files.clear();
  }

  // `error`, from reading snapshot `latest_id` and its metadata, as a lost race (nullopt:
  // retry on the new latest) when that snapshot is no longer there: an expiration removed it
  // and its manifests after this attempt chose it as the latest. Expiration keeps the latest
  // snapshot, so a newer one exists and the next attempt builds on it.
  Result<std::optional<int64_t>> RetryIfExpired(int64_t latest_id, Status error) {
    if (latest_id <= 0 || !(error.IsIOError() || error.IsInvalid())) return error;
    if (GetErrorKind(error) != nullptr) return error;  // a conflict, not a missing file
    ARROW_ASSIGN_OR_RAISE(bool exists, table().file_io()->Exists(table().SnapshotPath(latest_id)));
    if (exists) return error;
    return std::nullopt;
  }

  // One attempt: the snapshot id, nullopt to retry, or an error (final).
  Result<std::optional<int64_t>> TryOnce(int attempt) {
    ARROW_ASSIGN_OR_RAISE(auto latest, table().LatestSnapshot());
    const int64_t latest_id = latest ? latest->id : 0;
    FaultPoint("commit_after_choosing_latest");
    ARROW_ASSIGN_OR_RAISE(auto landed, FindLanded(latest_id));
    if (landed) return landed;
    const int64_t new_id = latest_id + 1;
    std::vector<ManifestEntry> live;
    if (latest) {
      auto read = ReadLiveEntries(table(), *latest, nullptr);
      if (!read.ok()) return RetryIfExpired(latest_id, read.status());
      live = std::move(read).MoveValueUnsafe();
    }
    if (Status conflicts = CheckConflicts(latest, live); !conflicts.ok()) {
      return RetryIfExpired(latest_id, std::move(conflicts));
    }

    std::vector<ManifestEntry> entries = delta.entries;
    overwrite_changes_index = false;
    if (overwrite != nullptr && latest) {
      // An overwrite's delta holds new files only (OverwriteScope::Make), so CheckConflicts
      // left the index unread.
      ARROW_ASSIGN_OR_RAISE(live_index, ReadLiveIndexEntries(table(), *latest));
      ARROW_ASSIGN_OR_RAISE(overwrite_changes_index,
                            overwrite->Apply(std::move(live), &live_index, &entries));
    }
    if (overwrite != nullptr && options().overwrite->skip_if_unchanged && entries.empty() &&
        !overwrite_changes_index) {
      nothing_to_commit = true;
      return std::nullopt;
    }
    StampSequenceNumbers(&entries, new_id);
    if (settings.group_on_commit) entries = GroupByPartition(std::move(entries));
    int64_t next_row_id = latest && latest->next_row_id ? *latest->next_row_id : 0;
    if (settings.row_tracking) {
      ARROW_ASSIGN_OR_RAISE(next_row_id, AssignRowIds(&entries, next_row_id));
    }
    ARROW_ASSIGN_OR_RAISE(auto latest_schema, table().LatestSchema());
    if (!latest_schema) {  // dropped (or moved) while this commit ran
      return Status::Invalid("table at '", table().path(),
                             "' no longer exists (dropped while this commit ran)");
    }
    ARROW_ASSIGN_OR_RAISE(auto lists, WriteManifestLists(latest, entries));
    std::optional<std::string> index_manifest = latest ? latest->index_manifest : std::nullopt;
    if (delta.changes_index() || overwrite_changes_index || !dropped_by_update.empty()) {
      ARROW_ASSIGN_OR_RAISE(index_manifest, WriteIndexManifest());
    }
    Snapshot snap = BuildSnapshot(latest, new_id, latest_schema->id, lists, entries, next_row_id);
    snap.index_manifest = index_manifest;

    // The metadata files of this attempt reach the disk before the snapshot naming them.
    ARROW_RETURN_NOT_OK(table().file_io()->Sync(files));
    if (options().before_snapshot_create) options().before_snapshot_create(attempt, new_id);
    // A catalog server (catalog/snapshot_commit.h) decides itself; else no-replace create.
    const auto& server = table().snapshot_commit();
    std::string statistics;
    if (server) {
      ARROW_ASSIGN_OR_RAISE(auto stats, DeltaPartitionStats(table(), entries));
      statistics = PartitionStatsJson(stats);
    }
    Status created =
        server ? server->Commit(snap, statistics)
               : table().file_io()->WriteFileNoReplace(table().SnapshotPath(new_id), snap.ToJson());
    if (!created.ok()) {
      ARROW_ASSIGN_OR_RAISE(bool landed, ResolveFailedCreate(new_id, snap, created));
      if (!landed) return std::nullopt;
    }
    files.clear();  // they belong to the snapshot now
    FaultPoint("after_snapshot");
    if (options().after_snapshot_create) options().after_snapshot_create(attempt, new_id);
    if (server) return new_id;  // the server keeps LATEST and serialises its commits
    SnapshotManager(table().file_io(), table().path()).AdvanceLatestHint(new_id);
    FaultPoint("after_latest");
    ARROW_ASSIGN_OR_RAISE(bool ours, Verify(latest, snap));
    if (!ours) return std::nullopt;
    return new_id;
  }

  // After snapshot-`id` was not created cleanly (`created`): true when it is this attempt's
  // `snap` after all, false to retry on a later id, or the error (final). An object store's
  // PUT can store the object and still fail (a lost response), and a retried conditional PUT
  // then meets its own first try (412): the manifest lists' names are this attempt's own,
  // so they tell. Files a snapshot may reference are never deleted on a guess.
  Result<bool> ResolveFailedCreate(int64_t id, const Snapshot& snap, const Status& created) {
    const std::string path = table().SnapshotPath(id);
    auto exists = table().file_io()->Exists(path);
    std::optional<Snapshot> found;
    if (exists.ok() && *exists) {
      auto read = table().SnapshotById(id);
      if (read.ok()) found = std::move(*read);
    }
    if (found) {
      if (found->base_manifest_list == snap.base_manifest_list &&
          found->delta_manifest_list == snap.delta_manifest_list) {
        return true;
      }
      return false;  // another writer's: retry on the next id
    }
    if (exists.ok() && !*exists && !created.IsAlreadyExists()) return created;  // not stored
    // Unknown (unreadable, or reported present but gone): keep the files, orphans at worst.
    files.clear();
    if (created.IsAlreadyExists()) return false;
    already_committed = true;
    return created;
  }

  // On a retry: a snapshot above the first latest seen made by this commit (same user,
  // identifier and kind) means an earlier attempt landed after all. A snapshot of the range
  // that an expiration removed meanwhile is skipped: it was not this commit's, since each
  // attempt that created its snapshot knew it (ResolveFailedCreate, Verify) and returned.
  Result<std::optional<int64_t>> FindLanded(int64_t latest_id) {
    if (!first_seen_latest) {
      first_seen_latest = latest_id;
      return std::nullopt;
    }
    for (int64_t id = *first_seen_latest + 1; id <= latest_id; ++id) {
      auto read = table().SnapshotById(id);
      if (!read.ok()) {
        ARROW_ASSIGN_OR_RAISE(bool exists, table().file_io()->Exists(table().SnapshotPath(id)));
        if (!exists) continue;  // expired under this commit
        return read.status();
      }
      const Snapshot& s = *read;
      if (s.commit_user == options().commit_user &&
          s.commit_identifier == options().commit_identifier && s.commit_kind == kind) {
        return std::optional<int64_t>(id);
      }
    }
    return std::nullopt;
  }

  // The delta against the latest snapshot: not committed before, and (for messages planned
  // on a base snapshot) no data-evolution conflict.
  Status CheckConflicts(const std::optional<Snapshot>& latest,
                        const std::vector<ManifestEntry>& live) {
    const bool compact = kind == "COMPACT";
    const bool deletes_files = delta.deletes_files();
    live_index.clear();
    dropped_by_update.clear();
    if (!latest) {
      if (compact || deletes_files) ARROW_RETURN_NOT_OK(CheckDeletesLive({}, delta.entries, 0));
      if (delta.changes_index()) ARROW_RETURN_NOT_OK(CheckIndexChanges({}, {}, delta, 0));
      if (delta.check_from) return CheckRowIdExistence({}, std::nullopt, delta.entries);
      return Status::OK();
    }
    Status twice = CheckNotCommitted(live, delta.entries, latest->id);
    if (!twice.ok()) {
      already_committed = true;
      return twice;
    }
    if (delta.changes_index() || deletes_files) {
      ARROW_ASSIGN_OR_RAISE(live_index, ReadLiveIndexEntries(table(), *latest));
      Status index = CheckIndexChanges(live, live_index, delta, latest->id);
      if (!index.ok()) {
        if (GetErrorKind(index) == nullptr) already_committed = true;  // its files are live
        return index;
      }
    }
    if (deletes_files && !compact) {
      ARROW_RETURN_NOT_OK(CheckDeletesLive(live, delta.entries, latest->id));
    }
    if (compact) {
      // Outputs must lie inside the live normal ranges they replace; values are unchanged, so
      // updates committed since the compaction's base keep winning (higher sequence).
      ARROW_RETURN_NOT_OK(CheckDeletesLive(live, delta.entries, latest->id));
      return CheckCompactionCoverage(live, delta.entries);
    }
    if (delta.check_from) {
      ARROW_RETURN_NOT_OK(CheckRowIdExistence(live, latest->next_row_id, delta.entries));
      ARROW_RETURN_NOT_OK(
          CheckColumnConflicts(committer.table_, *delta.check_from, *latest, delta.entries));
      if (latest->index_manifest && !delta.changes_index() && !deletes_files) {
        ARROW_ASSIGN_OR_RAISE(live_index, ReadLiveIndexEntries(table(), *latest));
      }
      // pypaimon skips this check for a commit that drops index files itself (deletion
      // vectors); we check every update, so no such commit leaves an index stale.
      ARROW_ASSIGN_OR_RAISE(dropped_by_update,
                            CheckGlobalIndexColumnUpdates(table(), delta.entries, live_index));
    }
    return Status::OK();
  }

  // The manifest(s) with this commit's entries, then the base list: everything the latest
  // snapshot lists, its trailing small manifests merged once there are enough.
  Result<ManifestLists> WriteManifestLists(const std::optional<Snapshot>& latest,
                                           const std::vector<ManifestEntry>& entries) {
    const std::shared_ptr<FileIO>& io = table().file_io();
    FaultPoint("before_manifest");
    ARROW_ASSIGN_OR_RAISE(auto delta_metas,
                          WriteManifests(table(), entries, settings.manifest, &files));
    FaultPoint("after_manifest");
    std::vector<ManifestFileMeta> base;
    if (latest) {
      for (const std::string* list : {&latest->base_manifest_list, &latest->delta_manifest_list}) {
        if (list->empty()) continue;
        ARROW_ASSIGN_OR_RAISE(auto data, io->ReadFile(table().ManifestPath(*list)));
        ARROW_ASSIGN_OR_RAISE(auto metas, DecodeManifestList(std::move(data)));
        base.insert(base.end(), metas.begin(), metas.end());
      }
    }
    ARROW_ASSIGN_OR_RAISE(base,
                          MergeSmallManifests(table(), std::move(base), settings.manifest, &files));
    const std::string list_uuid = RandomUuid();
    ManifestLists lists;
    lists.base_name = "manifest-list-" + list_uuid + "-0";
    lists.delta_name = "manifest-list-" + list_uuid + "-1";
    ARROW_ASSIGN_OR_RAISE(auto base_bytes, EncodeManifestList(base, settings.manifest.codec,
                                                              settings.manifest.zstd_level));
    ARROW_ASSIGN_OR_RAISE(auto delta_bytes, EncodeManifestList(delta_metas, settings.manifest.codec,
                                                               settings.manifest.zstd_level));
    // Each file is listed (to sync, or to delete on failure) once created: a name that is
    // taken is someone else's file, never ours to delete.
    const std::string base_path = table().ManifestPath(lists.base_name);
    ARROW_RETURN_NOT_OK(io->WriteFileUnsynced(base_path, base_bytes->ToString()));
    files.push_back(base_path);
    const std::string delta_path = table().ManifestPath(lists.delta_name);
    ARROW_RETURN_NOT_OK(io->WriteFileUnsynced(delta_path, delta_bytes->ToString()));
    files.push_back(delta_path);
    lists.base_size = base_bytes->size();
    lists.delta_size = delta_bytes->size();
    FaultPoint("after_manifest_lists");
    return lists;
  }

  // The index manifest of the new snapshot: the latest live index entries with this
  // commit's changes, all as ADD entries (as Java and pypaimon write it); nullopt when none
  // is left.
  Result<std::optional<std::string>> WriteIndexManifest() {
    std::vector<IndexManifestEntry> entries = ApplyIndexChanges(live_index, delta);
    if (!dropped_by_update.empty()) {
      std::set<std::string> dropped;
      for (const auto& e : dropped_by_update) dropped.insert(e.file_name);
      std::erase_if(entries, [&](const IndexManifestEntry& e) {
        return e.global_index && dropped.count(e.file_name) > 0;
      });
    }
    if (entries.empty()) return std::nullopt;
    ARROW_ASSIGN_OR_RAISE(auto bytes, EncodeIndexManifest(entries, settings.manifest.codec,
                                                          settings.manifest.zstd_level));
    std::string name = "index-manifest-" + RandomUuid() + "-0";
    const std::string path = table().ManifestPath(name);
    ARROW_RETURN_NOT_OK(table().file_io()->WriteFileUnsynced(path, bytes->ToString()));
    files.push_back(path);
    return name;
  }

  Snapshot BuildSnapshot(const std::optional<Snapshot>& latest, int64_t new_id, int64_t schema_id,
                         const ManifestLists& lists, const std::vector<ManifestEntry>& entries,
                         int64_t next_row_id) const {
    int64_t delta_records = 0;
    for (const auto& e : entries) {
      delta_records += e.kind == FileKind::kAdd ? e.file.row_count : -e.file.row_count;
    }
    Snapshot snap;
    snap.version = 3;
    snap.id = new_id;
    snap.schema_id = schema_id;
    snap.base_manifest_list = lists.base_name;
    snap.base_manifest_list_size = lists.base_size;
    snap.delta_manifest_list = lists.delta_name;
    snap.delta_manifest_list_size = lists.delta_size;
    if (latest) {
      snap.index_manifest = latest->index_manifest;
      snap.watermark = latest->watermark;
      if (latest->schema_id == schema_id) snap.statistics = latest->statistics;
    }
    snap.uuid = RandomUuid();  // identifies this attempt's snapshot in Verify
    snap.commit_user = options().commit_user;
    snap.properties = options().properties;
    if (latest) {
      for (const auto& [key, value] : latest->properties) {
        if (key.rfind(kCarriedPropertyPrefix, 0) == 0) snap.properties.emplace(key, value);
      }
    }
    snap.writer_version = kWriterVersion;
    snap.commit_identifier = options().commit_identifier;
    snap.commit_kind = kind;
    snap.time_millis = NowMillis();
    int64_t previous_total = latest && latest->total_record_count ? *latest->total_record_count : 0;
    snap.total_record_count = previous_total + delta_records;
    snap.delta_record_count = delta_records;
    snap.next_row_id = next_row_id;
    return snap;
  }

  // Java and pypaimon create snapshots with check-then-rename, and rename replaces: a writer
  // that checked before our link can still overwrite snapshot-N. Read it back after a short
  // grace period; false when it is no longer ours: the commit was lost and is redone on top
  // of the new latest (our data files are intact; the lost manifests become orphans, since a
  // reader may still hold them). The grace period is paid only while another engine is
  // active; our own writers never replace snapshots.
  Result<bool> Verify(const std::optional<Snapshot>& latest, const Snapshot& snap) {
    if (settings.verify_delay > 0 && ForeignWriterActive(table(), latest)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(settings.verify_delay));
    }
    auto landed = table().SnapshotById(snap.id);
    if (landed.ok() && landed->uuid != snap.uuid) {
      first_seen_latest = snap.id;  // the replacing snapshot is not ours
      return false;
    }
    return true;
  }

  // Exponential back-off with jitter before attempt `attempt` + 1.
  void BackOff(int attempt, std::mt19937_64* rng) const {
    int64_t wait = settings.min_wait;
    for (int i = 0; i < attempt && wait < settings.max_wait; ++i) wait *= 2;
    wait = std::min(wait, settings.max_wait);
    int64_t jitter = wait > 0 ? static_cast<int64_t>((*rng)() % static_cast<uint64_t>(wait)) : 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(wait / 2 + jitter));
  }
};

Committer::Committer(std::shared_ptr<const Table> table, CommitOptions options)
    : table_(std::move(table)), options_(std::move(options)) {}

Result<std::unique_ptr<Committer>> Committer::Make(std::shared_ptr<const Table> table,
                                                   CommitOptions options) {
  if (!table) return Status::Invalid("Committer needs a table");
  ARROW_RETURN_NOT_OK(EnsureComputeInitialized());
  if (options.commit_user.empty()) options.commit_user = RandomUuid();
  if (options.commit_kind != "APPEND" && options.commit_kind != "COMPACT") {
    return Status::Invalid("commit kind must be APPEND or COMPACT, got '", options.commit_kind,
                           "'");
  }
  if (options.overwrite) {
    if (options.commit_kind != "APPEND") {
      return Status::Invalid("an overwrite commits new files: its commit kind must be APPEND");
    }
    if (options.overwrite->dynamic && options.overwrite->partitions) {
      return Status::Invalid("a dynamic partition overwrite takes no partition filter");
    }
  }
  return std::unique_ptr<Committer>(new Committer(std::move(table), std::move(options)));
}

Status Committer::Abort(const std::vector<CommitMessage>& messages) const {
  Status first_error;
  for (const auto& msg : messages) {
    for (const auto& f : msg.new_files) {
      auto path = DataFilePath(*table_, msg.partition, msg.bucket, f);
      if (!path.ok()) {
        if (first_error.ok()) first_error = path.status();
        continue;
      }
      Status st = table_->file_io()->DeleteFile(*path);
      if (!st.ok() && first_error.ok()) first_error = st;
      std::string dir = path->substr(0, path->rfind('/'));
      for (const auto& extra : f.extra_files)
        (void)table_->file_io()->DeleteFile(JoinPath(dir, extra));
    }
    for (const auto& e : msg.new_index_files) {
      Status st = table_->file_io()->DeleteFile(IndexEntryPath(*table_, e));
      if (!st.ok() && first_error.ok()) first_error = st;
    }
  }
  return first_error;
}

Status AsCommitIOError(Status st) {
  if (!st.IsIOError() || GetErrorKind(st) != nullptr) return st;
  return MakeKindError(arrow::StatusCode::IOError, ErrorKind::kCommitIO,
                       "Failed to commit: " + st.message());
}

Result<std::optional<int64_t>> Committer::Commit(const std::vector<CommitMessage>& messages) {
  bool maybe_landed = false;
  auto committed = CommitOrFail(messages, &maybe_landed);
  if (committed.ok() || maybe_landed) return committed;
  return AsCommitIOError(committed.status());
}

Result<std::optional<int64_t>> Committer::CommitOrFail(const std::vector<CommitMessage>& messages,
                                                       bool* maybe_landed) {
  const CommitDelta delta = DeltaOf(messages);
  if (delta.empty() && !options_.overwrite) return std::nullopt;
  // Deletes (of rows through deletion vectors, or of whole files) are OVERWRITE commits, as
  // in Java and pypaimon.
  const std::string kind =
      options_.commit_kind == "APPEND" && !delta.only_global_index_changes() &&
              (options_.overwrite || delta.changes_index() || delta.deletes_files())
          ? std::string("OVERWRITE")
          : options_.commit_kind;
  // Refused messages are not this commit's to clean up (they may belong to a snapshot).
  ARROW_RETURN_NOT_OK(CheckMessages(*table_, messages));
  auto settings = CommitSettings::FromTable(*table_);
  if (!settings.ok()) {
    (void)Abort(messages);
    return settings.status();
  }
  std::unique_ptr<OverwriteScope> overwrite;
  if (options_.overwrite) {
    auto scope = OverwriteScope::Make(*table_, *options_.overwrite, delta);
    if (!scope.ok()) {
      (void)Abort(messages);
      return scope.status();
    }
    overwrite = std::move(*scope);
    if (overwrite->replaces_nothing()) return std::nullopt;
  }
  Attempt attempts{*this, *settings, delta, kind};
  attempts.overwrite = overwrite.get();
  // A final failure deletes the messages' data files, unless they belong to a snapshot.
  auto fail = [&](Status st) -> Status {
    if (attempts.already_committed) {
      *maybe_landed = true;
    } else {
      (void)Abort(messages);
    }
    return st;
  };
  std::mt19937_64 rng(std::random_device{}());
  for (int attempt = 0;; ++attempt) {
    auto result = attempts.TryOnce(attempt);
    if (!result.ok()) {
      attempts.Cleanup();
      return fail(result.status());
    }
    if (*result) return *result;
    attempts.Cleanup();
    if (attempts.nothing_to_commit) return std::nullopt;
    if (attempt >= settings->max_retries) {
      return fail(MakeKindError(
          arrow::StatusCode::Invalid, ErrorKind::kCommitConflict,
          "Commit failed after " + std::to_string(attempt + 1) +
              " attempts: other writers kept committing snapshots first (commit.max-retries=" +
              std::to_string(settings->max_retries) + ")"));
    }
    attempts.BackOff(attempt, &rng);
  }
}

}  // namespace paimon_rowid
