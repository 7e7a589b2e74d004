#include "paimon_rowid/scan/partition_filter.h"

#include <algorithm>
#include <set>

#include "arrow/api.h"
#include "arrow/compute/api.h"
#include "paimon_rowid/exec/compute.h"
#include "paimon_rowid/scan/partition.h"

namespace paimon_rowid {

Result<std::unique_ptr<PartitionFilter>> PartitionFilter::Make(const TableSchema& schema,
                                                               const Predicate* predicate) {
  std::unique_ptr<PartitionFilter> filter(new PartitionFilter());
  if (!predicate) return filter;
  ARROW_RETURN_NOT_OK(EnsureComputeInitialized());
  ARROW_ASSIGN_OR_RAISE(filter->fields_, PartitionFields(schema));
  std::set<std::string> read;
  predicate->CollectFields(&read);
  for (const auto& name : read) {
    const auto& keys = schema.partition_keys;
    if (std::find(keys.begin(), keys.end(), name) == keys.end()) {
      return Status::Invalid("partition filter reads '", name, "', which is not a partition key",
                             keys.empty() ? " (the table is not partitioned)" : "");
    }
  }
  std::vector<std::shared_ptr<arrow::Field>> arrow_fields;
  for (const auto& f : filter->fields_) arrow_fields.push_back(f.ToArrow());
  filter->schema_ = arrow::schema(std::move(arrow_fields));
  ARROW_ASSIGN_OR_RAISE(auto expr, predicate->ToExpression());
  ARROW_ASSIGN_OR_RAISE(filter->bound_, expr.Bind(*filter->schema_));
  return filter;
}

Result<bool> PartitionFilter::Matches(const std::string& partition_bytes) {
  namespace cp = arrow::compute;
  if (!bound_) return true;
  auto it = decided_.find(partition_bytes);
  if (it != decided_.end()) return it->second;
  ARROW_ASSIGN_OR_RAISE(auto values, DecodePartition(partition_bytes, fields_));
  // The partition's values as a one-row batch, typed as the schema's fields.
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int i = 0; i < schema_->num_fields(); ++i) {
    const auto& type = schema_->field(i)->type();
    std::shared_ptr<arrow::Scalar> v = static_cast<size_t>(i) < values.size() ? values[i] : nullptr;
    if (!v) v = arrow::MakeNullScalar(type);
    ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*v, 1));
    if (!array->type()->Equals(*type)) {
      ARROW_ASSIGN_OR_RAISE(array, cp::Cast(*array, type));
    }
    columns.push_back(std::move(array));
  }
  auto batch = arrow::RecordBatch::Make(schema_, 1, std::move(columns));
  ARROW_ASSIGN_OR_RAISE(auto input, cp::MakeExecBatch(*schema_, batch));
  ARROW_ASSIGN_OR_RAISE(auto mask, cp::ExecuteScalarExpression(*bound_, input));
  bool hit = false;
  if (mask.is_scalar()) {
    const auto& s = mask.scalar_as<arrow::BooleanScalar>();
    hit = s.is_valid && s.value;
  } else {
    auto array = std::static_pointer_cast<arrow::BooleanArray>(mask.make_array());
    hit = array->IsValid(0) && array->Value(0);
  }
  decided_.emplace(partition_bytes, hit);
  return hit;
}

}  // namespace paimon_rowid
