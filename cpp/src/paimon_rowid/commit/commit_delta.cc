#include "paimon_rowid/commit/commit_delta.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "paimon_rowid/commit/committer.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/scan/deletion_files.h"

namespace paimon_rowid {
namespace {

using IndexKey = std::tuple<std::string, int32_t, std::string>;  // partition, bucket, file

IndexKey KeyOf(const IndexManifestEntry& e) { return {e.partition, e.bucket, e.file_name}; }

// pypaimon's message for a deletion-vector conflict, then the snapshot and what to do.
Status DvConflict(const std::string& what, int64_t latest_id) {
  return MakeKindError(arrow::StatusCode::Invalid, ErrorKind::kCommitConflict,
                       "Deletion vector index conflict detected: " + what + " (latest snapshot " +
                           std::to_string(latest_id) + "); plan the delete again.");
}

// The same index as far as coverage goes: type, indexed field and extra fields.
bool SameIndex(const IndexManifestEntry& a, const IndexManifestEntry& b) {
  return a.index_type == b.index_type &&
         a.global_index->index_field_id == b.global_index->index_field_id &&
         a.global_index->extra_field_ids == b.global_index->extra_field_ids;
}

// Global-index additions against the live index and data after the commit (pypaimon's
// _validate_retained_global_index_files and check_global_index_row_id_existence): a new file
// may not overlap a retained file of the same index (a concurrent build of the same ranges
// committed first), and its range must hold data in its partition.
Status CheckGlobalIndexAdds(const std::vector<ManifestEntry>& live,
                            const std::vector<IndexManifestEntry>& live_index,
                            const std::set<IndexKey>& replaced, const CommitDelta& delta,
                            int64_t latest_id) {
  // partition -> merged [first, last] row-id ranges of its data files after the commit
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> data;
  std::set<IndexKey> deleted;
  for (const auto& e : delta.entries) {
    if (e.kind == FileKind::kDelete) deleted.emplace(e.partition, e.bucket, e.file.file_name);
  }
  auto add_range = [&](const ManifestEntry& e) {
    if (e.file.first_row_id && e.file.row_count > 0) {
      data[e.partition].emplace_back(*e.file.first_row_id,
                                     *e.file.first_row_id + e.file.row_count - 1);
    }
  };
  for (const auto& e : live) {
    if (!deleted.count({e.partition, e.bucket, e.file.file_name})) add_range(e);
  }
  for (const auto& e : delta.entries) {
    if (e.kind == FileKind::kAdd) add_range(e);
  }
  for (auto& [partition, ranges] : data) {
    std::sort(ranges.begin(), ranges.end());
    std::vector<std::pair<int64_t, int64_t>> merged;
    for (const auto& r : ranges) {
      if (!merged.empty() && r.first <= merged.back().second + 1) {
        merged.back().second = std::max(merged.back().second, r.second);
      } else {
        merged.push_back(r);
      }
    }
    ranges = std::move(merged);
  }
  for (const auto& add : delta.index_adds) {
    if (!add.global_index) continue;
    const GlobalIndexMeta& g = *add.global_index;
    for (const auto& e : live_index) {
      if (!e.global_index || replaced.count(KeyOf(e)) || !SameIndex(add, e)) continue;
      if (e.global_index->row_range_start <= g.row_range_end &&
          g.row_range_start <= e.global_index->row_range_end) {
        return MakeKindError(
            arrow::StatusCode::Invalid, ErrorKind::kCommitConflict,
            "global index file '" + add.file_name + "' covers rows [" +
                std::to_string(g.row_range_start) + ", " + std::to_string(g.row_range_end) +
                "], which the live " + add.index_type + " index file '" + e.file_name +
                "' of the same column already covers (snapshot " + std::to_string(latest_id) +
                "); a concurrent build committed first");
      }
    }
    const auto& ranges = data[add.partition];
    auto it =
        std::upper_bound(ranges.begin(), ranges.end(),
                         std::make_pair(g.row_range_start, std::numeric_limits<int64_t>::max()));
    if (it == ranges.begin() || std::prev(it)->second < g.row_range_end) {
      return MakeKindError(arrow::StatusCode::Invalid, ErrorKind::kCommitConflict,
                           "global index file '" + add.file_name + "' covers rows [" +
                               std::to_string(g.row_range_start) + ", " +
                               std::to_string(g.row_range_end) +
                               "], which are not all live data of its partition in snapshot " +
                               std::to_string(latest_id));
    }
  }
  return Status::OK();
}

}  // namespace

bool CommitDelta::only_global_index_changes() const {
  if (!entries.empty() || !changes_index()) return false;
  auto global = [](const IndexManifestEntry& e) { return e.global_index.has_value(); };
  return std::all_of(index_adds.begin(), index_adds.end(), global) &&
         std::all_of(index_deletes.begin(), index_deletes.end(), global);
}

bool CommitDelta::deletes_files() const {
  return std::any_of(entries.begin(), entries.end(),
                     [](const ManifestEntry& e) { return e.kind == FileKind::kDelete; });
}

CommitDelta DeltaOf(const std::vector<CommitMessage>& messages) {
  CommitDelta delta;
  for (const auto& msg : messages) {
    auto add = [&](const DataFileMeta& f, FileKind kind) {
      ManifestEntry e;
      e.kind = kind;
      e.partition = msg.partition;
      e.bucket = msg.bucket;
      e.total_buckets = msg.total_buckets;
      e.file = f;
      delta.entries.push_back(std::move(e));
    };
    for (const auto& f : msg.new_files) add(f, FileKind::kAdd);
    for (const auto& f : msg.deleted_files) add(f, FileKind::kDelete);
    auto add_index = [&](IndexManifestEntry e, std::vector<IndexManifestEntry>* out) {
      e.kind = FileKind::kAdd;
      e.partition = msg.partition;
      e.bucket = msg.bucket;
      out->push_back(std::move(e));
    };
    for (const auto& e : msg.new_index_files) add_index(e, &delta.index_adds);
    for (const auto& e : msg.deleted_index_files) add_index(e, &delta.index_deletes);
    if (msg.check_from_snapshot) {
      delta.check_from = delta.check_from ? std::min(*delta.check_from, *msg.check_from_snapshot)
                                          : *msg.check_from_snapshot;
    }
  }
  return delta;
}

Status CheckMessages(const Table& table, const std::vector<CommitMessage>& messages) {
  std::set<std::pair<std::string, std::string>> seen;  // (directory, file name)
  for (const auto& msg : messages) {
    if (!msg.table_path.empty() && msg.table_path != table.path()) {
      return Status::Invalid("commit message was prepared for the table at '", msg.table_path,
                             "', not for this table at '", table.path(),
                             "'; commit it through its own table");
    }
    for (const auto& f : msg.new_files) {
      ARROW_ASSIGN_OR_RAISE(auto path, DataFilePath(table, msg.partition, msg.bucket, f));
      std::string dir = path.substr(0, path.rfind('/'));
      if (!seen.emplace(dir, f.file_name).second) {
        return Status::Invalid("data file '", path,
                               "' is named twice in this commit; a snapshot may add a file once");
      }
      auto size = table.file_io()->FileSize(path);
      if (!size.ok()) {
        // A store that refuses the request (a revoked key) is its error, not a missing file.
        auto exists = table.file_io()->Exists(path);
        if (!exists.ok()) return exists.status();
        if (*exists) return size.status();
        return Status::Invalid("data file '", path, "' named by a commit message does not exist (",
                               size.status().message(),
                               "): the message was aborted, or prepared for another table");
      }
      if (*size != f.file_size) {
        return Status::Invalid("data file '", path, "' has ", *size,
                               " bytes but its commit message records ", f.file_size,
                               ": it was replaced or damaged after it was written");
      }
    }
    for (const auto& e : msg.new_index_files) {
      const std::string path = IndexEntryPath(table, e);
      if (!seen.emplace("index", e.file_name).second) {
        return Status::Invalid("index file '", path,
                               "' is named twice in this commit; a snapshot may add a file once");
      }
      auto size = table.file_io()->FileSize(path);
      if (!size.ok() || *size != e.file_size) {
        return Status::Invalid("index file '", path, "' named by a commit message ",
                               size.ok() ? "has another size than it records" : "does not exist",
                               ": the message was aborted, or prepared for another table");
      }
    }
  }
  return Status::OK();
}

Status CheckNotCommitted(const std::vector<ManifestEntry>& live,
                         const std::vector<ManifestEntry>& delta, int64_t latest_id) {
  std::set<std::tuple<std::string, int32_t, std::string>> names;
  for (const auto& e : delta) {
    if (e.kind == FileKind::kAdd) names.emplace(e.partition, e.bucket, e.file.file_name);
  }
  for (const auto& e : live) {
    if (names.count({e.partition, e.bucket, e.file.file_name})) {
      return Status::Invalid("data file '", e.file.file_name,
                             "' is already committed (it is live in snapshot ", latest_id,
                             "); these commit messages were committed before");
    }
  }
  return Status::OK();
}

Status CheckDeletesLive(const std::vector<ManifestEntry>& live,
                        const std::vector<ManifestEntry>& delta, int64_t latest_id) {
  std::set<std::tuple<std::string, int32_t, std::string>> names;
  for (const auto& e : live) names.emplace(e.partition, e.bucket, e.file.file_name);
  for (const auto& e : delta) {
    if (e.kind != FileKind::kDelete) continue;
    if (!names.count({e.partition, e.bucket, e.file.file_name})) {
      return MakeKindError(arrow::StatusCode::Invalid, ErrorKind::kCommitConflict,
                           "data file '" + e.file.file_name + "' this commit replaces is no " +
                               "longer live in snapshot " + std::to_string(latest_id) +
                               ": a concurrent compaction or overwrite replaced it first");
    }
  }
  return Status::OK();
}

Status CheckIndexChanges(const std::vector<ManifestEntry>& live,
                         const std::vector<IndexManifestEntry>& live_index,
                         const CommitDelta& delta, int64_t latest_id) {
  std::set<IndexKey> live_names;
  for (const auto& e : live_index) live_names.insert(KeyOf(e));
  for (const auto& e : delta.index_adds) {
    if (live_names.count(KeyOf(e))) {
      return Status::Invalid("index file '", e.file_name, "' is already committed (it is live in ",
                             "snapshot ", latest_id,
                             "); these commit messages were committed "
                             "before");
    }
  }
  std::set<IndexKey> replaced;
  for (const auto& e : delta.index_deletes) {
    if (!live_names.count(KeyOf(e)) && e.global_index) {
      return MakeKindError(arrow::StatusCode::Invalid, ErrorKind::kCommitConflict,
                           "global index file '" + e.file_name +
                               "' is no longer live in snapshot " + std::to_string(latest_id) +
                               ": a concurrent drop removed it first");
    }
    if (!live_names.count(KeyOf(e))) {
      return DvConflict("index file " + e.file_name +
                            " is not present in the latest snapshot. A concurrent delete "
                            "replaced the deletion vectors of this bucket first",
                        latest_id);
    }
    replaced.insert(KeyOf(e));
  }
  ARROW_RETURN_NOT_OK(CheckGlobalIndexAdds(live, live_index, replaced, delta, latest_id));
  std::set<IndexKey> data_after;  // (partition, bucket, data file) live after the commit
  for (const auto& e : live) data_after.emplace(e.partition, e.bucket, e.file.file_name);
  std::set<IndexKey> data_deleted;
  for (const auto& e : delta.entries) {
    IndexKey key{e.partition, e.bucket, e.file.file_name};
    if (e.kind == FileKind::kAdd) {
      data_after.insert(key);
    } else {
      data_after.erase(key);
      data_deleted.insert(key);
    }
  }
  // (partition, bucket, data file) -> the surviving live index file holding its vector
  std::map<IndexKey, std::string> vectors_after;
  for (const auto& e : live_index) {
    if (replaced.count(KeyOf(e)) || e.index_type != kDeletionVectorsIndex) continue;
    for (const auto& r : e.dv_ranges.value_or(std::vector<DeletionVectorRange>{})) {
      vectors_after.emplace(IndexKey{e.partition, e.bucket, r.data_file}, e.file_name);
    }
  }
  for (const auto& e : delta.index_adds) {
    for (const auto& r : e.dv_ranges.value_or(std::vector<DeletionVectorRange>{})) {
      auto newer = vectors_after.find({e.partition, e.bucket, r.data_file});
      if (newer != vectors_after.end()) {
        return DvConflict("data file " + r.data_file +
                              " already has a newer deletion vector index file " + newer->second +
                              ". A concurrent delete of the same file group committed first",
                          latest_id);
      }
      if (!data_after.count({e.partition, e.bucket, r.data_file})) {
        return DvConflict("data file " + r.data_file +
                              " is not present in the latest snapshot. A concurrent "
                              "compaction or partition delete replaced it",
                          latest_id);
      }
    }
  }
  for (const auto& [key, index_file] : vectors_after) {
    if (data_deleted.count(key)) {
      return MakeKindError(arrow::StatusCode::Invalid, ErrorKind::kCommitConflict,
                           "data file '" + std::get<2>(key) + "' this commit replaces has " +
                               "deleted rows (index file '" + index_file +
                               "'), committed concurrently; plan again on snapshot " +
                               std::to_string(latest_id));
    }
  }
  return Status::OK();
}

std::vector<IndexManifestEntry> ApplyIndexChanges(std::vector<IndexManifestEntry> live,
                                                  const CommitDelta& delta) {
  std::set<IndexKey> replaced;
  for (const auto& e : delta.index_deletes) replaced.insert(KeyOf(e));
  std::vector<IndexManifestEntry> out;
  for (auto& e : live) {
    if (!replaced.count(KeyOf(e))) out.push_back(std::move(e));
  }
  out.insert(out.end(), delta.index_adds.begin(), delta.index_adds.end());
  return out;
}

}  // namespace paimon_rowid
