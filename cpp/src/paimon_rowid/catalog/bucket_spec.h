// The bucket layout of a table (docs/format.md "Fixed buckets"): bucket-unaware (`bucket` =
// -1, every file in bucket-0) or fixed (`bucket` = n > 0: each row in the bucket its
// bucket-key values hash to, under `bucket-function.type`). Writers route rows with it and the
// planner prunes buckets with it, so both agree with Java Paimon and pypaimon by construction.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "paimon_rowid/codec/bucket_function.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/types/table_schema.h"

namespace paimon_rowid {

inline constexpr const char* kBucketKeyOption = "bucket-key";
inline constexpr const char* kBucketFunctionTypeOption = "bucket-function.type";

struct BucketSpec {
  /// -1: bucket-unaware; n > 0: fixed.
  int32_t num_buckets = -1;
  /// The bucket-key columns in key order (fixed tables only).
  std::vector<std::string> keys;
  /// The raw `bucket-function.type` string ("default" when unset), as pypaimon compares it.
  std::string function_name = "default";
  std::shared_ptr<const BucketFunction> function;  // fixed tables only
  /// The Arrow types of the key columns (what the writer hashes; fixed tables only).
  std::vector<std::shared_ptr<arrow::DataType>> key_types;

  bool fixed() const { return num_buckets > 0; }

  /// Java's TableSchema.bucketKeys(): the `bucket-key` option (comma-separated, trimmed),
  /// else the primary keys minus the partition keys.
  static std::vector<std::string> BucketKeys(const TableSchema& schema);

  /// The layout of `schema`, validated as Java's SchemaValidation does (Invalid with Java's
  /// message): `bucket` is -1 or > 0 (-2, postpone, is NotImplemented); no `bucket-key` with
  /// bucket -1; a fixed append table has a bucket key of existing, atomic, non-partition
  /// columns that its bucket function accepts.
  static Result<BucketSpec> Of(const TableSchema& schema);
};

}  // namespace paimon_rowid
