// Scan planning (ScanPlanner): the live manifest entries of a snapshot, their grouping into
// row-id file groups, stats and row-range pruning, and packing the groups into DataSplits
// (whose own methods and wire form are in data_split.cc).
#include "paimon_rowid/scan/plan.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <set>
#include <unordered_map>

#include "arrow/scalar.h"
#include "paimon_rowid/catalog/bucket_spec.h"
#include "paimon_rowid/codec/binary_row.h"
#include "paimon_rowid/scan/bucket_select.h"
#include "paimon_rowid/scan/global_index_scan.h"
#include "paimon_rowid/scan/manifest_cache.h"
#include "paimon_rowid/scan/partition.h"

namespace paimon_rowid {
namespace {

constexpr int64_t kOpenFileCost = 4LL << 20;

}  // namespace

// ------------------------------------------------------------------------ schema helpers

Result<std::shared_ptr<const TableSchema>> SchemaCache::Get(int64_t schema_id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = schemas_.find(schema_id);
    if (it != schemas_.end()) return it->second;
  }
  std::shared_ptr<const TableSchema> schema;
  if (table_->schema().id == schema_id) {
    schema = std::make_shared<TableSchema>(table_->schema());
  } else {
    ARROW_ASSIGN_OR_RAISE(auto loaded, table_->SchemaById(schema_id));
    schema = std::make_shared<TableSchema>(std::move(loaded));
  }
  std::lock_guard<std::mutex> lock(mu_);
  schemas_[schema_id] = schema;
  return schema;
}

std::vector<WrittenField> WrittenFields(const DataFileMeta& file, const TableSchema& file_schema) {
  std::vector<WrittenField> out;
  if (!file.write_cols) {
    for (const auto& f : file_schema.fields) out.push_back({f.id, &f});
    return out;
  }
  for (const auto& name : *file.write_cols) {
    if (system_fields::IsSystemField(name)) continue;
    const DataField* f = file_schema.FieldByName(name);
    if (f != nullptr) out.push_back({f->id, f});
  }
  return out;
}

// ------------------------------------------------------------------------ planning steps

Status CheckReadable(const Table& table, const Snapshot& /*snapshot*/) {
  if (table.options().Contains(options::kVectorFileFormat)) {
    return Status::NotImplemented("table '", table.identifier().FullName(),
                                  "' stores VECTOR columns in dedicated vector files "
                                  "('vector.file.format'), which paimon-rowid cannot read yet");
  }
  return Status::OK();
}

Result<std::vector<ManifestEntry>> ReadLiveEntries(const Table& table, const Snapshot& snapshot,
                                                   const std::vector<RowRange>* row_ranges) {
  std::vector<ManifestFileMeta> manifests;
  for (const std::string* list : {&snapshot.base_manifest_list, &snapshot.delta_manifest_list}) {
    if (list->empty()) continue;
    ARROW_ASSIGN_OR_RAISE(auto data, table.file_io()->ReadFile(table.ManifestPath(*list)));
    ARROW_ASSIGN_OR_RAISE(auto metas, DecodeManifestList(std::move(data)));
    manifests.insert(manifests.end(), metas.begin(), metas.end());
  }
  // Fold ADD and DELETE entries over the (shared, cached) decoded manifests, then copy out
  // only the entries that stay live.
  std::vector<SharedManifestEntries> decoded;
  std::vector<const ManifestEntry*> ordered;
  std::unordered_map<std::string, size_t> index;
  for (const auto& meta : manifests) {
    if (row_ranges && meta.min_row_id && meta.max_row_id &&
        !AnyOverlap(*row_ranges, *meta.min_row_id, *meta.max_row_id)) {
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto entries, ReadManifestEntries(table, meta.file_name, meta.file_size));
    for (const auto& e : *entries) {
      if (row_ranges && e.file.first_row_id &&
          !AnyOverlap(*row_ranges, *e.file.first_row_id, e.file.last_row_id())) {
        continue;
      }
      std::string key = FileIdentifier(e);
      auto it = index.find(key);
      if (e.kind == FileKind::kAdd) {
        if (it != index.end() && ordered[it->second] != nullptr) {
          return Status::Invalid("file '", e.file.file_name, "' is added twice in snapshot ",
                                 snapshot.id);
        }
        index[std::move(key)] = ordered.size();
        ordered.push_back(&e);
      } else if (it != index.end()) {
        ordered[it->second] = nullptr;
        index.erase(it);
      }
    }
    decoded.push_back(std::move(entries));
  }
  std::vector<ManifestEntry> live;
  live.reserve(index.size());
  for (const ManifestEntry* e : ordered) {
    if (e != nullptr) live.push_back(*e);
  }
  return live;
}

