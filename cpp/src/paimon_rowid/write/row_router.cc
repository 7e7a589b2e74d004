#include "paimon_rowid/write/row_router.h"

#include "arrow/array.h"
#include "arrow/builder.h"
#include "arrow/compute/api_vector.h"
#include "arrow/compute/exec.h"
#include "arrow/compute/row/grouper.h"

namespace paimon_rowid {

Result<std::vector<PartitionPiece>> SplitByPartition(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::vector<int>& key_columns,
    arrow::MemoryPool* pool) {
  std::vector<PartitionPiece> out;
  if (key_columns.empty()) {
    out.push_back({{}, batch});
    return out;
  }
  std::vector<arrow::TypeHolder> key_types;
  std::vector<arrow::Datum> keys;
  for (int idx : key_columns) {
    key_types.emplace_back(batch->column(idx)->type());
    keys.emplace_back(batch->column(idx));
  }
  arrow::compute::ExecContext ctx(pool);
  ARROW_ASSIGN_OR_RAISE(auto grouper, arrow::compute::Grouper::Make(key_types, &ctx));
  arrow::compute::ExecBatch key_batch(std::move(keys), batch->num_rows());
  ARROW_ASSIGN_OR_RAISE(arrow::Datum group_ids,
                        grouper->Consume(arrow::compute::ExecSpan(key_batch)));
  uint32_t num_groups = grouper->num_groups();
  ARROW_ASSIGN_OR_RAISE(arrow::compute::ExecBatch uniques, grouper->GetUniques());
  std::vector<std::shared_ptr<arrow::Array>> unique_columns;
  for (const auto& v : uniques.values) unique_columns.push_back(v.make_array());
  auto values_of = [&](uint32_t g) -> Result<std::vector<std::shared_ptr<arrow::Scalar>>> {
    std::vector<std::shared_ptr<arrow::Scalar>> values;
    for (const auto& col : unique_columns) {
      ARROW_ASSIGN_OR_RAISE(auto s, col->GetScalar(g));
      values.push_back(std::move(s));
    }
    return values;
  };
  if (num_groups == 1) {
    ARROW_ASSIGN_OR_RAISE(auto values, values_of(0));
    out.push_back({std::move(values), batch});
    return out;
  }
  auto ids = std::static_pointer_cast<arrow::UInt32Array>(group_ids.make_array());
  ARROW_ASSIGN_OR_RAISE(auto groupings,
                        arrow::compute::Grouper::MakeGroupings(*ids, num_groups, &ctx));
  for (uint32_t g = 0; g < num_groups; ++g) {
    ARROW_ASSIGN_OR_RAISE(arrow::Datum taken,
                          arrow::compute::Take(batch, groupings->value_slice(g),
                                               arrow::compute::TakeOptions::Defaults(), &ctx));
    ARROW_ASSIGN_OR_RAISE(auto values, values_of(g));
    out.push_back({std::move(values), taken.record_batch()});
  }
  return out;
}

Result<std::vector<BucketPiece>> SplitByBucket(const std::shared_ptr<arrow::RecordBatch>& batch,
                                               const std::vector<int>& key_columns,
                                               const BucketSpec& spec, arrow::MemoryPool* pool) {
  std::vector<BucketPiece> out;
  if (!spec.fixed() || key_columns.empty()) {
    out.push_back({0, batch});
    return out;
  }
  std::vector<std::shared_ptr<arrow::Array>> keys;
  for (int idx : key_columns) keys.push_back(batch->column(idx));
  ARROW_ASSIGN_OR_RAISE(std::vector<int32_t> of_row,
                        spec.function->Buckets(keys, spec.num_buckets));
  // Counting sort of the row indices by bucket.
  std::vector<int64_t> start(static_cast<size_t>(spec.num_buckets) + 1, 0);
  for (int32_t b : of_row) ++start[b + 1];
  int32_t used = 0, only = 0;
  for (int32_t b = 0; b < spec.num_buckets; ++b) {
    if (start[b + 1] > 0) ++used, only = b;
    start[b + 1] += start[b];
  }
  if (used <= 1) {
    out.push_back({only, batch});
    return out;
  }
  std::vector<int64_t> indices(static_cast<size_t>(batch->num_rows()));
  std::vector<int64_t> next(start.begin(), start.end() - 1);
  for (int64_t i = 0; i < batch->num_rows(); ++i) indices[next[of_row[i]]++] = i;
  arrow::Int64Builder builder(pool);
  ARROW_RETURN_NOT_OK(builder.AppendValues(indices));
  ARROW_ASSIGN_OR_RAISE(auto sorted, builder.Finish());
  arrow::compute::ExecContext ctx(pool);
  for (int32_t b = 0; b < spec.num_buckets; ++b) {
    int64_t n = start[b + 1] - start[b];
    if (n == 0) continue;
    ARROW_ASSIGN_OR_RAISE(arrow::Datum taken,
                          arrow::compute::Take(batch, sorted->Slice(start[b], n),
                                               arrow::compute::TakeOptions::Defaults(), &ctx));
    out.push_back({b, taken.record_batch()});
  }
  return out;
}

}  // namespace paimon_rowid
