// Global-index keys: the bytes a btree or bitmap index file stores for one column value, and
// their order (docs/global-index.md §"Keys"). The layout is pypaimon 2.1.0's and Java Paimon's
// KeySerializer:
//
//   BOOLEAN 1 byte 0/1 · TINYINT/SMALLINT/INT/BIGINT/DATE little-endian two's complement of
//   their width (DATE: i32 epoch days) · FLOAT/DOUBLE IEEE-754 little-endian · CHAR/VARCHAR/
//   STRING the UTF-8 bytes · TIME i32 LE milliseconds of the day · TIMESTAMP and TIMESTAMP
//   WITH LOCAL TIME ZONE: i64 LE epoch milliseconds (floored), then for precision > 3 a varint
//   of the nanoseconds within the millisecond; pypaimon keeps microseconds, so precision 7..9
//   values lose their last three digits and such keys are *lossy* · DECIMAL(p, s) the unscaled
//   value: i64 LE for p <= 18, else its shortest big-endian two's complement (Java's
//   BigInteger.toByteArray).
//
// Keys are compared as the values they encode, never as raw bytes: little-endian integers do
// not sort bytewise. Floats order NaN above every number and treat -0.0 and 0.0 as equal
// (pypaimon's comparator). BINARY and nested types have no key (Invalid, as in pypaimon).
//
// A KeyCodec is immutable and thread-safe.
#pragma once

#include <arrow/array.h>

#include <memory>
#include <string>
#include <string_view>

#include "paimon_rowid/common/status.h"
#include "paimon_rowid/types/data_type.h"

namespace paimon_rowid {

class KeyCodec {
 public:
  /// The codec of a column of `type`. Invalid for types no global index accepts.
  static Result<KeyCodec> Make(const DataType& type);

  TypeRoot root() const { return root_; }
  /// Whether distinct values can share a key (TIMESTAMP(7..9): nanoseconds dropped). A lossy
  /// key answers `=` / `IN` and inclusive ranges with a superset; exclusive bounds and
  /// negations must not trust it.
  bool lossy() const { return nanos_per_unit_ == 1; }

  /// Appends the key of the non-null `array[i]` to `out`. REQUIRES: `array` holds the Arrow
  /// type the column's Paimon type maps to (a string column may be utf8, large_utf8 or
  /// string_view). TypeError otherwise.
  Status Append(const arrow::Array& array, int64_t i, std::string* out) const;
  /// The key of a scalar (a predicate's literal), cast to the column's type first.
  Result<std::string> FromScalar(const arrow::Scalar& scalar) const;

  /// <0, 0, >0 as the values `a` and `b` encode compare. REQUIRES: both are keys of this
  /// codec (a key of the wrong width compares as its available bytes; readers validate keys
  /// they take from files with `Validate`).
  int Compare(std::string_view a, std::string_view b) const;
  /// Invalid unless `key` is a well-formed key of this codec.
  Status Validate(std::string_view key) const;

 private:
  KeyCodec(TypeRoot root, std::shared_ptr<arrow::DataType> arrow_type)
      : root_(root), arrow_type_(std::move(arrow_type)) {}
  // The fixed key width, 0 for variable-width keys.
  size_t Width() const;
  TypeRoot root_;
  std::shared_ptr<arrow::DataType> arrow_type_;
  int32_t decimal_precision_ = 0;
  int64_t nanos_per_unit_ = 0;  // TIMESTAMP: the Arrow unit in nanoseconds
  bool sub_millis_ = false;     // TIMESTAMP precision > 3: the nanosecond varint follows
};

}  // namespace paimon_rowid