Result<std::vector<FileGroup>> GroupFiles(std::vector<DataFileMeta> files, bool data_evolution) {
  std::vector<FileGroup> groups;
  if (!data_evolution) {
    for (auto& f : files) groups.push_back({std::move(f)});
    return groups;
  }
  std::vector<size_t> order(files.size());
  std::iota(order.begin(), order.end(), 0);
  for (const auto& f : files) {
    if (!f.first_row_id) {
      return Status::Invalid("file '", f.file_name,
                             "' of a data-evolution table has no first_row_id");
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& fa = files[a];
    const auto& fb = files[b];
    if (*fa.first_row_id != *fb.first_row_id) return *fa.first_row_id < *fb.first_row_id;
    return fa.last_row_id() < fb.last_row_id();
  });
  std::vector<std::vector<size_t>> members;
  int64_t group_end = 0;
  for (size_t i : order) {
    const auto& f = files[i];
    if (!members.empty() && *f.first_row_id <= group_end) {
      members.back().push_back(i);
      group_end = std::max(group_end, f.last_row_id());
    } else {
      members.push_back({i});
      group_end = f.last_row_id();
    }
  }
  for (auto& m : members) {
    std::sort(m.begin(), m.end());  // back to manifest order
    FileGroup g;
    for (size_t i : m) g.push_back(std::move(files[i]));
    groups.push_back(std::move(g));
  }
  return groups;
}

// ------------------------------------------------------------------------ stats pruning

namespace {

// Evaluates a predicate's stats check for one group, using per column the stats of the file
// that wins that column on read (the newest normal file holding it).
class GroupStats {
 public:
  GroupStats(SchemaCache* schemas, const TableSchema& table_schema,
             const std::vector<DataField>& partition_fields,
             const std::vector<std::shared_ptr<arrow::Scalar>>& partition_values)
      : schemas_(schemas),
        table_schema_(table_schema),
        partition_fields_(partition_fields),
        partition_values_(partition_values) {}

  bool MayMatch(const Predicate& predicate, const FileGroup& group) {
    cache_.clear();
    group_ = &group;
    normal_.clear();
    for (const auto& f : group) {
      if (f.is_normal_file()) normal_.push_back(&f);
    }
    std::stable_sort(normal_.begin(), normal_.end(),
                     [](const DataFileMeta* a, const DataFileMeta* b) {
                       return a->max_sequence_number > b->max_sequence_number;
                     });
    range_ = GroupRange(group);
    return predicate.MayMatch([this](const std::string& field) { return Lookup(field); },
                              range_.count());
  }

 private:
  const Predicate::ColumnStats* Lookup(const std::string& field) {
    auto it = cache_.find(field);
    if (it != cache_.end()) return it->second ? &*it->second : nullptr;
    auto stats = Compute(field);
    auto& slot = cache_[field];
    slot = std::move(stats);
    return slot ? &*slot : nullptr;
  }

  std::optional<Predicate::ColumnStats> Compute(const std::string& field) {
    for (size_t i = 0; i < partition_fields_.size(); ++i) {
      if (partition_fields_[i].name == field && i < partition_values_.size()) {
        const auto& v = partition_values_[i];
        Predicate::ColumnStats s;
        s.min = v;
        s.max = v;
        s.null_count = v->is_valid ? 0 : range_.count();
        return s;
      }
    }
    if (field == system_fields::kRowId) {
      Predicate::ColumnStats s;
      s.min = std::make_shared<arrow::Int64Scalar>(range_.from);
      s.max = std::make_shared<arrow::Int64Scalar>(range_.to);
      s.null_count = 0;
      return s;
    }
    const DataField* table_field = table_schema_.FieldByName(field);
    if (table_field == nullptr) return std::nullopt;
    for (const DataFileMeta* f : normal_) {
      auto schema = schemas_->Get(f->schema_id);
      if (!schema.ok()) return std::nullopt;
      auto written = WrittenFields(*f, **schema);
      auto hit = std::find_if(written.begin(), written.end(),
                              [&](const WrittenField& w) { return w.field_id == table_field->id; });
      if (hit == written.end()) continue;
      // This file wins the column: use its stats if it has them for the column.
      auto stats = FileColumnStats(*f, **schema, *hit->field);
      if (!stats) return stats;
      return EvolveStats(std::move(*stats), *hit->field->type, *table_field->type);
    }
    return std::nullopt;
  }

