#include "paimon_rowid/rowid/row_id_index.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "arrow/type_traits.h"
#include "paimon_rowid/codec/envelope.h"
#include "paimon_rowid/common/checked_json.h"
#include "paimon_rowid/scan/partition.h"

namespace paimon_rowid {
namespace {

constexpr EnvelopeKind kIndexKind{{'P', 'R', 'I', 'X'}, 1, "row-id index"};

}  // namespace

Result<std::shared_ptr<RowIdIndex>> RowIdIndex::Build(std::shared_ptr<const Table> table,
                                                      const Snapshot& snapshot) {
  ARROW_RETURN_NOT_OK(CheckReadable(*table, snapshot));
  ARROW_ASSIGN_OR_RAISE(auto entries, ReadLiveEntries(*table, snapshot, nullptr));
  std::vector<std::pair<std::string, int32_t>> keys;
  std::map<std::pair<std::string, int32_t>, std::vector<DataFileMeta>> by_bucket;
  for (auto& e : entries) {
    auto key = std::make_pair(e.partition, e.bucket);
    auto [it, inserted] = by_bucket.try_emplace(key);
    if (inserted) keys.push_back(key);
    it->second.push_back(std::move(e.file));
  }
  ARROW_ASSIGN_OR_RAISE(const DeletionFileMap deletion_files, LoadDeletionFiles(*table, snapshot));
  ARROW_ASSIGN_OR_RAISE(auto partition_fields, PartitionFields(table->schema()));
  PartitionLocator locator(
      table->file_io(), table->DataRoot(), partition_fields,
      table->options().GetOr(options::kPartitionDefaultName, "__DEFAULT_PARTITION__"));
  std::shared_ptr<RowIdIndex> index(new RowIdIndex());
  index->snapshot_id_ = snapshot.id;
  std::vector<RowRange> normal_ranges;
  for (const auto& key : keys) {
    ARROW_ASSIGN_OR_RAISE(std::string dir, locator.BucketDir(key.first, key.second));
    ARROW_ASSIGN_OR_RAISE(auto groups,
                          GroupFiles(std::move(by_bucket[key]), /*data_evolution=*/true));
    for (auto& files : groups) {
      bool has_normal = false;
      for (const auto& f : files) {
        if (f.is_normal_file()) {
          has_normal = true;
          normal_ranges.push_back({*f.first_row_id, f.last_row_id()});
        }
      }
      if (!has_normal) continue;  // orphan blob files address no rows
      Group g;
      g.range = GroupRange(files);
      g.partition = key.first;
      g.bucket = key.second;
      g.bucket_dir = dir;
      g.files = std::move(files);
      auto dvs = deletion_files.find(key);
      const DataFileMeta* anchor = DeletionAnchor(g.files);
      if (dvs != deletion_files.end() && anchor != nullptr) {
        auto found = dvs->second.find(anchor->file_name);
        if (found != dvs->second.end()) g.deletion_files.insert(*found);
      }
      index->groups_.push_back(std::move(g));
    }
  }
  std::sort(index->groups_.begin(), index->groups_.end(),
            [](const Group& a, const Group& b) { return a.range.from < b.range.from; });
  for (const auto& g : index->groups_) index->starts_.push_back(g.range.from);
  index->valid_ranges_ = SortAndMerge(std::move(normal_ranges), /*merge_adjacent=*/true);
  return index;
}

std::shared_ptr<const RowIdIndex> RowIdIndex::WithoutDeletionVectors() const {
  std::shared_ptr<RowIdIndex> copy(new RowIdIndex(*this));
  for (auto& g : copy->groups_) g.deletion_files.clear();
  return copy;
}

int64_t RowIdIndex::total_rows() const {
  int64_t n = 0;
  for (const auto& g : groups_) {  // saturating: a shipped index may be hostile
    if (__builtin_add_overflow(n, g.range.count(), &n)) return std::numeric_limits<int64_t>::max();
  }
  return n;
}

std::string RowIdIndex::ValidRangesString() const {
  std::string out = "[";
  for (size_t i = 0; i < valid_ranges_.size(); ++i) {
    if (i > 0) out += ", ";
    out += "'[" + std::to_string(valid_ranges_[i].from) + ", " +
           std::to_string(valid_ranges_[i].to) + "]'";
  }
  return out + "]";
}

Status CheckRowIdType(const arrow::DataType& type, const std::string& column) {
  // The null type: a column with no values (an empty pandas frame's); its nulls fail later.
  if (arrow::is_integer(type.id()) || type.id() == arrow::Type::NA) return Status::OK();
  return Status::TypeError("row ids must be integers: column '", column, "' is ", type.ToString(),
                           "; a row id is an int64 value of a table's _ROW_ID column");
}

Result<std::vector<int32_t>> RowIdIndex::Route(const arrow::Int64Array& ids,
                                               const std::string& context) const {
  std::vector<int32_t> out(static_cast<size_t>(ids.length()));
  if (ids.null_count() > 0) {
    return Status::Invalid("_ROW_ID is null; ", context);
  }
  const int64_t* values = ids.raw_values();
  const int64_t n = ids.length();
  // Sorted-run fast path: consecutive ids usually fall in the same group.
  int32_t last = -1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t id = values[i];
    if (last >= 0 && groups_[last].range.Contains(id)) {
      out[i] = last;
      continue;
    }
    auto it = std::upper_bound(starts_.begin(), starts_.end(), id);
    int32_t g = static_cast<int32_t>(it - starts_.begin()) - 1;
    if (g < 0 || !groups_[g].range.Contains(id)) {
      return Status::Invalid("_ROW_ID ", id, " does not belong to any valid range ",
                             ValidRangesString(), "; ", context);
    }
    out[i] = last = g;
  }
  return out;
}

