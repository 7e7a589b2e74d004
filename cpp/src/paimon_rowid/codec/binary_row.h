// Paimon BinaryRow, the byte form of partition values and stats rows (docs/format.md §3.5).
//
// Values are exchanged as Arrow scalars; the Arrow type of each field decides its layout:
// bool, int8/16/32/64, float32/64, date32 (days), time32[ms] (millis of day), utf8, binary,
// large_binary, decimal128(p, s) (compact when p <= 18), timestamp (compact for s/ms units:
// epoch millis; us/ns units: millis in the var part plus nano-of-millisecond in the slot).
// The serialized form carries the 4-byte big-endian arity prefix used in manifests.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/type_fwd.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

/// The 12-byte serialized empty row (arity 0).
const std::string& EmptySerializedBinaryRow();

/// Arity of a serialized row (its 4-byte BE prefix); Invalid when shorter than 4 bytes.
Result<int32_t> SerializedBinaryRowArity(std::string_view serialized);

/// Decodes a serialized row. `types.size()` must equal the arity (Invalid otherwise). A null
/// field decodes to a null scalar of its type. Out-of-bounds offsets are Invalid, never a
/// crash.
Result<std::vector<std::shared_ptr<arrow::Scalar>>> DecodeBinaryRow(
    std::string_view serialized, const std::vector<std::shared_ptr<arrow::DataType>>& types);

/// Encodes `values` (their types give the layout; a null scalar sets the null bit).
Result<std::string> EncodeBinaryRow(const std::vector<std::shared_ptr<arrow::Scalar>>& values);

/// Encodes row after row of a set of equally long columns into one reused buffer, with the
/// layout EncodeBinaryRow gives the same values (RowKind INSERT) but WITHOUT the 4-byte arity
/// prefix: the bytes Java's BinaryRow.hashCode() hashes. Fixed-width and binary columns are
/// read straight from their buffers; decimals, timestamps and times go through scalars.
class BinaryRowEncoder {
 public:
  /// Invalid when the columns differ in length or a type has no BinaryRow layout.
  static Result<BinaryRowEncoder> Make(std::vector<std::shared_ptr<arrow::Array>> columns);

  int64_t num_rows() const { return num_rows_; }
  /// Row `i` (0 <= i < num_rows()); valid until the next call.
  Result<std::string_view> Row(int64_t i);

 private:
  BinaryRowEncoder() = default;
  std::vector<std::shared_ptr<arrow::Array>> columns_;
  int64_t num_rows_ = 0;
  std::string row_;
};

}  // namespace paimon_rowid
