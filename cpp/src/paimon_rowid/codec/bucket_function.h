// Bucket functions of fixed-bucket tables (`bucket` > 0): which bucket a row's bucket-key
// values go to, exactly as Java Paimon's BucketFunction implementations choose
// (`bucket-function.type`, docs/format.md "Fixed buckets"):
//   * default: Math.abs(BinaryRow(key).hashCode() % n), the hash being Murmur3-32 over the
//     row's 4-byte little-endian words with seed 42 (MurmurHashUtils.hashBytesByWords);
//   * mod:     Math.floorMod(key, n) for one INT or BIGINT key;
//   * hive:    Hive's ObjectInspectorUtils hash (31 * h + field hash), masked positive, mod n;
//              integers, BOOLEAN, FLOAT, DOUBLE, DATE, strings and binary keys.
// A null key value hashes as Java's does (default: the null bit of the BinaryRow; mod: 0;
// hive: 0).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/type_fwd.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

/// Java's MurmurHashUtils.hashBytesByWords (seed 42); `len` must be a multiple of 4.
int32_t HashBytesByWords(std::string_view bytes);

enum class BucketFunctionType { kDefault, kMod, kHive };

/// Parses `bucket-function.type` ("default", "mod", "hive"; case-insensitive as Java's enum
/// options). Anything else is Invalid.
Result<BucketFunctionType> ParseBucketFunctionType(std::string_view value);

class BucketFunction {
 public:
  /// Invalid when the key types do not suit the function (mod: one INT or BIGINT key; hive:
  /// no DECIMAL, TIMESTAMP or TIME), NotImplemented when a type has no BinaryRow layout.
  static Result<std::shared_ptr<const BucketFunction>> Make(
      BucketFunctionType type, const std::vector<std::shared_ptr<arrow::DataType>>& key_types);

  BucketFunctionType type() const { return type_; }

  /// The bucket of every row of `keys` (the bucket-key columns, in key order, equally long),
  /// in [0, num_buckets).
  Result<std::vector<int32_t>> Buckets(const std::vector<std::shared_ptr<arrow::Array>>& keys,
                                       int32_t num_buckets) const;

 private:
  explicit BucketFunction(BucketFunctionType type) : type_(type) {}
  BucketFunctionType type_;
};

}  // namespace paimon_rowid
