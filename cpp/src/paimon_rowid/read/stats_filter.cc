#include "paimon_rowid/read/stats_filter.h"

#include <algorithm>
#include <set>

#include "arrow/api.h"
#include "arrow/util/bit_run_reader.h"
#include "paimon_rowid/format/object_store_input.h"

namespace paimon_rowid {
namespace {

bool IsStringLike(arrow::Type::type id) {
  return id == arrow::Type::STRING || id == arrow::Type::LARGE_STRING ||
         id == arrow::Type::STRING_VIEW;
}

bool IsBinaryLike(arrow::Type::type id) {
  return id == arrow::Type::BINARY || id == arrow::Type::LARGE_BINARY ||
         id == arrow::Type::BINARY_VIEW;
}

// Bounds of a file column are comparable with the predicate's literals (typed as the table
// column) only when the file stores the table's type; an evolved or differently represented
// column (INT96 timestamps, decimals as FLBA, ...) is cast on read and its bounds are not
// trusted.
bool SameValues(const arrow::DataType& file_type, const arrow::DataType& table_type) {
  if (file_type.Equals(table_type)) return true;
  if (IsStringLike(file_type.id()) && IsStringLike(table_type.id())) return true;
  return IsBinaryLike(file_type.id()) && IsBinaryLike(table_type.id());
}

}  // namespace

std::vector<RowRange> MayMatchPositions(const Predicate& predicate,
                                        const std::vector<RowRange>& selection,
                                        const std::map<std::string, std::vector<StatsRun>>& runs,
                                        int64_t first_row_id) {
  if (selection.empty()) return {};
  const int64_t lo = selection.front().from;
  const int64_t hi = selection.back().to;
  // Interval starts: the selection's span cut at every run boundary inside it.
  std::set<int64_t> cuts = {lo, hi + 1};
  for (const auto& [name, column_runs] : runs) {
    for (const auto& run : column_runs) {
      if (run.rows.from > lo && run.rows.from <= hi) cuts.insert(run.rows.from);
      if (run.rows.to >= lo && run.rows.to < hi) cuts.insert(run.rows.to + 1);
    }
  }
  std::map<std::string, size_t> cursor;
  std::map<std::string, Predicate::ColumnStats> scratch;  // a run's stats narrowed to an interval
  std::vector<RowRange> may_match;
  for (auto it = cuts.begin(); std::next(it) != cuts.end(); ++it) {
    const RowRange interval{*it, *std::next(it) - 1};
    if (!AnyOverlap(selection, interval.from, interval.to)) continue;
    Predicate::ColumnStats row_ids;
    row_ids.min = std::make_shared<arrow::Int64Scalar>(first_row_id + interval.from);
    row_ids.max = std::make_shared<arrow::Int64Scalar>(first_row_id + interval.to);
    row_ids.null_count = 0;
    auto lookup = [&](const std::string& field) -> const Predicate::ColumnStats* {
      if (field == system_fields::kRowId) return &row_ids;
      auto found = runs.find(field);
      if (found == runs.end()) return nullptr;
      const auto& column_runs = found->second;
      size_t& i = cursor[field];  // intervals ascend, so each column's cursor only advances
      while (i < column_runs.size() && column_runs[i].rows.to < interval.from) ++i;
      if (i == column_runs.size() || column_runs[i].rows.from > interval.from) return nullptr;
      // No boundary inside the interval: the run covers it. Its bounds hold for any part of
      // it; its null count only when it is 0 or counts every row of the run.
      const StatsRun& run = column_runs[i];
      if (run.rows == interval) return &run.stats;
      Predicate::ColumnStats& narrowed = scratch[field];
      narrowed = run.stats;
      narrowed.null_count.reset();
      if (run.stats.null_count == 0) narrowed.null_count = 0;
      if (run.stats.null_count == run.rows.count()) narrowed.null_count = interval.count();
      return &narrowed;
    };
    if (!predicate.MayMatch(lookup, interval.count())) continue;
    if (!may_match.empty() && may_match.back().to + 1 == interval.from) {
      may_match.back().to = interval.to;
    } else {
      may_match.push_back(interval);
    }
  }
  std::vector<RowRange> out;
  for (const auto& r : may_match) {
    for (const auto& piece : IntersectRanges(selection, r.from, r.to)) out.push_back(piece);
  }
  return out;
}

Result<std::vector<RowRange>> SelectByMask(const std::vector<RowRange>& selection,
                                           const arrow::Datum& mask) {
  int64_t rows = 0;
  for (const auto& r : selection) rows += r.count();
  if (rows == 0) return std::vector<RowRange>{};
  if (mask.is_scalar()) {
    const auto& s = mask.scalar_as<arrow::BooleanScalar>();
    if (s.is_valid && s.value) return selection;
    return std::vector<RowRange>{};
  }
  if (!mask.is_array() || mask.type()->id() != arrow::Type::BOOL) {
    return Status::Invalid("a filter mask must be a boolean array, got ", mask.ToString());
  }
  const auto array = mask.make_array();
  if (array->length() != rows) {
    return Status::Invalid("filter mask of ", array->length(), " entries for ", rows, " rows");
  }
  const auto& bools = static_cast<const arrow::BooleanArray&>(*array);
  const uint8_t* values = bools.values()->data();
  const uint8_t* validity = bools.null_bitmap_data();
  // Selected entries, as runs of mask positions, mapped back to row positions.
  std::vector<RowRange> out;
  size_t range = 0;
  int64_t range_base = 0;  // mask position of selection[range].from
  auto emit = [&](int64_t from, int64_t length) {
    while (length > 0) {
      while (from >= range_base + selection[range].count()) {
        range_base += selection[range].count();
        ++range;
      }
      const int64_t in_range = std::min(length, range_base + selection[range].count() - from);
      const int64_t row = selection[range].from + (from - range_base);
      if (!out.empty() && out.back().to + 1 == row) {
        out.back().to = row + in_range - 1;
      } else {
        out.push_back({row, row + in_range - 1});
      }
      from += in_range;
      length -= in_range;
    }
  };
  arrow::internal::SetBitRunReader runs(values, bools.offset(), rows);
  for (auto run = runs.NextRun(); run.length != 0; run = runs.NextRun()) {
    if (validity == nullptr) {
      emit(run.position, run.length);
      continue;
    }
    for (int64_t i = run.position; i < run.position + run.length;) {  // drop null entries
      if (!arrow::bit_util::GetBit(validity, bools.offset() + i)) {
        ++i;
        continue;
      }
      int64_t j = i + 1;
      while (j < run.position + run.length &&
             arrow::bit_util::GetBit(validity, bools.offset() + j)) {
        ++j;
      }
      emit(i, j - i);
      i = j;
    }
  }
  return out;
}

Result<ParquetFileReader*> GroupFileReaders::Get(const DataFileMeta& file) {
  auto found = readers_.find(&file);
  if (found != readers_.end()) return found->second.get();
  const std::string path = split_.FilePath(file);
  ARROW_ASSIGN_OR_RAISE(auto input,
                        format_internal::OpenForRead(*table_.file_io(), path, file.file_size, pool_,
                                                     /*mapped=*/true));
  ParquetReadOptions options;
  options.pool = pool_;
  ARROW_ASSIGN_OR_RAISE(auto reader,
                        ParquetFileReader::Open(std::move(input), path, file.file_size, options));
  if (reader->num_rows() != file.row_count) {
    return Status::IOError("data file '", path, "' holds ", reader->num_rows(),
                           " rows but its manifest entry says ", file.row_count);
  }
  ParquetFileReader* out = reader.get();
  readers_.emplace(&file, std::move(reader));
  return out;
}

Status PruneByFileStats(const Predicate& predicate, const TableSchema& schema,
                        GroupFileReaders* files, GroupReadPlan* plan) {
  std::set<std::string> fields;
  predicate.CollectFields(&fields);
  std::map<std::string, std::vector<StatsRun>> runs;
  for (const auto& supply : plan->supplies) {
    for (const auto& [table_name, file_name] : supply.columns) {
      if (!fields.count(table_name)) continue;
      const DataField* field = schema.FieldByName(table_name);
      if (field == nullptr) continue;
      ARROW_ASSIGN_OR_RAISE(ParquetFileReader * reader, files->Get(*supply.file));
      const auto file_field = reader->schema()->GetFieldByName(file_name);
      if (file_field == nullptr || !SameValues(*file_field->type(), *field->type->ToArrow())) {
        continue;
      }
      auto segments = reader->ColumnSegments(file_name, &plan->selection);
      if (!segments.ok() || !*segments) continue;  // stats are hints: the filter still runs
      auto& column_runs = runs[table_name];
      for (auto& segment : **segments) {
        StatsRun run;
        run.rows = segment.rows;
        run.stats.min = std::move(segment.min);
        run.stats.max = std::move(segment.max);
        run.stats.null_count = segment.null_count;
        column_runs.push_back(std::move(run));
      }
    }
  }
  if (runs.empty() && !fields.count(system_fields::kRowId)) return Status::OK();
  plan->selection = MayMatchPositions(predicate, plan->selection, runs, plan->range.from);
  plan->num_rows = 0;
  for (const auto& r : plan->selection) plan->num_rows += r.count();
  return Status::OK();
}

}  // namespace paimon_rowid
