#include "paimon_rowid/commit/conflict.h"

#include <algorithm>
#include <map>
#include <set>

#include "paimon_rowid/scan/manifest_cache.h"
#include "paimon_rowid/scan/plan.h"

namespace paimon_rowid {
namespace {

Status Conflict(std::string msg) {
  return MakeKindError(arrow::StatusCode::Invalid, ErrorKind::kRowIdConflict, std::move(msg));
}

std::string Describe(const DataFileMeta& f) {
  return "'" + f.file_name + "' (firstRowId=" + std::to_string(f.first_row_id.value_or(-1)) +
         ", rowCount=" + std::to_string(f.row_count) + ")";
}

// Field ids of the user columns a file holds (all fields of its schema when write_cols is null).
Result<std::set<int32_t>> FieldIdsOf(SchemaCache* schemas, const DataFileMeta& f) {
  ARROW_ASSIGN_OR_RAISE(auto schema, schemas->Get(f.schema_id));
  std::set<int32_t> ids;
  for (const auto& w : WrittenFields(f, *schema)) ids.insert(w.field_id);
  return ids;
}

// Snapshot `id` of the walk from `check_from`; a snapshot that expired meanwhile is a conflict
// (the update must be planned again on a retained snapshot), not an I/O error.
Result<Snapshot> SnapshotOfWalk(const Table& table, int64_t id, int64_t check_from) {
  ARROW_ASSIGN_OR_RAISE(bool exists, table.file_io()->Exists(table.SnapshotPath(id)));
  if (!exists) {
    return Conflict("The base snapshot " + std::to_string(check_from) +
                    " of this commit can no longer be checked: snapshot " + std::to_string(id) +
                    " was expired meanwhile. Plan the update again on the latest snapshot.");
  }
  return table.SnapshotById(id);
}

}  // namespace

Status CheckRowIdExistence(const std::vector<ManifestEntry>& live,
                           const std::optional<int64_t>& latest_next_row_id,
                           const std::vector<ManifestEntry>& delta) {
  int64_t next_row_id = latest_next_row_id.value_or(0);
  // (partition, bucket) -> normal ranges
  std::map<std::pair<std::string, int32_t>, std::vector<std::pair<int64_t, int64_t>>> ranges;
  for (const auto& e : live) {
    if (!e.file.is_normal_file() || !e.file.first_row_id) continue;
    ranges[{e.partition, e.bucket}].push_back({*e.file.first_row_id, e.file.row_count});
  }
  for (const auto& e : delta) {
    if (e.kind != FileKind::kAdd || !e.file.first_row_id) continue;
    int64_t first = *e.file.first_row_id;
    if (first >= next_row_id) continue;
    auto it = ranges.find({e.partition, e.bucket});
    bool ok = false;
    if (it != ranges.end()) {
      for (const auto& [start, count] : it->second) {
        if (e.file.is_normal_file()) {
          ok = start == first && count == e.file.row_count;
        } else {
          ok = start <= first && first + e.file.row_count <= start + count;
        }
        if (ok) break;
      }
    }
    if (!ok) {
      return Conflict("Row ID existence conflict: file " + Describe(e.file) + " in bucket " +
                      std::to_string(e.bucket) +
                      " matches no file of the current snapshot. The rows it updates may have "
                      "been rewritten by a concurrent compaction or removed by an overwrite.");
    }
  }
  return Status::OK();
}

Status CheckCompactionCoverage(const std::vector<ManifestEntry>& live,
                               const std::vector<ManifestEntry>& delta) {
  std::map<std::pair<std::string, int32_t>, std::vector<std::pair<int64_t, int64_t>>> ranges;
  for (const auto& e : live) {
    if (!e.file.is_normal_file() || !e.file.first_row_id) continue;
    ranges[{e.partition, e.bucket}].push_back({*e.file.first_row_id, e.file.last_row_id()});
  }
  for (auto& [key, list] : ranges) std::sort(list.begin(), list.end());
  for (const auto& e : delta) {
    if (e.kind != FileKind::kAdd) continue;
    if (!e.file.first_row_id) {
      return Conflict("compaction output " + Describe(e.file) + " has no first row id");
    }
    const int64_t lo = *e.file.first_row_id, hi = e.file.last_row_id();
    // Walk the sorted ranges from lo: covered when they reach hi without a gap.
    int64_t next = lo;
    auto it = ranges.find({e.partition, e.bucket});
    if (it != ranges.end()) {
      for (const auto& [start, end] : it->second) {
        if (end < next) continue;
        if (start > next) break;
        next = end + 1;
        if (next > hi) break;
      }
    }
    if (next <= hi) {
      return Conflict("Row ID existence conflict: compaction output " + Describe(e.file) +
                      " in bucket " + std::to_string(e.bucket) +
                      " is not covered by the live files of the current snapshot");
    }
  }
  // The state after the commit: normal files that overlap must cover the same range (a
  // compaction merging groups under an update committed meanwhile would break that).
  std::set<std::tuple<std::string, int32_t, std::string>> deleted;
  for (const auto& e : delta) {
    if (e.kind == FileKind::kDelete) deleted.emplace(e.partition, e.bucket, e.file.file_name);
  }
  std::map<std::pair<std::string, int32_t>, std::vector<std::pair<int64_t, int64_t>>> after;
  auto add = [&](const ManifestEntry& e) {
    if (e.file.is_normal_file() && e.file.first_row_id) {
      after[{e.partition, e.bucket}].push_back({*e.file.first_row_id, e.file.last_row_id()});
    }
  };
  for (const auto& e : live) {
    if (!deleted.count({e.partition, e.bucket, e.file.file_name})) add(e);
  }
  for (const auto& e : delta) {
    if (e.kind == FileKind::kAdd) add(e);
  }
  for (auto& [key, list] : after) {
    std::sort(list.begin(), list.end());
    for (size_t i = 1; i < list.size(); ++i) {
      if (list[i].first <= list[i - 1].second && list[i] != list[i - 1]) {
        return Conflict(
            "For Data Evolution table, multiple 'MERGE INTO' and 'COMPACT' operations have "
            "encountered conflicts: after this compaction, normal files covering row ids [" +
            std::to_string(list[i - 1].first) + ", " + std::to_string(list[i - 1].second) +
            "] and [" + std::to_string(list[i].first) + ", " + std::to_string(list[i].second) +
            "] would overlap in bucket " + std::to_string(key.second));
      }
    }
  }
  return Status::OK();
}

Result<std::vector<ManifestEntry>> ReadDeltaEntries(const Table& table, const Snapshot& snapshot) {
  std::vector<ManifestEntry> out;
  if (snapshot.delta_manifest_list.empty()) return out;
  ARROW_ASSIGN_OR_RAISE(
      auto data, table.file_io()->ReadFile(table.ManifestPath(snapshot.delta_manifest_list)));
  ARROW_ASSIGN_OR_RAISE(auto metas, DecodeManifestList(std::move(data)));
  for (const auto& meta : metas) {
    ARROW_ASSIGN_OR_RAISE(auto entries, ReadManifestEntries(table, meta.file_name, meta.file_size));
    out.insert(out.end(), entries->begin(), entries->end());
  }
  return out;
}

Status CheckColumnConflicts(std::shared_ptr<const Table> table, int64_t check_from,
                            const Snapshot& latest, const std::vector<ManifestEntry>& delta) {
  if (latest.id <= check_from) return Status::OK();
  SchemaCache schemas(table);
  struct Committing {
    const DataFileMeta* file;
    std::set<int32_t> ids;
  };
  std::vector<Committing> committing;
  for (const auto& e : delta) {
    if (!e.file.first_row_id) continue;
    ARROW_ASSIGN_OR_RAISE(auto ids, FieldIdsOf(&schemas, e.file));
    committing.push_back({&e.file, std::move(ids)});
  }
  if (committing.empty()) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(Snapshot base, SnapshotOfWalk(*table, check_from, check_from));
  int64_t base_next_row_id = base.next_row_id.value_or(0);
  for (int64_t id = check_from + 1; id <= latest.id; ++id) {
    ARROW_ASSIGN_OR_RAISE(Snapshot snap, SnapshotOfWalk(*table, id, check_from));
    if (snap.commit_kind == "COMPACT") continue;
    auto read = ReadDeltaEntries(*table, snap);
    if (!read.ok()) {
      // An expiration running right now deletes manifests before the snapshot files.
      ARROW_ASSIGN_OR_RAISE(bool still_there, table->file_io()->Exists(table->SnapshotPath(id)));
      ARROW_ASSIGN_OR_RAISE(
          bool list_there, table->file_io()->Exists(table->ManifestPath(snap.delta_manifest_list)));
      if (!still_there || !list_there) {
        ARROW_RETURN_NOT_OK(SnapshotOfWalk(*table, id, check_from).status());
        return Conflict("The base snapshot " + std::to_string(check_from) +
                        " of this commit can no longer be checked: snapshot " + std::to_string(id) +
                        " is being expired. Plan the update again on the latest snapshot.");
      }
      return read.status();
    }
    const std::vector<ManifestEntry>& entries = *read;
    for (const auto& e : entries) {
      if (!e.file.first_row_id || *e.file.first_row_id >= base_next_row_id) continue;
      int64_t lo = *e.file.first_row_id, hi = e.file.last_row_id();
      std::optional<std::set<int32_t>> ids;
      for (const auto& c : committing) {
        if (*c.file->first_row_id > hi || c.file->last_row_id() < lo) continue;
        if (!ids) {
          ARROW_ASSIGN_OR_RAISE(auto got, FieldIdsOf(&schemas, e.file));
          ids = std::move(got);
        }
        bool shared = std::any_of(c.ids.begin(), c.ids.end(),
                                  [&](int32_t fid) { return ids->count(fid) > 0; });
        if (shared) {
          return Conflict(
              "For Data Evolution table, multiple 'MERGE INTO' operations have encountered "
              "conflicts, updating the same file, which can render some updates ineffective: "
              "file " +
              Describe(*c.file) + " conflicts with " + Describe(e.file) +
              " committed in snapshot " + std::to_string(id) + " after snapshot " +
              std::to_string(check_from));
        }
      }
    }
  }
  return Status::OK();
}

}  // namespace paimon_rowid
