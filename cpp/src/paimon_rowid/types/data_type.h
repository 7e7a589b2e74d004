// Paimon logical types (docs/format.md §1.4) and their mapping to Arrow.
//
// A DataType is an immutable tree shared through shared_ptr. It round-trips both Paimon
// encodings: the SQL string form used for atomic types ("BIGINT NOT NULL", "DECIMAL(10, 2)",
// "TIMESTAMP(6) WITH LOCAL TIME ZONE", also "TIMESTAMP_LTZ(6)" and "VECTOR<FLOAT, 128>") and
// the JSON object form used for ARRAY / MAP / MULTISET / ROW / VECTOR.
//
// Arrow mapping (chosen to equal pypaimon's, so tables compare equal across engines):
//   BOOLEAN bool; TINYINT int8; SMALLINT int16; INT int32; BIGINT int64; FLOAT float32;
//   DOUBLE float64; DECIMAL(p,s) decimal128(p,s); CHAR/VARCHAR/STRING utf8;
//   BINARY/VARBINARY/BYTES binary; BLOB large_binary; DATE date32; TIME(p) time32[ms];
//   TIMESTAMP(p) timestamp[s|ms|us|ns] for p = 0 | 1-3 | 4-6 | 7-9, no time zone;
//   TIMESTAMP_LTZ(p) the same unit with tz "UTC"; ARRAY list; MAP map; MULTISET map<T,int32>;
//   ROW struct; VECTOR<T,n> fixed_size_list<T,n>; VARIANT struct<value: binary, metadata: binary>.
// Nullability maps to Arrow field nullability.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/type_fwd.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

enum class TypeRoot {
  kBoolean,
  kTinyInt,
  kSmallInt,
  kInt,
  kBigInt,
  kFloat,
  kDouble,
  kDecimal,
  kChar,
  kVarChar,
  kBinary,
  kVarBinary,
  kDate,
  kTime,
  kTimestamp,
  kTimestampLtz,
  kVariant,
  kBlob,
  kArray,
  kMap,
  kMultiset,
  kRow,
  kVector,
};

struct DataField;
class DataType;
using DataTypePtr = std::shared_ptr<const DataType>;

class DataType {
 public:
  static constexpr int32_t kMaxLength = 2147483647;  // STRING = VARCHAR(kMaxLength)

  // Factories. Defaults follow Paimon: DECIMAL(10, 0), TIMESTAMP(6), TIME(0).
  static DataTypePtr Atomic(TypeRoot root, bool nullable = true);
  static DataTypePtr Decimal(int32_t precision, int32_t scale, bool nullable = true);
  static DataTypePtr Char(TypeRoot root, int32_t length,
                          bool nullable = true);  // CHAR/VARCHAR/BINARY/VARBINARY
  static DataTypePtr Temporal(TypeRoot root, int32_t precision,
                              bool nullable = true);  // TIME/TIMESTAMP/LTZ
  static DataTypePtr Array(DataTypePtr element, bool nullable = true);
  static DataTypePtr Multiset(DataTypePtr element, bool nullable = true);
  static DataTypePtr Map(DataTypePtr key, DataTypePtr value, bool nullable = true);
  static DataTypePtr Row(std::vector<DataField> fields, bool nullable = true);
  static DataTypePtr Vector(DataTypePtr element, int32_t length, bool nullable = true);

  /// Parses a type from its schema-JSON value: a string (SQL form) or an object.
  static Result<DataTypePtr> FromJson(const nlohmann::json& value);
  /// Parses the SQL string form, e.g. "DECIMAL(10, 2) NOT NULL", "ARRAY<INT>",
  /// "MAP<STRING, BIGINT>", "VECTOR<FLOAT, 4>", "ROW<a INT, b STRING>" (ROW fields get id -1).
  static Result<DataTypePtr> Parse(std::string_view sql);
  /// Maps an Arrow type to the Paimon type pypaimon's Schema.from_pyarrow_schema chooses:
  /// large_binary -> BLOB, binary -> BYTES, fixed_size_binary(n) -> BINARY(n),
  /// utf8/large_utf8 -> STRING, timestamp unit s/ms/us/ns -> precision 0/3/6/9 (with a tz ->
  /// TIMESTAMP_LTZ), time32/time64 -> TIME(0), fixed_size_list -> VECTOR, list/large_list ->
  /// ARRAY, map -> MAP, struct -> ROW (a {value, metadata} binary struct -> VARIANT).
  /// Nested ROW field ids are taken from `*next_field_id`, which is advanced depth-first as
  /// Paimon's Schema.Builder numbers them. A type without a Paimon type (unsigned integers,
  /// date64, null, dictionary, extension types -- also unregistered ones, seen as a child
  /// field carrying "ARROW:extension:name" metadata) is Invalid "Unsupported pyarrow type: T"
  /// naming the innermost such type, pypaimon's wording (the Python API shows it as is).
  static Result<DataTypePtr> FromArrow(const arrow::DataType& type, bool nullable,
                                       int32_t* next_field_id);

