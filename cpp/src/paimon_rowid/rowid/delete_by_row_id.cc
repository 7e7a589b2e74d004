#include "paimon_rowid/rowid/delete_by_row_id.h"

#include <algorithm>
#include <map>
#include <set>

#include "arrow/api.h"
#include "paimon_rowid/common/identifier.h"
#include "paimon_rowid/rowid/row_id_index.h"
#include "paimon_rowid/scan/deletion_files.h"
#include "paimon_rowid/scan/partition_filter.h"
#include "paimon_rowid/scan/plan.h"

namespace paimon_rowid {
namespace {

// The anchors of the snapshot's groups, sorted by first row id.
struct Anchor {
  RowRange range;
  const RowIdIndex::Group* group;
  const DataFileMeta* file;
};

std::string RangesString(const std::vector<Anchor>& anchors) {
  std::string out = "[";
  for (size_t i = 0; i < anchors.size(); ++i) {
    if (i > 0) out += ", ";
    out += "'[" + std::to_string(anchors[i].range.from) + ", " +
           std::to_string(anchors[i].range.to) + "]'";
  }
  return out + "]";
}

Status OutsideEveryRange(int64_t id, const std::vector<Anchor>& anchors) {
  return Status::Invalid("Row ID ", id, " does not belong to any valid range ",
                         RangesString(anchors));
}

using BucketKey = std::pair<std::string, int32_t>;

// The new vectors of one (partition, bucket): its live vectors with `positions` (by anchor
// file name) added, or nullopt when no position is new.
Result<std::optional<std::map<std::string, DeletionVector>>> MergeBucket(
    const Table& table, const std::vector<const IndexManifestEntry*>& old_files,
    const std::set<std::string>& live_data_files,
    const std::map<std::string, std::vector<int64_t>>& positions) {
  ARROW_ASSIGN_OR_RAISE(auto vectors, ReadBucketVectors(table, old_files, live_data_files));
  int64_t added = 0;
  for (const auto& [file, ps] : positions) added += vectors[file].AddAll(ps);
  if (added == 0) return std::nullopt;
  return vectors;
}

}  // namespace

Status ValidateDelete(const Table& table) {
  if (!table.data_evolution_enabled()) {
    if (!table.row_tracking_enabled()) {  // name both, or the user fixes one and meets the other
      return Status::Invalid(
          "delete requires 'data-evolution.enabled' = 'true' and 'row-tracking.enabled' = 'true' "
          "(both are set when the table is created).");
    }
    return Status::Invalid("delete requires 'data-evolution.enabled' = 'true'.");
  }
  if (!table.row_tracking_enabled()) {
    return Status::Invalid("delete requires 'row-tracking.enabled' = 'true'.");
  }
  if (!table.deletion_vectors_enabled()) {
    return Status::Invalid("delete requires 'deletion-vectors.enabled' = 'true'.");
  }
  return Status::OK();
}

Result<std::vector<CommitMessage>> DeleteByRowId(std::shared_ptr<const Table> table,
                                                 std::vector<int64_t> row_ids) {
  ARROW_RETURN_NOT_OK(ValidateDelete(*table));
  std::vector<CommitMessage> out;
  if (row_ids.empty()) return out;
  ARROW_ASSIGN_OR_RAISE(auto snapshot, table->ResolveSnapshot());
  if (!snapshot) return OutsideEveryRange(row_ids.front(), {});
  ARROW_ASSIGN_OR_RAISE(auto index, RowIdIndex::Build(table, *snapshot));

  std::vector<Anchor> anchors;
  std::map<BucketKey, std::set<std::string>> live_files;
  for (const auto& g : index->groups()) {
    for (const auto& f : g.files) live_files[{g.partition, g.bucket}].insert(f.file_name);
    const DataFileMeta* a = DeletionAnchor(g.files);
    if (a == nullptr || !a->first_row_id || a->row_count == 0) continue;
    anchors.push_back({{*a->first_row_id, a->last_row_id()}, &g, a});
  }
  std::sort(anchors.begin(), anchors.end(),
            [](const Anchor& x, const Anchor& y) { return x.range.from < y.range.from; });

  // Positions per bucket and anchor file, in the order pypaimon reports the first bad id.
  std::map<BucketKey, std::map<std::string, std::vector<int64_t>>> positions;
  std::vector<BucketKey> order;
  for (int64_t id : row_ids) {
    auto it = std::upper_bound(anchors.begin(), anchors.end(), id,
                               [](int64_t v, const Anchor& a) { return v < a.range.from; });
    if (it == anchors.begin() || !std::prev(it)->range.Contains(id)) {
      return OutsideEveryRange(id, anchors);
    }
    const Anchor& a = *std::prev(it);
    BucketKey key{a.group->partition, a.group->bucket};
    auto [slot, inserted] = positions.try_emplace(key);
    if (inserted) order.push_back(key);
    slot->second[a.file->file_name].push_back(id - a.range.from);
  }

  ARROW_ASSIGN_OR_RAISE(auto live_index, ReadLiveIndexEntries(*table, *snapshot));
  ARROW_ASSIGN_OR_RAISE(const int64_t total_buckets, table->options().GetInt("bucket", -1));
  std::vector<std::string> written;
  auto fail = [&](Status st) {
    for (const auto& p : written) (void)table->file_io()->DeleteFile(p);
    return st;
  };
  for (const auto& key : order) {
    std::vector<const IndexManifestEntry*> old_files;
    for (const auto& e : live_index) {
      if (e.index_type == kDeletionVectorsIndex && e.partition == key.first &&
          e.bucket == key.second) {
        old_files.push_back(&e);
      }
    }
    auto merged = MergeBucket(*table, old_files, live_files[key], positions[key]);
    if (!merged.ok()) return fail(merged.status());
    if (!*merged) continue;  // every id of this bucket was deleted already
    auto added = WriteBucketVectors(*table, key.first, key.second, **merged, &written);
    if (!added.ok()) return fail(added.status());

    CommitMessage msg;
    msg.partition = key.first;
    msg.bucket = key.second;
    msg.total_buckets = static_cast<int32_t>(total_buckets);
    msg.check_from_snapshot = snapshot->id;
    msg.table_path = table->path();
    msg.new_index_files.push_back(std::move(*added));
    for (const IndexManifestEntry* e : old_files) msg.deleted_index_files.push_back(*e);
    out.push_back(std::move(msg));
  }
  return out;
}

bool IsPartitionOnly(const Table& table, const Predicate& predicate) {
  const auto& keys = table.schema().partition_keys;
  if (keys.empty()) return false;
  std::set<std::string> fields;
  predicate.CollectFields(&fields);
  for (const auto& f : fields) {
    if (std::find(keys.begin(), keys.end(), f) == keys.end()) return false;
  }
  return !fields.empty();
}

Result<std::vector<CommitMessage>> DeletePartitions(std::shared_ptr<const Table> table,
                                                    const Predicate& predicate) {
  std::vector<CommitMessage> out;
  ARROW_ASSIGN_OR_RAISE(auto snapshot, table->LatestSnapshot());
  if (!snapshot) return out;
  ARROW_ASSIGN_OR_RAISE(auto entries, ReadLiveEntries(*table, *snapshot, nullptr));
  ARROW_ASSIGN_OR_RAISE(auto live_index, ReadLiveIndexEntries(*table, *snapshot));
  ARROW_ASSIGN_OR_RAISE(auto filter, PartitionFilter::Make(table->schema(), &predicate));

  std::map<BucketKey, size_t> slot;
  for (auto& e : entries) {
    ARROW_ASSIGN_OR_RAISE(bool hit, filter->Matches(e.partition));
    if (!hit) continue;
    BucketKey key{e.partition, e.bucket};
    auto [it, inserted] = slot.try_emplace(key, out.size());
    if (inserted) {
      CommitMessage msg;
      msg.partition = e.partition;
      msg.bucket = e.bucket;
      msg.total_buckets = e.total_buckets;
      msg.table_path = table->path();
      out.push_back(std::move(msg));
    }
    out[it->second].deleted_files.push_back(std::move(e.file));
  }
  for (const auto& e : live_index) {
    auto it = slot.find({e.partition, e.bucket});
    if (it != slot.end()) out[it->second].deleted_index_files.push_back(e);
  }
  return out;
}

}  // namespace paimon_rowid
