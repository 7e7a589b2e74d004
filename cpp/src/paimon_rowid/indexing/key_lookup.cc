#include "paimon_rowid/indexing/key_lookup.h"

#include <arrow/array/builder_primitive.h>
#include <arrow/compute/api_vector.h>
#include <arrow/compute/cast.h>

#include <algorithm>
#include <numeric>

#include "paimon_rowid/gindex/btree_file.h"
#include "paimon_rowid/read/table_read.h"
#include "paimon_rowid/scan/deletion_files.h"
#include "paimon_rowid/scan/global_index_scan.h"
#include "paimon_rowid/scan/plan.h"

namespace paimon_rowid {
namespace {

// Whether the index of the column may answer: trusted, on a data-evolution table.
Result<bool> IndexTrusted(const Table& table) {
  if (!table.data_evolution_enabled()) return false;
  return GlobalIndexesTrusted(table);
}

// Reads `fields` of `pinned` at `ranges` (nullopt: every row), filtered by `predicate`.
Result<std::shared_ptr<arrow::Table>> ReadRows(const std::shared_ptr<const Table>& pinned,
                                               std::vector<std::string> fields,
                                               std::shared_ptr<Predicate> predicate,
                                               std::optional<std::vector<RowRange>> ranges) {
  ScanPlanner planner(pinned);
  if (predicate) planner.WithPredicate(predicate);
  if (ranges) planner.WithRowRanges(std::move(*ranges));
  ARROW_ASSIGN_OR_RAISE(ScanPlan plan, planner.Plan());
  ReadOptions options;
  options.fields = std::move(fields);
  options.predicate = std::move(predicate);
  options.threads = 0;
  ARROW_ASSIGN_OR_RAISE(auto reader, TableRead::Make(pinned, options));
  ARROW_ASSIGN_OR_RAISE(auto batches, reader->Read(std::move(plan.splits)));
  return batches->ToTable();
}

std::vector<RowRange> Complement(const std::vector<RowRange>& covered, int64_t last) {
  std::vector<RowRange> out;
  int64_t next = 0;
  for (const RowRange& r : covered) {
    if (r.from > last) break;
    if (r.from > next) out.push_back({next, r.from - 1});
    next = std::max(next, r.to + 1);
  }
  if (next <= last) out.push_back({next, last});
  return out;
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> LookupRowIds(std::shared_ptr<const Table> table,
                                                   const arrow::Array& keys,
                                                   const std::string& key_column,
                                                   RowIdLookupStats* stats) {
  RowIdLookupStats local;
  RowIdLookupStats& st = stats != nullptr ? *stats : local;
  st = RowIdLookupStats{};
  if (!table->row_tracking_enabled()) {
    return Status::Invalid("lookup_row_ids needs row tracking: table '",
                           table->identifier().FullName(), "' does not set row-tracking.enabled");
  }
  const DataField* field = table->schema().FieldByName(key_column);
  if (field == nullptr) {
    return Status::Invalid("Column '", key_column, "' does not exist in table '",
                           table->identifier().FullName(), "'.");
  }
  const auto arrow_type = field->type->ToArrow();
  std::shared_ptr<arrow::Array> cast = arrow::MakeArray(keys.data());
  if (!cast->type()->Equals(*arrow_type)) {
    auto converted = arrow::compute::Cast(*cast, arrow_type);
    if (!converted.ok()) {
      return Status::Invalid("lookup_row_ids: keys of type ", cast->type()->ToString(),
                             " cannot be cast to column '", key_column, "' (",
                             arrow_type->ToString(), "): ", converted.status().message());
    }
    cast = *converted;
  }
  auto out_schema = arrow::schema(
      {arrow::field(key_column, arrow_type), arrow::field("_ROW_ID", arrow::int64())});
  ARROW_ASSIGN_OR_RAISE(auto snapshot, table->ResolveSnapshot());
  if (!snapshot || cast->length() == cast->null_count() || !snapshot->next_row_id ||
      *snapshot->next_row_id <= 0) {
    return arrow::Table::MakeEmpty(out_schema);
  }
  ARROW_ASSIGN_OR_RAISE(
      std::shared_ptr<const Table> pinned,
      table->Copy({{"scan.snapshot-id", std::to_string(snapshot->id)},
                   {Table::kReadSchemaIdOption, std::to_string(table->schema().id)},
                   {"scan.tag-name", std::nullopt},
                   {"scan.timestamp-millis", std::nullopt},
                   {"global-index.enabled", "false"}}));
  ARROW_ASSIGN_OR_RAISE(auto in_predicate, Predicate::Leaf(Predicate::Op::kIn, key_column, cast));

  std::vector<std::shared_ptr<arrow::Table>> parts;
  std::optional<std::vector<RowRange>> scan_ranges;  // nullopt: the whole table
  ARROW_ASSIGN_OR_RAISE(bool trusted, IndexTrusted(*table));
  auto codec = KeyCodec::Make(*field->type);
  std::vector<IndexManifestEntry> files;
  // A lossy key (TIMESTAMP(7..9)) may match rows of other values: those keys are scanned.
  if (trusted && codec.ok() && !codec->lossy()) {
    ARROW_ASSIGN_OR_RAISE(files, LiveSortedIndexFiles(*table, *snapshot, field->id));
  }
  if (!files.empty()) {
    st.index_used = true;
    // The distinct non-null keys in codec order, with their positions in `cast`.
    std::vector<std::pair<std::string, int64_t>> encoded;
    for (int64_t i = 0; i < cast->length(); ++i) {
      if (cast->IsNull(i)) continue;
      std::string key;
      ARROW_RETURN_NOT_OK(codec->Append(*cast, i, &key));
      encoded.emplace_back(std::move(key), i);
    }
    std::stable_sort(encoded.begin(), encoded.end(), [&](const auto& a, const auto& b) {
      return codec->Compare(a.first, b.first) < 0;
    });
    encoded.erase(std::unique(encoded.begin(), encoded.end(),
                              [&](const auto& a, const auto& b) {
                                return codec->Compare(a.first, b.first) == 0;
                              }),
                  encoded.end());
    std::vector<std::string> sorted_keys;
    sorted_keys.reserve(encoded.size());
    for (const auto& e : encoded) sorted_keys.push_back(e.first);
    std::vector<std::pair<int64_t, int64_t>> matches;  // (row id, position in `cast`)
    ARROW_ASSIGN_OR_RAISE(
        GlobalIndexLookup found,
        MatchSortedKeys(*table, *codec, files, sorted_keys, [&](size_t k, int64_t id) {
          matches.emplace_back(id, encoded[k].second);
        }));
    st.index_files_read = found.files_read;
    std::sort(matches.begin(), matches.end());
    matches.erase(std::unique(matches.begin(), matches.end(),
                              [](const auto& a, const auto& b) { return a.first == b.first; }),
                  matches.end());
    if (!matches.empty()) {
      // The live check: `_ROW_ID` alone is derived from the plan, so this read decodes no
      // data page; it drops ids of removed files and deletion-vector positions.
      std::vector<RowRange> wanted;
      for (const auto& m : matches) wanted.push_back({m.first, m.first});
      ARROW_ASSIGN_OR_RAISE(
          auto live, ReadRows(pinned, {"_ROW_ID"}, nullptr, SortAndMerge(std::move(wanted))));
      ARROW_ASSIGN_OR_RAISE(live, live->CombineChunks());
      std::vector<int64_t> live_ids;
      if (live->num_rows() > 0) {
        const auto& ids = static_cast<const arrow::Int64Array&>(*live->column(0)->chunk(0));
        live_ids.assign(ids.raw_values(), ids.raw_values() + ids.length());
        std::sort(live_ids.begin(), live_ids.end());
      }
      arrow::Int64Builder row_ids, positions;
      for (const auto& [id, position] : matches) {
        if (!std::binary_search(live_ids.begin(), live_ids.end(), id)) continue;
        ARROW_RETURN_NOT_OK(row_ids.Append(id));
        ARROW_RETURN_NOT_OK(positions.Append(position));
      }
      ARROW_ASSIGN_OR_RAISE(auto id_array, row_ids.Finish());
      ARROW_ASSIGN_OR_RAISE(auto position_array, positions.Finish());
      ARROW_ASSIGN_OR_RAISE(arrow::Datum key_values, arrow::compute::Take(cast, position_array));
      st.index_rows = id_array->length();
      parts.push_back(arrow::Table::Make(out_schema, {key_values.make_array(), id_array}));
    }
    scan_ranges = Complement(found.covered, *snapshot->next_row_id - 1);
  }
  if (!scan_ranges || !scan_ranges->empty()) {
    st.scanned_ranges = scan_ranges ? static_cast<int64_t>(scan_ranges->size()) : -1;
    ARROW_ASSIGN_OR_RAISE(auto scanned,
                          ReadRows(pinned, {key_column, "_ROW_ID"}, in_predicate, scan_ranges));
    st.scanned_rows = scanned->num_rows();
    parts.push_back(arrow::Table::Make(out_schema, {scanned->column(0), scanned->column(1)},
                                       scanned->num_rows()));
  }
  if (parts.empty()) return arrow::Table::MakeEmpty(out_schema);
  ARROW_ASSIGN_OR_RAISE(auto all, arrow::ConcatenateTables(parts));
  ARROW_ASSIGN_OR_RAISE(auto order, arrow::compute::SortIndices(
                                        *all->column(1), arrow::compute::SortOrder::Ascending));
  ARROW_ASSIGN_OR_RAISE(arrow::Datum sorted, arrow::compute::Take(all, order));
  return sorted.table()->CombineChunks();
}

}  // namespace paimon_rowid
