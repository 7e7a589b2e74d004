#include "paimon_rowid/maint/rollback.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "paimon_rowid/catalog/snapshot_manager.h"
#include "paimon_rowid/common/options.h"
#include "paimon_rowid/maint/table_files_internal.h"
#include "paimon_rowid/scan/plan.h"

namespace paimon_rowid {
namespace {

struct Plan {
  std::vector<int64_t> snapshot_ids;  // newest first
  std::vector<std::string> tags;      // tag names on snapshots newer than R
  std::set<std::string> data_files;   // to delete
  std::set<std::string> meta_files;   // to delete
};

// The entries of the manifests a manifest list names (missing files count as empty).
Result<std::vector<ManifestEntry>> ListEntries(const Table& table, const std::string& list) {
  std::vector<ManifestEntry> out;
  if (list.empty()) return out;
  ARROW_ASSIGN_OR_RAISE(auto metas, ReadManifestListIfExists(table, list));
  for (const auto& m : metas) {
    ARROW_ASSIGN_OR_RAISE(auto entries, ReadManifestIfExists(table, m.file_name));
    for (auto& e : entries) out.push_back(std::move(e));
  }
  return out;
}

Status AddKeep(const Table& table, const Snapshot& snap, std::set<std::string>* keep_meta,
               std::set<std::string>* keep_data) {
  ARROW_RETURN_NOT_OK(CollectMetaFiles(table, snap, /*tolerate_missing=*/false, keep_meta));
  ARROW_ASSIGN_OR_RAISE(auto live, ReadLiveEntries(table, snap, nullptr));
  for (const auto& e : live) ARROW_RETURN_NOT_OK(AddDataPaths(table, e, keep_data));
  return Status::OK();
}

// Reads everything the rollback to `retained` deletes (files too with `files`); deletes
// nothing.
Result<Plan> MakePlan(const Table& table, const Snapshot& retained, bool files) {
  Plan plan;
  std::set<std::string> keep_meta, keep_data;
  if (files) ARROW_RETURN_NOT_OK(AddKeep(table, retained, &keep_meta, &keep_data));

  std::vector<Snapshot> dropped;  // snapshots and tags whose files may go
  ARROW_ASSIGN_OR_RAISE(auto latest, table.LatestSnapshotId());
  if (latest && *latest > retained.id) {
    ARROW_ASSIGN_OR_RAISE(int64_t earliest, EarliestSnapshotId(table, *latest));
    for (int64_t id = *latest; id >= std::max(earliest, retained.id + 1); --id) {
      ARROW_ASSIGN_OR_RAISE(bool exists, table.file_io()->Exists(table.SnapshotPath(id)));
      if (!exists) continue;
      plan.snapshot_ids.push_back(id);
      if (!files) continue;
      ARROW_ASSIGN_OR_RAISE(Snapshot snap, table.SnapshotById(id));
      // What this snapshot added (Java's deleteAddedDataFiles of its delta and changelog).
      std::vector<const std::string*> lists{&snap.delta_manifest_list};
      if (snap.changelog_manifest_list) lists.push_back(&*snap.changelog_manifest_list);
      for (const std::string* list : lists) {
        ARROW_ASSIGN_OR_RAISE(auto entries, ListEntries(table, *list));
        for (const auto& e : entries) {
          if (e.kind == FileKind::kAdd) {
            ARROW_RETURN_NOT_OK(AddDataPaths(table, e, &plan.data_files));
          }
        }
      }
      // Snapshots between R and the earliest expired (rolling back to a tag): the files they
      // added that are still live are live in the oldest remaining one.
      if (id == std::max(earliest, retained.id + 1) && earliest > retained.id + 1) {
        ARROW_ASSIGN_OR_RAISE(auto live, ReadLiveEntries(table, snap, nullptr));
        for (const auto& e : live) ARROW_RETURN_NOT_OK(AddDataPaths(table, e, &plan.data_files));
      }
      dropped.push_back(std::move(snap));
    }
  }

  ARROW_ASSIGN_OR_RAISE(auto tag_names, table.ListTags());
  for (const auto& name : tag_names) {
    ARROW_ASSIGN_OR_RAISE(Tag tag, table.TagByName(name));
    if (tag.snapshot.id <= retained.id) {
      // A tag that stays keeps its files (it cannot name a file newer than R; kept anyway).
      if (files) ARROW_RETURN_NOT_OK(AddKeep(table, tag.snapshot, &keep_meta, &keep_data));
      continue;
    }
    plan.tags.push_back(name);
    if (!files) continue;
    ARROW_ASSIGN_OR_RAISE(auto live, ReadLiveEntries(table, tag.snapshot, nullptr));
    for (const auto& e : live) ARROW_RETURN_NOT_OK(AddDataPaths(table, e, &plan.data_files));
    dropped.push_back(std::move(tag.snapshot));
  }

  for (const auto& snap : dropped) {
    ARROW_RETURN_NOT_OK(CollectMetaFiles(table, snap, /*tolerate_missing=*/true, &plan.meta_files));
  }
  for (const auto& p : keep_data) plan.data_files.erase(p);
  for (const auto& p : keep_meta) plan.meta_files.erase(p);
  return plan;
}

Status DeleteCounted(const FileIO& io, const std::string& path, int64_t* count, int64_t* bytes) {
  ARROW_ASSIGN_OR_RAISE(bool exists, io.Exists(path));
  if (!exists) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(int64_t size, io.FileSize(path));
  ARROW_RETURN_NOT_OK(io.DeleteFile(path));
  ++*count;
  *bytes += size;
  return Status::OK();
}

// Java's cleanLargerThan, with `recreate` set when R's snapshot file must be written from
// its tag first.
Result<RollbackResult> CleanLargerThan(const Table& table, const Snapshot& retained, bool recreate,
                                       const RollbackOptions& options) {
  ARROW_ASSIGN_OR_RAISE(Plan plan, MakePlan(table, retained, options.delete_unused_files));
  const FileIO& io = *table.file_io();
  SnapshotManager snapshots(table.file_io(), table.path());
  RollbackResult result;
  result.snapshot_id = retained.id;
  if (recreate) {
    Status st = io.WriteFileNoReplace(table.SnapshotPath(retained.id), retained.ToJson());
    if (!st.ok() && !st.IsAlreadyExists()) return st;
  }
  for (int64_t id : plan.snapshot_ids) {
    int64_t unused_bytes = 0;
    ARROW_RETURN_NOT_OK(
        DeleteCounted(io, table.SnapshotPath(id), &result.snapshots_deleted, &unused_bytes));
  }
  ARROW_RETURN_NOT_OK(
      io.WriteHint(snapshots.HintPath(SnapshotManager::kLatestHint), std::to_string(retained.id)));
  if (recreate) {
    ARROW_RETURN_NOT_OK(io.WriteHint(snapshots.HintPath(SnapshotManager::kEarliestHint),
                                     std::to_string(retained.id)));
  }
  for (const auto& name : plan.tags) {
    ARROW_RETURN_NOT_OK(io.DeleteFile(table.TagPath(name)));
    result.tags_deleted.push_back(name);
  }
  for (const auto& p : plan.data_files) {
    ARROW_RETURN_NOT_OK(DeleteCounted(io, p, &result.data_files_deleted, &result.bytes_freed));
  }
  // Manifests before the lists that name them.
  std::vector<std::string> ordered(plan.meta_files.begin(), plan.meta_files.end());
  std::stable_partition(ordered.begin(), ordered.end(), [](const std::string& p) {
    return p.find("/manifest-list-") == std::string::npos &&
           p.find("/index-manifest-") == std::string::npos;
  });
  for (const auto& p : ordered) {
    ARROW_RETURN_NOT_OK(DeleteCounted(io, p, &result.manifest_files_deleted, &result.bytes_freed));
  }
  std::sort(result.tags_deleted.begin(), result.tags_deleted.end());
  return result;
}

}  // namespace

namespace {

// A table of a catalog server (catalog/snapshot_commit.h) is rolled back by the server, which
// keeps its own record of the latest snapshot; it deletes what it deletes, so nothing is
// counted here and `delete_unused_files` is left to remove_orphan_files.
Result<RollbackResult> ServerRollback(const Table& table, int64_t snapshot_id,
                                      const std::string& tag_name) {
  ARROW_RETURN_NOT_OK(table.snapshot_commit()->Rollback(snapshot_id, tag_name));
  RollbackResult result;
  result.snapshot_id = snapshot_id;
  return result;
}

}  // namespace

Result<RollbackResult> RollbackToTag(std::shared_ptr<const Table> table,
                                     const std::string& tag_name, RollbackOptions options) {
  if (!table) return Status::Invalid("RollbackToTag needs a table");
  ARROW_ASSIGN_OR_RAISE(Tag tag, table->TagByName(tag_name));
  if (table->snapshot_commit()) return ServerRollback(*table, tag.snapshot.id, tag_name);
  ARROW_ASSIGN_OR_RAISE(bool exists,
                        table->file_io()->Exists(table->SnapshotPath(tag.snapshot.id)));
  return CleanLargerThan(*table, tag.snapshot, /*recreate=*/!exists, options);
}

Result<RollbackResult> RollbackToSnapshot(std::shared_ptr<const Table> table, int64_t snapshot_id,
                                          RollbackOptions options) {
  if (!table) return Status::Invalid("RollbackToSnapshot needs a table");
  ARROW_ASSIGN_OR_RAISE(bool exists, table->file_io()->Exists(table->SnapshotPath(snapshot_id)));
  if (exists) {
    ARROW_ASSIGN_OR_RAISE(Snapshot snap, table->SnapshotById(snapshot_id));
    if (table->snapshot_commit()) return ServerRollback(*table, snap.id, "");
    return CleanLargerThan(*table, snap, /*recreate=*/false, options);
  }
  // Expired: a tag may still hold it (pypaimon and Java look for one).
  ARROW_ASSIGN_OR_RAISE(auto names, table->ListTags());
  for (const auto& name : names) {
    ARROW_ASSIGN_OR_RAISE(Tag tag, table->TagByName(name));
    if (tag.snapshot.id == snapshot_id) return RollbackToTag(table, name, options);
  }
  return Status::Invalid("Rollback snapshot '", snapshot_id, "' doesn't exist.");
}

Result<RollbackResult> RollbackToTimestamp(std::shared_ptr<const Table> table,
                                           int64_t timestamp_millis, RollbackOptions options) {
  if (!table) return Status::Invalid("RollbackToTimestamp needs a table");
  std::map<std::string, std::optional<std::string>> travel;
  for (const char* key : {options::kScanVersion, options::kScanSnapshotId, options::kScanTagName,
                          options::kScanWatermark, options::kScanTimestamp}) {
    travel[key] = std::nullopt;
  }
  travel[options::kScanTimestampMillis] = std::to_string(timestamp_millis);
  auto travelled = table->Copy(travel);
  if (!travelled.ok()) {
    // No snapshot at or before the time (also for a table without snapshots).
    if (travelled.status().IsInvalid()) {
      return Status::Invalid("No snapshot found with timestamp earlier than or equal to ",
                             timestamp_millis, "ms.");
    }
    return travelled.status();
  }
  ARROW_ASSIGN_OR_RAISE(auto snap, (*travelled)->ResolveSnapshot());
  if (!snap) {
    return Status::Invalid("No snapshot found with timestamp earlier than or equal to ",
                           timestamp_millis, "ms.");
  }
  return RollbackToSnapshot(table, snap->id, options);
}

}  // namespace paimon_rowid
