// Splitting a batch of rows by where they are written: by partition values (Arrow's Grouper,
// never row by row) and, on fixed-bucket tables, by bucket (the table's bucket function,
// catalog/bucket_spec.h). Each piece keeps its rows' input order.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "arrow/scalar.h"
#include "paimon_rowid/catalog/bucket_spec.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

struct PartitionPiece {
  std::vector<std::shared_ptr<arrow::Scalar>> values;  // the partition values, key order
  std::shared_ptr<arrow::RecordBatch> rows;
};

/// The rows of `batch` per distinct combination of the `key_columns` (first-seen order).
/// No key columns: one piece with every row and no values.
Result<std::vector<PartitionPiece>> SplitByPartition(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::vector<int>& key_columns,
    arrow::MemoryPool* pool);

struct BucketPiece {
  int32_t bucket = 0;
  std::shared_ptr<arrow::RecordBatch> rows;
};

/// The rows of `batch` per bucket of `spec` (ascending bucket), hashing the `key_columns`
/// (bucket-key order). A bucket-unaware spec gives one piece in bucket 0.
Result<std::vector<BucketPiece>> SplitByBucket(const std::shared_ptr<arrow::RecordBatch>& batch,
                                               const std::vector<int>& key_columns,
                                               const BucketSpec& spec, arrow::MemoryPool* pool);

}  // namespace paimon_rowid