  TypeRoot root() const { return root_; }
  bool nullable() const { return nullable_; }
  int32_t length() const { return length_; }        // CHAR/VARCHAR/BINARY/VARBINARY, VECTOR
  int32_t precision() const { return precision_; }  // DECIMAL, TIME, TIMESTAMP(_LTZ)
  int32_t scale() const { return scale_; }          // DECIMAL
  const DataTypePtr& element() const { return children_[0]; }       // ARRAY, MULTISET, VECTOR
  const DataTypePtr& key() const { return children_[0]; }           // MAP
  const DataTypePtr& value() const { return children_[1]; }         // MAP
  const std::vector<DataField>& fields() const { return fields_; }  // ROW

  bool is_nested() const;
  /// True for BLOB (the only type whose values live in .blob files).
  bool is_blob() const { return root_ == TypeRoot::kBlob; }
  /// True for BLOB, ARRAY<BLOB> and MAP<_, BLOB>: columns stored in .blob files.
  bool holds_blob() const;
  /// True when a BLOB occurs anywhere in the type (also where it is not storable, e.g.
  /// ARRAY<ARRAY<BLOB>>, a ROW field or a MAP key).
  bool contains_blob() const;

  DataTypePtr WithNullable(bool nullable) const;
  /// The schema-JSON value: a string for atomic types, an object for nested ones (Java form).
  nlohmann::json ToJson() const;
  /// The same value with object keys in Java's order ("type" first), for writing files.
  nlohmann::ordered_json ToOrderedJson() const;
  /// The SQL string, e.g. "BIGINT NOT NULL", "ARRAY<INT>".
  std::string ToString() const;
  /// The Arrow type (see the table above). Never fails for a well-formed type. Carries no
  /// field-id metadata, so it equals pypaimon's PyarrowFieldParser.from_paimon_type.
  std::shared_ptr<arrow::DataType> ToArrow() const;
  /// As ToArrow, but nested ROW fields carry "PARQUET:field_id" metadata (for writers).
  std::shared_ptr<arrow::DataType> ToArrowWithFieldIds() const;

  /// Structural equality, including nullability and nested field ids/names.
  bool Equals(const DataType& other) const;

  // Defined in data_type.cc: DataField is incomplete here, and clang (unlike gcc) refuses
  // an inline constructor that would need std::vector<DataField>'s destructor.
  DataType(TypeRoot root, bool nullable);

 private:
  friend struct DataTypeBuilder;
  TypeRoot root_;
  bool nullable_ = true;
  int32_t length_ = 0;
  int32_t precision_ = 0;
  int32_t scale_ = 0;
  std::vector<DataTypePtr> children_;
  std::vector<DataField> fields_;
};

struct DataField {
  int32_t id = -1;
  std::string name;
  DataTypePtr type;
  std::optional<std::string> description;
  std::optional<std::string> default_value;

  static Result<DataField> FromJson(const nlohmann::json& value);
  nlohmann::json ToJson() const;
  nlohmann::ordered_json ToOrderedJson() const;  // Java key order
  /// An Arrow field named `name` with the type's nullability, equal to pypaimon's
  /// from_paimon_field: a non-empty description goes to metadata "description"; no field id.
  std::shared_ptr<arrow::Field> ToArrow() const;
  /// As ToArrow plus the Paimon field id under "PARQUET:field_id" (also on nested ROW
  /// fields), which Arrow's Parquet writer turns into Parquet field ids.
  std::shared_ptr<arrow::Field> ToArrowWithFieldIds() const;
  bool Equals(const DataField& other) const;
};

/// pypaimon's rule for where BLOB may appear: a top-level BLOB, ARRAY<BLOB> or MAP<K, BLOB>
/// column, nowhere else (Invalid naming the field otherwise).
Status CheckBlobNesting(const DataField& field);

/// The largest field id in `fields`, nested ROW fields included (system ids excluded);
/// -1 when there are none.
int32_t HighestFieldId(const std::vector<DataField>& fields);

/// Renumbers `fields` as Paimon's Schema.Builder does: each top-level field takes the next
/// id starting at `first_id`, then the ROW fields nested in its type are numbered from the
/// same counter, each field's children before the field itself.
std::vector<DataField> AssignFieldIds(std::vector<DataField> fields, int32_t first_id = 0);

/// The fields of an Arrow schema as pypaimon's Schema.from_pyarrow_schema builds them (ids
/// as AssignFieldIds, top-level "description" metadata kept). Invalid for unsupported Arrow
/// types, as DataType::FromArrow (a top-level extension field included).
Result<std::vector<DataField>> FieldsFromArrow(const arrow::Schema& schema);

/// System fields of row-tracking tables (docs/format.md §4.1).
namespace system_fields {
inline constexpr const char* kRowId = "_ROW_ID";
inline constexpr const char* kSequenceNumber = "_SEQUENCE_NUMBER";
inline constexpr int32_t kRowIdFieldId = 2147483642;
inline constexpr int32_t kSequenceNumberFieldId = 2147483646;
inline constexpr int32_t kSystemFieldIdStart = 1073741823;
bool IsSystemField(std::string_view name);
/// `_ROW_ID` / `_SEQUENCE_NUMBER` as BIGINT NOT NULL fields with their reserved ids.
DataField RowId();
DataField SequenceNumber();
}  // namespace system_fields

}  // namespace paimon_rowid
