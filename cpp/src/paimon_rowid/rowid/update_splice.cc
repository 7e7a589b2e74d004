#include <algorithm>

#include "arrow/array/concatenate.h"
#include "paimon_rowid/read/group_plan.h"
#include "paimon_rowid/read/stats_filter.h"
#include "paimon_rowid/rowid/column_splice.h"
#include "paimon_rowid/rowid/update_splice_internal.h"
#include "paimon_rowid/scan/plan.h"

namespace paimon_rowid::rowid_internal {

bool MaySplice(const std::vector<int64_t>& positions, int64_t n) {
  if (positions.empty() || n <= 0) return false;
  const int64_t span = positions.back() - positions.front() + 1;
  // Clustered (a block of rows), or sparse enough that most pages hold none.
  return span * 2 <= n || static_cast<int64_t>(positions.size()) * 256 <= n;
}

Result<bool> WriteSplicedPart(const std::shared_ptr<const Table>& table, const RowIdIndex& index,
                              size_t g, const std::vector<std::string>& columns,
                              const std::vector<std::shared_ptr<arrow::Array>>& values,
                              const std::vector<int64_t>& positions, GroupFileReaders* files,
                              AppendWriter* writer, arrow::MemoryPool* pool) {
  const RowIdIndex::Group& group = index.groups()[g];
  // Which file holds each column's current values (the newest holding it, as a read
  // resolves them). Anything the plan refuses is left to the whole write, which reports it.
  SchemaCache schemas(table);
  auto plan = PlanGroupRead(table->schema(), columns, group.files, std::nullopt,
                            [&](int64_t id) { return schemas.Get(id); });
  if (!plan.ok() || !plan->has_value()) return false;
  std::vector<ParquetPageSplice::Column> sources;
  for (const auto& name : columns) {
    const DataFileMeta* file = nullptr;
    std::string in_file;
    for (const auto& supply : (*plan)->supplies) {
      for (const auto& [field, file_column] : supply.columns) {
        if (field == name) {
          file = supply.file;
          in_file = file_column;
        }
      }
    }
    // A column no file holds yet (added since) reads as NULL: nothing to copy.
    if (file == nullptr) return false;
    ARROW_ASSIGN_OR_RAISE(ParquetFileReader * reader, files->Get(*file));
    sources.push_back({reader, in_file, positions});
  }
  ARROW_ASSIGN_OR_RAISE(auto splice, writer->PlanSplice(sources));
  if (!splice) return false;
  // The new values of each re-encoded run: its current rows with the updates spliced in.
  std::vector<std::vector<std::shared_ptr<arrow::Array>>> runs(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    for (const RowRange& rows : splice->rewritten_rows(c)) {
      const std::vector<RowRange> selection{rows};
      ARROW_ASSIGN_OR_RAISE(auto current, sources[c].source->Read({sources[c].name}, &selection));
      std::shared_ptr<arrow::Array> old;
      if (current->column(0)->num_chunks() == 1) {
        old = current->column(0)->chunk(0);
      } else {
        ARROW_ASSIGN_OR_RAISE(old, arrow::Concatenate(current->column(0)->chunks(), pool));
      }
      const auto lo = std::lower_bound(positions.begin(), positions.end(), rows.from);
      const auto hi = std::upper_bound(positions.begin(), positions.end(), rows.to);
      std::vector<int64_t> local;
      local.reserve(static_cast<size_t>(hi - lo));
      for (auto it = lo; it != hi; ++it) local.push_back(*it - rows.from);
      auto updates = values[c]->Slice(lo - positions.begin(), hi - lo);
      if (!updates->type()->Equals(*old->type())) return false;
      ARROW_ASSIGN_OR_RAISE(auto merged, SpliceColumn(old, local, updates, pool));
      runs[c].push_back(std::move(merged));
    }
  }
  ARROW_RETURN_NOT_OK(writer->WriteSplice(splice.get(), runs));
  return true;
}

}  // namespace paimon_rowid::rowid_internal
