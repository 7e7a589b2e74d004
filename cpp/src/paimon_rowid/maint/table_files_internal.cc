#include "paimon_rowid/maint/table_files_internal.h"

#include "paimon_rowid/catalog/snapshot_manager.h"
#include "paimon_rowid/commit/committer.h"

namespace paimon_rowid {
namespace {

Result<std::optional<std::shared_ptr<arrow::Buffer>>> ReadIfExists(const FileIO& io,
                                                                   const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(bool exists, io.Exists(path));
  if (!exists) return std::nullopt;
  auto data = io.ReadFile(path);
  if (data.ok()) return std::move(data).MoveValueUnsafe();
  // Removed between the check and the read (another expiration running): as missing.
  ARROW_ASSIGN_OR_RAISE(exists, io.Exists(path));
  if (!exists) return std::nullopt;
  return data.status();
}

Status MissingFile(const std::string& path) {
  return Status::IOError("'", path, "' is named by a snapshot but does not exist");
}

}  // namespace

std::string IndexDir(const Table& table) { return JoinPath(table.path(), "index"); }
std::string StatisticsDir(const Table& table) { return JoinPath(table.path(), "statistics"); }

Result<std::vector<ManifestFileMeta>> ReadManifestListIfExists(const Table& table,
                                                               const std::string& name) {
  ARROW_ASSIGN_OR_RAISE(auto data, ReadIfExists(*table.file_io(), table.ManifestPath(name)));
  if (!data) return std::vector<ManifestFileMeta>{};
  return DecodeManifestList(std::move(*data));
}

Result<std::vector<ManifestEntry>> ReadManifestIfExists(const Table& table,
                                                        const std::string& name) {
  ARROW_ASSIGN_OR_RAISE(auto data, ReadIfExists(*table.file_io(), table.ManifestPath(name)));
  if (!data) return std::vector<ManifestEntry>{};
  return DecodeManifest(std::move(*data));
}

Result<SnapshotMetaFiles> ReadSnapshotMetaFiles(const Table& table, const Snapshot& snapshot,
                                                bool tolerate_missing) {
  SnapshotMetaFiles out;
  const FileIO& io = *table.file_io();
  std::vector<const std::string*> lists{&snapshot.base_manifest_list,
                                        &snapshot.delta_manifest_list};
  if (snapshot.changelog_manifest_list) lists.push_back(&*snapshot.changelog_manifest_list);
  for (const std::string* list : lists) {
    if (list->empty()) continue;
    out.manifest_lists.push_back(*list);
    std::string path = table.ManifestPath(*list);
    ARROW_ASSIGN_OR_RAISE(auto data, ReadIfExists(io, path));
    if (!data) {
      if (tolerate_missing) continue;
      return MissingFile(path);
    }
    ARROW_ASSIGN_OR_RAISE(auto metas, DecodeManifestList(std::move(*data)));
    for (const auto& m : metas) out.manifests.push_back(m.file_name);
  }
  if (snapshot.index_manifest && !snapshot.index_manifest->empty()) {
    out.index_manifest = *snapshot.index_manifest;
    std::string path = table.ManifestPath(*snapshot.index_manifest);
    ARROW_ASSIGN_OR_RAISE(auto data, ReadIfExists(io, path));
    if (data) {
      ARROW_ASSIGN_OR_RAISE(auto entries, DecodeIndexManifest(std::move(*data)));
      for (const auto& e : entries) out.index_files.push_back(e.file_name);
    } else if (!tolerate_missing) {
      return MissingFile(path);
    }
  }
  if (snapshot.statistics && !snapshot.statistics->empty()) out.statistics = *snapshot.statistics;
  return out;
}

Status CollectMetaFiles(const Table& table, const Snapshot& snapshot, bool tolerate_missing,
                        std::set<std::string>* out) {
  ARROW_ASSIGN_OR_RAISE(auto files, ReadSnapshotMetaFiles(table, snapshot, tolerate_missing));
  for (const auto& n : files.manifest_lists) out->insert(table.ManifestPath(n));
  for (const auto& n : files.manifests) out->insert(table.ManifestPath(n));
  if (files.index_manifest) out->insert(table.ManifestPath(*files.index_manifest));
  for (const auto& n : files.index_files) out->insert(JoinPath(IndexDir(table), n));
  if (files.statistics) out->insert(JoinPath(StatisticsDir(table), *files.statistics));
  return Status::OK();
}

Status AddDataPaths(const Table& table, const ManifestEntry& entry, std::set<std::string>* out) {
  ARROW_ASSIGN_OR_RAISE(std::string path,
                        DataFilePath(table, entry.partition, entry.bucket, entry.file));
  std::string dir = path.substr(0, path.find_last_of('/'));
  for (const auto& extra : entry.file.extra_files) out->insert(JoinPath(dir, extra));
  out->insert(std::move(path));
  return Status::OK();
}

Result<int64_t> EarliestSnapshotId(const Table& table, int64_t latest) {
  SnapshotManager snapshots(table.file_io(), table.path());
  const FileIO& io = *table.file_io();
  if (auto hint = snapshots.ReadHint(SnapshotManager::kEarliestHint); hint && *hint <= latest) {
    ARROW_ASSIGN_OR_RAISE(bool exists, io.Exists(snapshots.SnapshotPath(*hint)));
    bool previous = false;
    if (exists && *hint > 1) {
      ARROW_ASSIGN_OR_RAISE(previous, io.Exists(snapshots.SnapshotPath(*hint - 1)));
    }
    if (exists && !previous) return *hint;
  }
  ARROW_ASSIGN_OR_RAISE(auto ids, snapshots.ListSnapshotIds());
  if (ids.empty()) return latest;
  return ids.front();
}

}  // namespace paimon_rowid
