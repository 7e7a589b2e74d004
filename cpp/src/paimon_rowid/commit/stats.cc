#include "paimon_rowid/commit/stats.h"

#include "arrow/array.h"
#include "arrow/builder.h"
#include "arrow/compute/api_aggregate.h"
#include "arrow/compute/initialize.h"
#include "arrow/scalar.h"
#include "paimon_rowid/codec/binary_row.h"

namespace paimon_rowid {
namespace {

// (min, max) of the non-null values of `array`; both null scalars when there are none.
Result<std::pair<std::shared_ptr<arrow::Scalar>, std::shared_ptr<arrow::Scalar>>> MinMaxOf(
    const std::shared_ptr<arrow::Array>& array) {
  arrow::compute::ScalarAggregateOptions opts(/*skip_nulls=*/true, /*min_count=*/1);
  ARROW_ASSIGN_OR_RAISE(arrow::Datum result, arrow::compute::MinMax(array, opts));
  const auto& pair = result.scalar_as<arrow::StructScalar>();
  return std::make_pair(pair.value[0], pair.value[1]);
}

Result<std::shared_ptr<arrow::Array>> ArrayOf(const std::shared_ptr<arrow::DataType>& type,
                                              const std::vector<std::shared_ptr<arrow::Scalar>>& values) {
  std::unique_ptr<arrow::ArrayBuilder> builder;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), type, &builder));
  ARROW_RETURN_NOT_OK(builder->AppendScalars(values));
  return builder->Finish();
}

}  // namespace

Status EnsureComputeInitialized() {
  static const Status status = arrow::compute::Initialize();
  return status;
}

bool SupportsStats(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kVariant:
    case TypeRoot::kBlob:
    case TypeRoot::kArray:
    case TypeRoot::kMap:
    case TypeRoot::kMultiset:
    case TypeRoot::kRow:
    case TypeRoot::kVector:
      return false;
    default:
      return true;
  }
}

StatsCollector::StatsCollector(std::vector<std::shared_ptr<arrow::DataType>> types)
    : types_(std::move(types)),
      mins_(types_.size()),
      maxs_(types_.size()),
      null_counts_(types_.size(), 0) {}

Status StatsCollector::Update(const std::vector<std::shared_ptr<arrow::Array>>& columns) {
  if (columns.size() != types_.size()) return Status::Invalid("stats: column count mismatch");
  for (size_t i = 0; i < columns.size(); ++i) {
    const auto& col = columns[i];
    null_counts_[i] += col->null_count();
    if (col->length() == col->null_count()) continue;
    ARROW_ASSIGN_OR_RAISE(auto mm, MinMaxOf(col));
    mins_[i].push_back(std::move(mm.first));
    maxs_[i].push_back(std::move(mm.second));
  }
  return Status::OK();
}

Status StatsCollector::UpdateScalars(const std::vector<std::shared_ptr<arrow::Scalar>>& values) {
  if (values.size() != types_.size()) return Status::Invalid("stats: column count mismatch");
  for (size_t i = 0; i < values.size(); ++i) {
    if (!values[i] || !values[i]->is_valid) {
      ++null_counts_[i];
      continue;
    }
    mins_[i].push_back(values[i]);
    maxs_[i].push_back(values[i]);
  }
  return Status::OK();
}

Result<SimpleStats> StatsCollector::Finish() const {
  std::vector<std::shared_ptr<arrow::Scalar>> mins, maxs;
  std::vector<std::optional<int64_t>> nulls;
  for (size_t i = 0; i < types_.size(); ++i) {
    nulls.push_back(null_counts_[i]);
    if (mins_[i].empty()) {
      mins.push_back(arrow::MakeNullScalar(types_[i]));
      maxs.push_back(arrow::MakeNullScalar(types_[i]));
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto min_array, ArrayOf(types_[i], mins_[i]));
    ARROW_ASSIGN_OR_RAISE(auto max_array, ArrayOf(types_[i], maxs_[i]));
    ARROW_ASSIGN_OR_RAISE(auto lo, MinMaxOf(min_array));
    ARROW_ASSIGN_OR_RAISE(auto hi, MinMaxOf(max_array));
    mins.push_back(lo.first);
    maxs.push_back(hi.second);
  }
  SimpleStats stats;
  ARROW_ASSIGN_OR_RAISE(stats.min_values, EncodeBinaryRow(mins));
  ARROW_ASSIGN_OR_RAISE(stats.max_values, EncodeBinaryRow(maxs));
  stats.null_counts = std::move(nulls);
  return stats;
}

}  // namespace paimon_rowid
