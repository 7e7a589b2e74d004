#include "paimon_rowid/maint/expire.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "paimon_rowid/catalog/snapshot_manager.h"
#include "paimon_rowid/catalog/table_options.h"
#include "paimon_rowid/commit/committer.h"
#include "paimon_rowid/common/clock.h"
#include "paimon_rowid/common/fault_points.h"
#include "paimon_rowid/maint/table_files_internal.h"
#include "paimon_rowid/scan/plan.h"

namespace paimon_rowid {
namespace {

// Snapshot `id`, nullopt when it is not there or is removed while it is read: two
// expirations (or an expiration and orphan cleaning) may run at once, and the other one's
// deletions are not errors here.
Result<std::optional<Snapshot>> ReadSnapshotIfExists(const Table& table, int64_t id) {
  ARROW_ASSIGN_OR_RAISE(bool exists, table.file_io()->Exists(table.SnapshotPath(id)));
  if (!exists) return std::nullopt;
  auto snap = table.SnapshotById(id);
  if (snap.ok()) return std::optional<Snapshot>(std::move(snap).MoveValueUnsafe());
  ARROW_ASSIGN_OR_RAISE(exists, table.file_io()->Exists(table.SnapshotPath(id)));
  if (!exists) return std::nullopt;
  return snap.status();
}

struct Resolved {
  int64_t retain_max;
  int64_t retain_min;
  int64_t older_than_ms;
  int64_t max_deletes;
};

Result<Resolved> Resolve(const Table& table, const ExpireOptions& o) {
  ARROW_ASSIGN_OR_RAISE(const RetentionSettings table_settings,
                        ParseRetentionSettings(table.options()));
  Resolved r;
  r.retain_max = o.retain_max.value_or(table_settings.retain_max);
  r.retain_min = o.retain_min.value_or(table_settings.retain_min);
  r.max_deletes = o.max_deletes.value_or(table_settings.expire_limit);
  r.older_than_ms =
      o.older_than_ms ? *o.older_than_ms : NowMillis() - table_settings.time_retained_ms;
  if (r.retain_min < 1) {
    return Status::Invalid("retain_min must be at least 1, got ", r.retain_min);
  }
  if (r.retain_max < r.retain_min) {
    return Status::Invalid("retain_max (", r.retain_max, ") must be >= retain_min (", r.retain_min,
                           ")");
  }
  if (r.max_deletes < 1) {
    return Status::Invalid("max_deletes must be at least 1, got ", r.max_deletes);
  }
  return r;
}

class Expirer {
 public:
  Expirer(std::shared_ptr<const Table> table, ExpireResult* result, ProgressCounter* progress)
      : table_(std::move(table)), io_(table_->file_io()), result_(result), progress_(progress) {}

  // Java's expireUntil: deletes snapshots [begin, end) and the files only they need.
  Status ExpireUntil(int64_t begin, int64_t end) {
    if (end <= begin) return Status::OK();
    // Snapshot files an earlier, interrupted expiration already removed.
    for (int64_t id = begin; id < end; ++id) {
      ARROW_ASSIGN_OR_RAISE(bool exists, io_->Exists(table_->SnapshotPath(id)));
      if (exists) break;
      begin = id + 1;
    }
    if (end <= begin) return WriteEarliest(end);
    ProgressTotal(progress_, 3 * (end - begin));

    // What must survive: everything the first retained snapshot and every tag names. These
    // snapshots must read completely; any error stops the expiration before a deletion.
    ARROW_ASSIGN_OR_RAISE(Snapshot retained, table_->SnapshotById(end));
    std::vector<Snapshot> keepers{retained};
    ARROW_ASSIGN_OR_RAISE(auto tags, table_->ListTags());
    for (const auto& name : tags) {
      ARROW_ASSIGN_OR_RAISE(Tag tag, table_->TagByName(name));
      keepers.push_back(std::move(tag.snapshot));
    }
    std::set<std::string> keep_meta;  // manifest/ and index/ paths
    std::set<std::string> keep_data;  // data file paths (incl. extra files)
    for (const auto& snap : keepers) {
      ARROW_RETURN_NOT_OK(CollectMetaFiles(*table_, snap, /*tolerate_missing=*/false, &keep_meta));
      ARROW_ASSIGN_OR_RAISE(auto live, ReadLiveEntries(*table_, snap, nullptr));
      for (const auto& e : live) ARROW_RETURN_NOT_OK(AddDataPaths(*table_, e, &keep_data));
    }

    ARROW_RETURN_NOT_OK(ProgressCheck(progress_, "expire_snapshots"));

    // (a) data files the deltas of (begin, end] deleted: they were live only before.
    for (int64_t id = begin + 1; id <= end; ++id) {
      ProgressDone(progress_);
      ARROW_ASSIGN_OR_RAISE(auto snap, ReadIfExists(id));
      if (!snap) continue;
      ARROW_ASSIGN_OR_RAISE(auto delta, ReadDeltaTolerant(*snap));
      for (const auto& e : delta) {
        if (e.kind != FileKind::kDelete) continue;
        std::set<std::string> paths;
        ARROW_RETURN_NOT_OK(AddDataPaths(*table_, e, &paths));
        for (const auto& p : paths) {
          if (keep_data.count(p)) continue;
          ARROW_RETURN_NOT_OK(Delete(p, &result_->data_files_deleted));
        }
      }
    }
    FaultPoint("expire_after_data_files");

    // (b) manifest lists, manifests and index files of the expired snapshots.
    for (int64_t id = begin; id < end; ++id) {
      ProgressDone(progress_);
      ARROW_ASSIGN_OR_RAISE(auto snap, ReadIfExists(id));
      if (!snap) continue;
      std::set<std::string> meta;
      ARROW_RETURN_NOT_OK(CollectMetaFiles(*table_, *snap, /*tolerate_missing=*/true, &meta));
      // Manifests before the lists that name them, so an interrupted run can still find them.
      std::vector<std::string> ordered(meta.begin(), meta.end());
      std::stable_partition(ordered.begin(), ordered.end(), [](const std::string& p) {
        return p.find("/manifest-list-") == std::string::npos &&
               p.find("/index-manifest-") == std::string::npos;
      });
      for (const auto& p : ordered) {
        if (keep_meta.count(p)) continue;
        ARROW_RETURN_NOT_OK(Delete(p, &result_->manifest_files_deleted));
      }
    }
    FaultPoint("expire_after_manifests");

    // (c) the snapshot files, oldest first, then the hint.
    for (int64_t id = begin; id < end; ++id) {
      int64_t deleted = 0;
      ARROW_RETURN_NOT_OK(Delete(table_->SnapshotPath(id), &deleted));
      result_->snapshots_expired += deleted;
      ProgressDone(progress_);
      FaultPoint("expire_after_snapshot_file");
    }
    return WriteEarliest(end);
  }