  // Stats of a file written before a column's type changed: kept when the old type's order
  // is the new one's (integer widening, cast exactly), dropped otherwise (a STRING min/max
  // says nothing about the order of the values as INT), as Java drops unsafe filters.
  static std::optional<Predicate::ColumnStats> EvolveStats(Predicate::ColumnStats s,
                                                           const DataType& file_type,
                                                           const DataType& table_type) {
    if (file_type.WithNullable(true)->Equals(*table_type.WithNullable(true))) return s;
    auto is_integer = [](TypeRoot r) {
      return r == TypeRoot::kTinyInt || r == TypeRoot::kSmallInt || r == TypeRoot::kInt ||
             r == TypeRoot::kBigInt;
    };
    if (!is_integer(file_type.root()) || !is_integer(table_type.root()) ||
        static_cast<int>(file_type.root()) > static_cast<int>(table_type.root())) {
      Predicate::ColumnStats counts_only;
      counts_only.null_count = s.null_count;
      if (!counts_only.null_count) return std::nullopt;
      return counts_only;
    }
    auto target = table_type.ToArrow();
    for (auto* bound : {&s.min, &s.max}) {
      if (!*bound) continue;
      auto cast = (*bound)->CastTo(target);
      if (!cast.ok()) return std::nullopt;
      *bound = *cast;
    }
    return s;
  }

  std::optional<Predicate::ColumnStats> FileColumnStats(const DataFileMeta& f,
                                                        const TableSchema& file_schema,
                                                        const DataField& column) {
    std::vector<std::string> names;
    if (f.value_stats_cols) {
      names = *f.value_stats_cols;
    } else {
      for (const auto& w : WrittenFields(f, file_schema)) names.push_back(w.field->name);
    }
    auto pos = std::find(names.begin(), names.end(), column.name);
    if (pos == names.end()) return std::nullopt;
    std::vector<std::shared_ptr<arrow::DataType>> types;
    for (const auto& n : names) {
      const DataField* df = file_schema.FieldByName(n);
      if (df == nullptr || df->type->is_nested()) return std::nullopt;
      types.push_back(df->type->ToArrow());
    }
    auto mins = DecodeBinaryRow(f.value_stats.min_values, types);
    auto maxs = DecodeBinaryRow(f.value_stats.max_values, types);
    if (!mins.ok() || !maxs.ok()) return std::nullopt;
    size_t i = static_cast<size_t>(pos - names.begin());
    Predicate::ColumnStats s;
    s.min = (*mins)[i]->is_valid ? (*mins)[i] : nullptr;
    s.max = (*maxs)[i]->is_valid ? (*maxs)[i] : nullptr;
    if (f.value_stats.null_counts && i < f.value_stats.null_counts->size()) {
      s.null_count = (*f.value_stats.null_counts)[i];
    }
    // Stats of one file describe the group only when the file spans the whole group.
    if (!f.first_row_id || *f.first_row_id != range_.from || f.last_row_id() != range_.to) {
      return std::nullopt;
    }
    if (!s.min && !s.max && !s.null_count) return std::nullopt;
    return s;
  }

  SchemaCache* schemas_;
  const TableSchema& table_schema_;
  const std::vector<DataField>& partition_fields_;
  const std::vector<std::shared_ptr<arrow::Scalar>>& partition_values_;
  const FileGroup* group_ = nullptr;
  std::vector<const DataFileMeta*> normal_;
  RowRange range_;
  std::map<std::string, std::optional<Predicate::ColumnStats>> cache_;
};

}  // namespace

// ------------------------------------------------------------------------ ScanPlanner

ScanPlanner& ScanPlanner::WithPredicate(std::shared_ptr<Predicate> predicate) {
  predicate_ = std::move(predicate);
  return *this;
}

ScanPlanner& ScanPlanner::WithRowRanges(std::vector<RowRange> ranges) {
  row_ranges_ = SortAndMerge(std::move(ranges));
  return *this;
}

ScanPlanner& ScanPlanner::WithSplitTargetSize(int64_t bytes) {
  split_target_size_ = bytes;
  return *this;
}

