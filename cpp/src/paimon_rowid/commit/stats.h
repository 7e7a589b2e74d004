// Min/max/null-count statistics over Arrow columns, encoded as Paimon SimpleStats (format doc
// §3.5, §3.6): the value stats of data files and the partition stats of manifest files.
// Values are full and untruncated. Only atomic types whose BinaryRow layout is defined take
// part (see SupportsStats); the caller decides which columns to collect.
#pragma once

#include <memory>
#include <vector>

#include "arrow/type_fwd.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/meta/manifest.h"
#include "paimon_rowid/types/data_type.h"

namespace paimon_rowid {

/// Registers Arrow's compute kernels (min_max, cast, take, ...) once per process; every
/// entry point of write/ and commit/ calls it.
Status EnsureComputeInitialized();

/// True for the Paimon types value stats are collected for: atomic, not VARIANT, not BLOB.
bool SupportsStats(const DataType& type);

class StatsCollector {
 public:
  /// One Arrow type per collected column (the types of the arrays passed to Update).
  explicit StatsCollector(std::vector<std::shared_ptr<arrow::DataType>> types);

  /// Folds one chunk of each column in (`columns[i]` has type `types[i]`).
  Status Update(const std::vector<std::shared_ptr<arrow::Array>>& columns);
  /// Folds single values in (partition values), one scalar per column.
  Status UpdateScalars(const std::vector<std::shared_ptr<arrow::Scalar>>& values);

  /// The stats rows (arity = number of columns). A column without non-null values has null
  /// min/max.
  Result<SimpleStats> Finish() const;

 private:
  std::vector<std::shared_ptr<arrow::DataType>> types_;
  std::vector<std::vector<std::shared_ptr<arrow::Scalar>>> mins_, maxs_;
  std::vector<int64_t> null_counts_;
};

}  // namespace paimon_rowid