 private:
  Result<std::optional<Snapshot>> ReadIfExists(int64_t id) {
    return ReadSnapshotIfExists(*table_, id);
  }

  // The delta entries of `snap`, skipping manifest files an interrupted expiration removed.
  Result<std::vector<ManifestEntry>> ReadDeltaTolerant(const Snapshot& snap) {
    std::vector<ManifestEntry> out;
    if (snap.delta_manifest_list.empty()) return out;
    ARROW_ASSIGN_OR_RAISE(auto metas, ReadManifestListIfExists(*table_, snap.delta_manifest_list));
    for (const auto& m : metas) {
      ARROW_ASSIGN_OR_RAISE(auto entries, ReadManifestIfExists(*table_, m.file_name));
      for (auto& e : entries) out.push_back(std::move(e));
    }
    return out;
  }

  // Deletes `path` when it exists, counting it and its bytes once.
  Status Delete(const std::string& path, int64_t* count) {
    if (!deleted_.insert(path).second) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(bool exists, io_->Exists(path));
    if (!exists) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(int64_t size, io_->FileSize(path));
    ARROW_RETURN_NOT_OK(io_->DeleteFile(path));
    ++*count;
    result_->bytes_freed += size;
    return Status::OK();
  }

  Status WriteEarliest(int64_t id) {
    SnapshotManager snapshots(io_, table_->path());
    return io_->WriteHint(snapshots.HintPath(SnapshotManager::kEarliestHint), std::to_string(id));
  }

  std::shared_ptr<const Table> table_;
  std::shared_ptr<FileIO> io_;
  ExpireResult* result_;
  ProgressCounter* progress_;
  std::set<std::string> deleted_;
};

}  // namespace

Result<ExpireResult> ExpireSnapshots(std::shared_ptr<const Table> table, ExpireOptions options) {
  if (!table) return Status::Invalid("ExpireSnapshots needs a table");
  ARROW_ASSIGN_OR_RAISE(Resolved r, Resolve(*table, options));
  ExpireResult result;
  ARROW_ASSIGN_OR_RAISE(auto latest, table->LatestSnapshotId());
  if (!latest) return result;
  ARROW_ASSIGN_OR_RAISE(int64_t earliest, EarliestSnapshotId(*table, *latest));
  const int64_t min_id = std::max(*latest - r.retain_max + 1, earliest);
  const int64_t max_exclusive = std::min(*latest - r.retain_min + 1, earliest + r.max_deletes);
  int64_t end = max_exclusive;
  for (int64_t id = min_id; id < max_exclusive; ++id) {
    ARROW_ASSIGN_OR_RAISE(std::optional<Snapshot> snap, ReadSnapshotIfExists(*table, id));
    if (!snap) continue;  // expired already (by another expiration, maybe right now)
    if (r.older_than_ms <= snap->time_millis) {
      end = id;
      break;
    }
  }
  ARROW_RETURN_NOT_OK(ProgressCheck(options.progress, "expire_snapshots"));
  Expirer expirer(table, &result, options.progress);
  ARROW_RETURN_NOT_OK(expirer.ExpireUntil(earliest, end));
  ARROW_ASSIGN_OR_RAISE(latest, table->LatestSnapshotId());
  if (latest) {
    ARROW_ASSIGN_OR_RAISE(result.earliest_snapshot_id, EarliestSnapshotId(*table, *latest));
  }
  return result;
}

}  // namespace paimon_rowid