Result<ScanPlan> ScanPlanner::Plan() const {
  ScanPlan plan;
  ARROW_ASSIGN_OR_RAISE(auto snapshot, table_->ResolveSnapshot());
  if (!snapshot) return plan;
  plan.snapshot_id = snapshot->id;
  ARROW_RETURN_NOT_OK(CheckReadable(*table_, *snapshot));

  const bool data_evolution = table_->data_evolution_enabled();
  std::optional<std::vector<RowRange>> ranges = row_ranges_;
  if (predicate_ && data_evolution) {
    if (auto from_predicate = RowRangesFromPredicate(*predicate_)) {
      if (!ranges) {
        ranges = std::move(from_predicate);
      } else {
        std::vector<RowRange> both;
        for (const auto& r : *ranges) {
          for (const auto& p : IntersectRanges(*from_predicate, r.from, r.to)) both.push_back(p);
        }
        ranges = SortAndMerge(std::move(both));
      }
    }
  }
  if (predicate_ && data_evolution && !(ranges && ranges->empty())) {
    // Btree global indexes narrow `=` / `IN` conjuncts to the rows they match plus the rows
    // they do not cover; the predicate still filters every row read.
    ARROW_ASSIGN_OR_RAISE(auto indexed, RangesFromGlobalIndexes(*table_, *snapshot, *predicate_));
    if (indexed) {
      if (!ranges) {
        ranges = std::move(indexed->ranges);
      } else {
        std::vector<RowRange> both;
        for (const auto& r : *ranges) {
          for (const auto& p : IntersectRanges(indexed->ranges, r.from, r.to)) both.push_back(p);
        }
        ranges = SortAndMerge(std::move(both));
      }
    }
  }
  if (ranges && ranges->empty()) return plan;

  ARROW_ASSIGN_OR_RAISE(auto entries,
                        ReadLiveEntries(*table_, *snapshot, ranges ? &*ranges : nullptr));
  // Bucket pruning on fixed-bucket tables. Files written under another bucket count (a
  // rescale in progress) are kept: the hash says nothing about where they are.
  std::optional<std::set<int32_t>> buckets;
  int32_t num_buckets = -1;
  if (predicate_) {
    auto spec = BucketSpec::Of(table_->schema());
    if (spec.ok() && spec->fixed()) {
      num_buckets = spec->num_buckets;
      ARROW_ASSIGN_OR_RAISE(buckets, SelectBuckets(*predicate_, *spec));
    }
  }
  // Bucket the files by (partition, bucket) in order of first appearance.
  std::vector<std::pair<std::string, int32_t>> keys;
  std::map<std::pair<std::string, int32_t>, std::vector<DataFileMeta>> by_bucket;
  for (auto& e : entries) {
    if (e.file.is_vector_file()) {
      return Status::NotImplemented("table '", table_->identifier().FullName(),
                                    "' has a dedicated vector file ('", e.file.file_name,
                                    "'), which paimon-rowid cannot read yet");
    }
    if (buckets && e.total_buckets == num_buckets && !buckets->count(e.bucket)) continue;
    auto key = std::make_pair(e.partition, e.bucket);
    auto [it, inserted] = by_bucket.try_emplace(key);
    if (inserted) keys.push_back(key);
    it->second.push_back(std::move(e.file));
  }

  ARROW_ASSIGN_OR_RAISE(const DeletionFileMap deletion_files,
                        LoadDeletionFiles(*table_, *snapshot));
  ARROW_ASSIGN_OR_RAISE(auto partition_fields, PartitionFields(table_->schema()));
  PartitionLocator locator(
      table_->file_io(), table_->DataRoot(), partition_fields,
      table_->options().GetOr(options::kPartitionDefaultName, "__DEFAULT_PARTITION__"));
  auto shared_table = table_;
  SchemaCache schemas(shared_table);
  for (const auto& key : keys) {
    ARROW_ASSIGN_OR_RAISE(auto groups, GroupFiles(std::move(by_bucket[key]), data_evolution));
    const auto dv_it = deletion_files.find(key);
    const BucketDeletionFiles* bucket_dvs =
        dv_it == deletion_files.end() ? nullptr : &dv_it->second;
    ARROW_ASSIGN_OR_RAISE(auto values, locator.Values(key.first));
    ARROW_ASSIGN_OR_RAISE(std::string dir, locator.BucketDir(key.first, key.second));
    GroupStats stats(&schemas, table_->schema(), partition_fields, values);

    DataSplit current;
    int64_t current_weight = 0;
    auto flush = [&]() {
      if (current.groups.empty()) return;
      if (ranges) {
        std::vector<RowRange> inside;
        for (const auto& g : current.groups) {
          RowRange r = GroupRange(g);
          for (const auto& p : IntersectRanges(*ranges, r.from, r.to)) inside.push_back(p);
        }
        current.row_ranges = SortAndMerge(std::move(inside));
      }
      plan.splits.push_back(std::move(current));
      current = DataSplit();
      current_weight = 0;
    };
    for (auto& group : groups) {
      if (ranges) {
        RowRange r = GroupRange(group);
        if (!AnyOverlap(*ranges, r.from, r.to)) continue;
      }
      if (predicate_ && !stats.MayMatch(*predicate_, group)) continue;
      int64_t weight = 0;
      for (const auto& f : group) weight += std::max(f.file_size, kOpenFileCost);
      if (!current.groups.empty() && current_weight + weight > split_target_size_) flush();
      if (current.groups.empty()) {
        current.snapshot_id = snapshot->id;
        current.partition = key.first;
        current.bucket = key.second;
        current.bucket_dir = dir;
      }
      if (bucket_dvs) {
        if (const DataFileMeta* anchor = DeletionAnchor(group)) {
          auto found = bucket_dvs->find(anchor->file_name);
          if (found != bucket_dvs->end()) current.deletion_files.insert(*found);
        }
      }
      current.groups.push_back(std::move(group));
      current_weight += weight;
    }
    flush();
  }
  return plan;
}

}  // namespace paimon_rowid
