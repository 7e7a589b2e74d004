// TableRead's two-phase filtered read of a group (table_read.h; the statistics side is
// read/stats_filter.h): prune by file statistics, read the predicate's columns, filter
// exactly, then read the other columns for the surviving rows.
#include <algorithm>

#include "arrow/api.h"
#include "arrow/compute/api.h"
#include "paimon_rowid/read/table_read.h"

namespace paimon_rowid {
namespace cp = arrow::compute;

namespace {

int64_t CountRows(const std::vector<RowRange>& ranges) {
  int64_t n = 0;
  for (const auto& r : ranges) n += r.count();
  return n;
}

Status FilterColumns(const arrow::Datum& mask, cp::ExecContext* ctx,
                     std::map<std::string, std::shared_ptr<arrow::ChunkedArray>>* columns) {
  for (auto& [name, column] : *columns) {
    ARROW_ASSIGN_OR_RAISE(auto kept, cp::Filter(column, mask, cp::FilterOptions::Defaults(), ctx));
    column = kept.chunked_array();
  }
  return Status::OK();
}

}  // namespace

Result<std::optional<TableRead::ColumnMap>> TableRead::ReadFiltered(const DataSplit& split,
                                                                    const FileGroup& group,
                                                                    GroupReadPlan* plan,
                                                                    GroupFileReaders* files) const {
  const Predicate& predicate = *options_.predicate;
  // 1. Rows the statistics of the predicate columns' files exclude are never decoded.
  ARROW_RETURN_NOT_OK(PruneByFileStats(predicate, table_->schema(), files, plan));
  if (plan->num_rows == 0) return std::nullopt;

  // 2. The predicate's columns, and the exact filter on them.
  ARROW_ASSIGN_OR_RAISE(ColumnMap columns,
                        ReadSupplies(*plan, &predicate_fields_, plan->selection, files));
  ARROW_ASSIGN_OR_RAISE(auto batch, Assemble(split, group, *plan, predicate_schema_, &columns));
  cp::ExecContext ctx(options_.pool);
  ARROW_ASSIGN_OR_RAISE(auto input, cp::MakeExecBatch(*predicate_schema_, batch));
  ARROW_ASSIGN_OR_RAISE(arrow::Datum mask,
                        cp::ExecuteScalarExpression(predicate_expr_, input, &ctx));
  ARROW_ASSIGN_OR_RAISE(std::vector<RowRange> survivors, SelectByMask(plan->selection, mask));
  const int64_t kept = CountRows(survivors);
  if (kept == 0) return std::nullopt;
  const bool all_kept = kept == plan->num_rows;
  if (!all_kept) ARROW_RETURN_NOT_OK(FilterColumns(mask, &ctx, &columns));

  // 3. The other columns: for the surviving rows only when few survive (pages without any
  // are not decoded, string columns are gathered value by value); else for all selected rows
  // (a read by position of most rows costs more than one filter pass), then filtered.
  std::set<std::string> rest;
  for (const auto& name : needed_fields_) {
    if (!predicate_fields_.count(name)) rest.insert(name);
  }
  const bool late = kept * 2 <= plan->num_rows;
  std::vector<RowRange> selected = std::move(plan->selection);
  plan->selection = survivors;
  plan->num_rows = kept;
  if (!rest.empty()) {
    ARROW_ASSIGN_OR_RAISE(ColumnMap more,
                          ReadSupplies(*plan, &rest, late ? survivors : selected, files));
    if (!late && !all_kept) ARROW_RETURN_NOT_OK(FilterColumns(mask, &ctx, &more));
    for (auto& [name, column] : more) columns[name] = std::move(column);
  }
  return columns;
}

}  // namespace paimon_rowid
