// Which partitions a predicate on partition keys selects (a static partition overwrite, a
// partition delete), decided exactly on each partition's values decoded from the manifest's
// BinaryRow, once per distinct partition.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "arrow/compute/expression.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/scan/predicate.h"
#include "paimon_rowid/types/table_schema.h"

namespace paimon_rowid {

class PartitionFilter {
 public:
  /// `predicate` reads partition keys of `schema` only (Invalid naming the first other field);
  /// nullptr selects every partition. The filter keeps no reference to it.
  static Result<std::unique_ptr<PartitionFilter>> Make(const TableSchema& schema,
                                                       const Predicate* predicate);

  /// Whether the partition serialized as `partition_bytes` is selected (SQL nulls: a
  /// comparison with a null partition value does not match; is_null does). Not thread-safe.
  Result<bool> Matches(const std::string& partition_bytes);

 private:
  PartitionFilter() = default;
  std::vector<DataField> fields_;
  std::shared_ptr<arrow::Schema> schema_;
  std::optional<arrow::compute::Expression> bound_;  // unset: every partition
  std::map<std::string, bool> decided_;
};

}  // namespace paimon_rowid