DataSplit RowIdIndex::SplitOf(size_t g, std::optional<std::vector<RowRange>> row_ranges) const {
  DataSplit split;
  split.snapshot_id = snapshot_id_;
  split.partition = groups_[g].partition;
  split.bucket = groups_[g].bucket;
  split.bucket_dir = groups_[g].bucket_dir;
  split.groups.push_back(groups_[g].files);
  split.deletion_files = groups_[g].deletion_files;
  split.row_ranges = std::move(row_ranges);
  return split;
}

Result<std::string> RowIdIndex::Serialize() const {
  // Groups travel as serialized single-group splits: one format for files on the wire.
  nlohmann::json header;
  header["snapshot_id"] = snapshot_id_;
  std::string body;
  std::vector<uint64_t> sizes;
  for (size_t g = 0; g < groups_.size(); ++g) {
    ARROW_ASSIGN_OR_RAISE(auto bytes, SplitOf(g).Serialize());
    sizes.push_back(bytes.size());
    body += bytes;
  }
  header["sizes"] = sizes;
  return SealEnvelope(kIndexKind, header.dump(), body);
}

Result<std::shared_ptr<RowIdIndex>> RowIdIndex::Deserialize(std::string_view bytes) {
  ARROW_ASSIGN_OR_RAISE(auto parts, OpenEnvelope(kIndexKind, bytes));
  std::shared_ptr<RowIdIndex> index(new RowIdIndex());
  std::vector<uint64_t> sizes;
  ARROW_RETURN_NOT_OK(CatchJsonErrors("serialized row-id index is malformed: ", [&]() -> Status {
    auto header = nlohmann::json::parse(parts.header);
    index->snapshot_id_ = JsonInteger<int64_t>(header.at("snapshot_id"));
    for (const auto& size : header.at("sizes")) sizes.push_back(JsonInteger<uint64_t>(size));
    return Status::OK();
  }));
  const std::string_view body = parts.body;
  size_t offset = 0;
  std::vector<RowRange> normal_ranges;
  for (uint64_t size : sizes) {
    // `size > left`, not `offset + size > body.size()`: a huge size must not wrap around.
    if (size > body.size() - offset) return Status::Invalid("serialized row-id index is truncated");
    ARROW_ASSIGN_OR_RAISE(auto split, DataSplit::Deserialize(body.substr(offset, size)));
    offset += size;
    if (split.groups.size() != 1) return Status::Invalid("serialized row-id index is malformed");
    Group g;
    g.partition = split.partition;
    g.bucket = split.bucket;
    g.bucket_dir = split.bucket_dir;
    g.files = std::move(split.groups[0]);
    g.deletion_files = std::move(split.deletion_files);
    g.range = GroupRange(g.files);
    for (const auto& f : g.files) {
      if (f.is_normal_file() && f.first_row_id)
        normal_ranges.push_back({*f.first_row_id, f.last_row_id()});
    }
    index->starts_.push_back(g.range.from);
    index->groups_.push_back(std::move(g));
  }
  index->valid_ranges_ = SortAndMerge(std::move(normal_ranges), true);
  return index;
}

int64_t RowIdIndex::EstimateBytes(const Table& table, const std::vector<int32_t>& owners,
                                  const std::vector<std::string>& columns) const {
  std::vector<int64_t> routed(groups_.size(), 0);
  for (int32_t g : owners) {
    if (g >= 0 && static_cast<size_t>(g) < routed.size()) ++routed[static_cast<size_t>(g)];
  }
  std::vector<std::string> normal_fields;
  std::vector<std::string> blob_fields;
  for (const auto& field : table.schema().fields) {
    (field.type->is_blob() ? blob_fields : normal_fields).push_back(field.name);
  }
  const std::unordered_set<std::string> wanted(columns.begin(), columns.end());
  auto share = [&](const std::vector<std::string>& held) {
    if (held.empty()) return 0.0;
    size_t hit = 0;
    for (const auto& name : held) hit += wanted.count(name);
    return static_cast<double>(hit) / static_cast<double>(held.size());
  };
  double bytes = 0;
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (routed[g] == 0) continue;
    const Group& group = groups_[g];
    const double rows =
        static_cast<double>(std::max<int64_t>(1, group.range.to - group.range.from + 1));
    for (const auto& file : group.files) {
      if (file.is_vector_file()) continue;
      const bool blob = file.is_blob_file();
      const double part =
          share(file.write_cols ? *file.write_cols : (blob ? blob_fields : normal_fields));
      const double fraction = blob ? std::min(1.0, static_cast<double>(routed[g]) / rows) : 1.0;
      bytes += static_cast<double>(file.file_size) * part * fraction;
    }
  }
  return static_cast<int64_t>(bytes);
}

}  // namespace paimon_rowid
