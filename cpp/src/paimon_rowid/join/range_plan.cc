// Range-join planning: per-split key bounds (value stats, then Parquet footers) and the cut of
// the key space into ranges (pypaimon 2.1.0 ray/range_join.py, memo §4.3-§4.4).
#include "paimon_rowid/join/range_plan.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "arrow/util/checked_cast.h"
#include "arrow/util/decimal.h"
#include "paimon_rowid/codec/binary_row.h"
#include "paimon_rowid/exec/executor.h"
#include "paimon_rowid/format/parquet_io.h"

namespace paimon_rowid {
namespace {

using arrow::internal::checked_cast;

template <typename S>
int CompareValues(const arrow::Scalar& a, const arrow::Scalar& b) {
  const auto& x = checked_cast<const S&>(a).value;
  const auto& y = checked_cast<const S&>(b).value;
  return x < y ? -1 : (y < x ? 1 : 0);
}

int CompareBytes(const arrow::Scalar& a, const arrow::Scalar& b) {
  std::string_view x = checked_cast<const arrow::BaseBinaryScalar&>(a).view();
  std::string_view y = checked_cast<const arrow::BaseBinaryScalar&>(b).view();
  int c = x.compare(y);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// Compares two KeyBounds ends that may be null (unknown never reaches here).
Result<bool> Less(const std::shared_ptr<arrow::Scalar>& a,
                  const std::shared_ptr<arrow::Scalar>& b) {
  ARROW_ASSIGN_OR_RAISE(int c, CompareKeys(*a, *b));
  return c < 0;
}

// Grows `into` to cover `more` (both known).
Status Union(KeyBounds* into, const KeyBounds& more) {
  if (!into->known()) {
    *into = more;
    return Status::OK();
  }
  ARROW_ASSIGN_OR_RAISE(bool lower, Less(more.lo, into->lo));
  ARROW_ASSIGN_OR_RAISE(bool higher, Less(into->hi, more.hi));
  if (lower) into->lo = more.lo;
  if (higher) into->hi = more.hi;
  return Status::OK();
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The columns a file's value stats cover, in stats order: _VALUE_STATS_COLS, else every
// written field.
std::vector<std::string> StatsColumns(const DataFileMeta& file, const TableSchema& file_schema) {
  if (file.value_stats_cols) return *file.value_stats_cols;
  std::vector<std::string> names;
  for (const auto& w : WrittenFields(file, file_schema)) names.push_back(w.field->name);
  return names;
}

// Bounds from the file's value stats: the stats column of the key's (file-schema) name, when
// its stats decode and both min and max are set. nullopt sends the caller to the footer.
std::optional<KeyBounds> StatsBounds(const DataFileMeta& file, const TableSchema& file_schema,
                                     const DataField& key_field) {
  const std::vector<std::string> names = StatsColumns(file, file_schema);
  auto pos = std::find(names.begin(), names.end(), key_field.name);
  if (pos == names.end()) return std::nullopt;
  std::vector<std::shared_ptr<arrow::DataType>> types;
  for (const auto& name : names) {
    const DataField* f = file_schema.FieldByName(name);
    if (f == nullptr || f->type->is_nested()) return std::nullopt;
    types.push_back(f->type->ToArrow());
  }
  auto mins = DecodeBinaryRow(file.value_stats.min_values, types);
  auto maxs = DecodeBinaryRow(file.value_stats.max_values, types);
  if (!mins.ok() || !maxs.ok()) return std::nullopt;
  const size_t i = static_cast<size_t>(pos - names.begin());
  const auto& lo = (*mins)[i];
  const auto& hi = (*maxs)[i];
  if (lo == nullptr || hi == nullptr || !lo->is_valid || !hi->is_valid) return std::nullopt;
  return KeyBounds{lo, hi};
}

// True when the stats say every key of the file is NULL (no footer read needed then).
bool StatsSayAllNull(const DataFileMeta& file, const TableSchema& file_schema,
                     const DataField& key_field) {
  const std::vector<std::string> names = StatsColumns(file, file_schema);
  auto pos = std::find(names.begin(), names.end(), key_field.name);
  if (pos == names.end() || !file.value_stats.null_counts) return false;
  const size_t i = static_cast<size_t>(pos - names.begin());
  const auto& counts = *file.value_stats.null_counts;
  return i < counts.size() && counts[i] && *counts[i] == file.row_count && file.row_count > 0;
}

// Bounds from the Parquet footer: the column of the key's file-schema name, of the key's
// Arrow type, with min/max in every row group. Any failure is unknown.
KeyBounds FooterBounds(const Table& table, const std::string& path, const DataFileMeta& file,
                       const DataField& key_field, const arrow::DataType& key_type) {
  if (!EndsWith(path, ".parquet")) return {};
  auto input = table.file_io()->OpenInput(path, arrow::default_memory_pool());
  if (!input.ok()) return {};
  auto reader = ParquetFileReader::Open(std::move(*input), path, file.file_size);
  if (!reader.ok()) return {};
  auto field = (*reader)->schema()->GetFieldByName(key_field.name);
  if (field == nullptr || !field->type()->Equals(key_type)) return {};
  auto chunks = (*reader)->ColumnMinMax(key_field.name);
  if (!chunks.ok() || !*chunks || (*chunks)->empty()) return {};
  KeyBounds out;
  for (const auto& c : **chunks) {
    if (!Union(&out, KeyBounds{c.min, c.max}).ok()) return {};
  }
  return out;
}

KeyBounds FileKeyBounds(const Table& table, SchemaCache* schemas, const DataSplit& split,
                        const DataFileMeta& file, int32_t key_id, const arrow::DataType& key_type) {
  auto schema = schemas->Get(file.schema_id);
  if (!schema.ok()) return {};
  auto written = WrittenFields(file, **schema);
  auto hit = std::find_if(written.begin(), written.end(),
                          [&](const WrittenField& w) { return w.field_id == key_id; });
  if (hit == written.end()) return {};  // blob or partial-column file without the key
  const DataField& key_field = *hit->field;
  // An evolved key type cannot be compared to the current type's bounds.
  if (!key_field.type->ToArrow()->Equals(key_type)) return {};
  if (auto stats = StatsBounds(file, **schema, key_field)) return *stats;
  if (StatsSayAllNull(file, **schema, key_field)) return {};
  return FooterBounds(table, split.FilePath(file), file, key_field, key_type);
}

Result<int64_t> TotalReads(const std::vector<SplitExtent>& left,
                           const std::vector<SplitExtent>& right,
                           const std::vector<KeyRange>& ranges) {
  int64_t reads = 0;
  for (const auto* side : {&left, &right}) {
    for (const auto& s : *side) {
      int64_t spans = 0;
      for (const auto& r : ranges) {
        ARROW_ASSIGN_OR_RAISE(bool overlaps, Overlaps(s.bounds, r));
        spans += overlaps ? 1 : 0;
      }
      reads += s.bytes * spans;
    }
  }
  return reads;
}

}  // namespace

Result<int> CompareKeys(const arrow::Scalar& a, const arrow::Scalar& b) {
  if (!a.type->Equals(*b.type)) {
    return Status::Invalid("range_join: cannot compare keys of types ", a.type->ToString(), " and ",
                           b.type->ToString());
  }
  switch (a.type->id()) {
    case arrow::Type::BOOL:
      return CompareValues<arrow::BooleanScalar>(a, b);
    case arrow::Type::INT8:
      return CompareValues<arrow::Int8Scalar>(a, b);
    case arrow::Type::INT16:
      return CompareValues<arrow::Int16Scalar>(a, b);
    case arrow::Type::INT32:
      return CompareValues<arrow::Int32Scalar>(a, b);
    case arrow::Type::INT64:
      return CompareValues<arrow::Int64Scalar>(a, b);
    case arrow::Type::DATE32:
      return CompareValues<arrow::Date32Scalar>(a, b);
    case arrow::Type::DATE64:
      return CompareValues<arrow::Date64Scalar>(a, b);
    case arrow::Type::TIME32:
      return CompareValues<arrow::Time32Scalar>(a, b);
    case arrow::Type::TIME64:
      return CompareValues<arrow::Time64Scalar>(a, b);
    case arrow::Type::TIMESTAMP:
      return CompareValues<arrow::TimestampScalar>(a, b);
    case arrow::Type::DECIMAL128:
      return CompareValues<arrow::Decimal128Scalar>(a, b);
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::FIXED_SIZE_BINARY:
      return CompareBytes(a, b);
    default:
      return Status::Invalid("range_join: keys of type ", a.type->ToString(),
                             " cannot bound ranges");
  }
}

Result<bool> Overlaps(const KeyBounds& bounds, const KeyRange& range) {
  if (!bounds.known()) return true;
  if (range.lo) {
    ARROW_ASSIGN_OR_RAISE(bool below, Less(bounds.hi, range.lo));
    if (below) return false;
  }
  if (range.hi) {
    ARROW_ASSIGN_OR_RAISE(bool before, Less(bounds.lo, range.hi));
    if (!before) return false;
  }
  return true;
}

Result<std::vector<std::shared_ptr<arrow::Scalar>>> CutPoints(const std::vector<SplitExtent>& left,
                                                              const std::vector<SplitExtent>& right,
                                                              int64_t num_ranges) {
  struct Point {
    std::shared_ptr<arrow::Scalar> value;
    double weight;
  };
  std::vector<Point> points;
  for (const auto* side : {&left, &right}) {
    for (const auto& s : *side) {
      if (!s.bounds.known()) continue;
      points.push_back({s.bounds.lo, static_cast<double>(s.rows) / 2.0});
      points.push_back({s.bounds.hi, static_cast<double>(s.rows) / 2.0});
    }
  }
  std::vector<std::shared_ptr<arrow::Scalar>> cuts;
  if (points.empty()) return cuts;
  Status compare_status;
  std::stable_sort(points.begin(), points.end(), [&](const Point& a, const Point& b) {
    auto c = CompareKeys(*a.value, *b.value);
    if (!c.ok()) {
      compare_status = c.status();
      return false;
    }
    return *c < 0;
  });
  ARROW_RETURN_NOT_OK(compare_status);
  double total = 0;
  for (const auto& p : points) total += p.weight;
  double acc = 0;
  int64_t k = 1;
  for (const auto& p : points) {
    acc += p.weight;
    if (k >= num_ranges) break;
    if (acc >= total * static_cast<double>(k) / static_cast<double>(num_ranges)) {
      bool greater = cuts.empty();
      if (!greater) {
        ARROW_ASSIGN_OR_RAISE(greater, Less(cuts.back(), p.value));
      }
      if (greater) {  // strictly increasing
        cuts.push_back(p.value);
        ++k;
      }
    }
  }
  return cuts;
}

std::vector<KeyRange> RangesFromCuts(const std::vector<std::shared_ptr<arrow::Scalar>>& cuts) {
  std::vector<KeyRange> ranges;
  std::shared_ptr<arrow::Scalar> lo;
  for (const auto& c : cuts) {
    ranges.push_back({lo, c});
    lo = c;
  }
  ranges.push_back({lo, nullptr});
  return ranges;
}

Result<std::vector<KeyRange>> BoundedRanges(const std::vector<SplitExtent>& left,
                                            const std::vector<SplitExtent>& right,
                                            int64_t num_ranges) {
  int64_t total_bytes = 0;
  for (const auto* side : {&left, &right}) {
    for (const auto& s : *side) total_bytes += s.bytes;
  }
  const int64_t budget = kRangeJoinRereadBudget * std::max<int64_t>(1, total_bytes);
  while (true) {
    ARROW_ASSIGN_OR_RAISE(auto cuts, CutPoints(left, right, num_ranges));
    auto ranges = RangesFromCuts(cuts);
    if (num_ranges <= 1) return ranges;
    ARROW_ASSIGN_OR_RAISE(int64_t reads, TotalReads(left, right, ranges));
    if (reads <= budget) return ranges;
    num_ranges = std::max<int64_t>(1, num_ranges / 2);
  }
}

int64_t DefaultNumRanges(size_t left_splits, size_t right_splits) {
  return static_cast<int64_t>(std::max(left_splits, right_splits));
}

Result<std::vector<RangeTask>> PlanRangeTasks(const std::vector<SplitExtent>& left,
                                              const std::vector<SplitExtent>& right,
                                              int64_t num_ranges) {
  std::vector<RangeTask> tasks;
  if (left.empty() || right.empty()) return tasks;
  num_ranges = std::clamp<int64_t>(num_ranges, 1, kMaxRangeJoinRanges);
  ARROW_ASSIGN_OR_RAISE(auto ranges, BoundedRanges(left, right, num_ranges));
  for (auto& range : ranges) {
    RangeTask task;
    for (size_t i = 0; i < left.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(bool overlaps, Overlaps(left[i].bounds, range));
      if (overlaps) task.left.push_back(static_cast<int32_t>(i));
    }
    for (size_t i = 0; i < right.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(bool overlaps, Overlaps(right[i].bounds, range));
      if (overlaps) task.right.push_back(static_cast<int32_t>(i));
    }
    if (task.left.empty() || task.right.empty()) continue;  // inner: nothing can match
    task.range = std::move(range);
    tasks.push_back(std::move(task));
  }
  return tasks;
}

Result<std::vector<RangedSplit>> PlanRangeSide(std::shared_ptr<const Table> table,
                                               const std::string& range_column,
                                               std::shared_ptr<Predicate> partition_filter) {
  const TableSchema& schema = table->schema();
  const DataField* key = schema.FieldByName(range_column);
  if (key == nullptr) {
    return Status::KeyError("range_join: column '", range_column, "' is not in table '",
                            table->identifier().FullName(), "'");
  }
  const int32_t key_id = key->id;
  const auto key_type = key->type->ToArrow();
  // One split per file group: packing to source.split.target-size would give a small table
  // one split, hence one range (pypaimon's behaviour, memo §5.3 #15).
  ScanPlanner planner(table);
  planner.WithSplitTargetSize(1);
  if (partition_filter) planner.WithPredicate(partition_filter);
  ARROW_ASSIGN_OR_RAISE(auto plan, planner.Plan());

  const auto& pks = schema.primary_keys;
  const bool trusted = pks.empty() || std::find(pks.begin(), pks.end(), range_column) != pks.end();
  SchemaCache schemas(table);
  std::vector<RangedSplit> out(plan.splits.size());
  // Footer reads are I/O: as pypaimon, up to 16 at once (4 per core).
  const int threads = std::min(16, 4 * Executor::ResolveThreads(0));
  ARROW_RETURN_NOT_OK(Executor::Default()->ParallelFor(
      static_cast<int64_t>(plan.splits.size()), threads, [&](int64_t i) -> Status {
        RangedSplit& ranged = out[i];
        ranged.split = std::move(plan.splits[i]);
        bool unknown = !trusted;
        KeyBounds bounds;
        for (const auto& group : ranged.split.groups) {
          for (const auto& file : group) {
            ranged.extent.rows += file.row_count;
            ranged.extent.bytes += file.file_size;
            if (unknown) continue;
            KeyBounds b = FileKeyBounds(*table, &schemas, ranged.split, file, key_id, *key_type);
            if (!b.known()) {
              unknown = true;
              continue;
            }
            ARROW_RETURN_NOT_OK(Union(&bounds, b));
          }
        }
        if (!unknown) ranged.extent.bounds = std::move(bounds);
        return Status::OK();
      }));
  return out;
}

}  // namespace paimon_rowid
