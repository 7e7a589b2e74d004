// DataType and DataField themselves: construction, the SQL string form (ToString), equality,
// blob nesting checks, field ids and the system fields. The SQL parser is in
// data_type_sql.cc, JSON in data_type_json.cc and the Arrow mapping in data_type_arrow.cc.
#include "paimon_rowid/types/data_type.h"

#include <algorithm>
#include <cctype>

#include "paimon_rowid/types/data_type_internal.h"

namespace paimon_rowid {

// Builds DataType values; the only code that writes DataType's private members.
struct DataTypeBuilder {
  static std::shared_ptr<DataType> Make(TypeRoot root, bool nullable) {
    return std::make_shared<DataType>(root, nullable);
  }
  static DataTypePtr Sized(TypeRoot root, bool nullable, int32_t length, int32_t precision,
                           int32_t scale) {
    auto t = Make(root, nullable);
    t->length_ = length;
    t->precision_ = precision;
    t->scale_ = scale;
    return t;
  }
  static DataTypePtr Nested(TypeRoot root, bool nullable, std::vector<DataTypePtr> children,
                            int32_t length = 0) {
    auto t = Make(root, nullable);
    t->children_ = std::move(children);
    t->length_ = length;
    return t;
  }
  static DataTypePtr RowOf(std::vector<DataField> fields, bool nullable) {
    auto t = Make(TypeRoot::kRow, nullable);
    t->fields_ = std::move(fields);
    return t;
  }
  static DataTypePtr CopyWithNullable(const DataType& type, bool nullable) {
    auto t = std::make_shared<DataType>(type);
    t->nullable_ = nullable;
    return t;
  }
};

namespace {

bool IsVectorElement(TypeRoot root) {
  switch (root) {
    case TypeRoot::kBoolean:
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
    case TypeRoot::kFloat:
    case TypeRoot::kDouble:
      return true;
    default:
      return false;
  }
}

std::string WithNullability(std::string sql, bool nullable) {
  if (!nullable) sql += " NOT NULL";
  return sql;
}

// Java's EncodingUtils.escapeIdentifier: `name` with backticks doubled.
std::string EscapeIdentifier(const std::string& name) {
  std::string out = "`";
  for (char c : name) {
    out += c;
    if (c == '`') out += '`';
  }
  return out + "`";
}

std::string EscapeSingleQuotes(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out;
}

}  // namespace

namespace data_type_internal {

std::string Upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

Status CheckPrecision(TypeRoot root, int64_t precision, int64_t scale) {
  switch (root) {
    case TypeRoot::kDecimal:
      if (precision < 1 || precision > 38) {
        return Status::Invalid("Decimal precision must be between 1 and 38 (both inclusive), got ",
                               precision);
      }
      if (scale < 0 || scale > precision) {
        return Status::Invalid("Decimal scale must be between 0 and the precision ", precision,
                               " (both inclusive), got ", scale);
      }
      return Status::OK();
    case TypeRoot::kTime:
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      if (precision < 0 || precision > 9) {
        return Status::Invalid(
            "Time/timestamp precision must be between 0 and 9 (both inclusive), "
            "got ",
            precision);
      }
      return Status::OK();
    default:
      return Status::OK();
  }
}

Status CheckVector(const DataTypePtr& element, int64_t length) {
  if (length < 1 || length > DataType::kMaxLength) {
    return Status::Invalid("Vector length must be greater than or equal to 1, got ", length);
  }
  if (!IsVectorElement(element->root())) {
    return Status::Invalid("Invalid element type for vector: ", element->ToString());
  }
  return Status::OK();
}

}  // namespace data_type_internal

// ------------------------------------------------------------------------------------------
// DataType

DataType::DataType(TypeRoot root, bool nullable) : root_(root), nullable_(nullable) {}

DataTypePtr DataType::Atomic(TypeRoot root, bool nullable) {
  switch (root) {
    case TypeRoot::kDecimal:
      return Decimal(10, 0, nullable);
    case TypeRoot::kChar:
    case TypeRoot::kBinary:
      return Char(root, 1, nullable);
    case TypeRoot::kVarChar:
    case TypeRoot::kVarBinary:
      return Char(root, kMaxLength, nullable);
    case TypeRoot::kTime:
      return Temporal(root, 0, nullable);
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return Temporal(root, 6, nullable);
    default:
      return DataTypeBuilder::Make(root, nullable);
  }
}

DataTypePtr DataType::Decimal(int32_t precision, int32_t scale, bool nullable) {
  return DataTypeBuilder::Sized(TypeRoot::kDecimal, nullable, 0, precision, scale);
}

DataTypePtr DataType::Char(TypeRoot root, int32_t length, bool nullable) {
  return DataTypeBuilder::Sized(root, nullable, length, 0, 0);
}

DataTypePtr DataType::Temporal(TypeRoot root, int32_t precision, bool nullable) {
  return DataTypeBuilder::Sized(root, nullable, 0, precision, 0);
}

DataTypePtr DataType::Array(DataTypePtr element, bool nullable) {
  return DataTypeBuilder::Nested(TypeRoot::kArray, nullable, {std::move(element)});
}

DataTypePtr DataType::Multiset(DataTypePtr element, bool nullable) {
  return DataTypeBuilder::Nested(TypeRoot::kMultiset, nullable, {std::move(element)});
}

DataTypePtr DataType::Map(DataTypePtr key, DataTypePtr value, bool nullable) {
  return DataTypeBuilder::Nested(TypeRoot::kMap, nullable, {std::move(key), std::move(value)});
}

DataTypePtr DataType::Row(std::vector<DataField> fields, bool nullable) {
  return DataTypeBuilder::RowOf(std::move(fields), nullable);
}

DataTypePtr DataType::Vector(DataTypePtr element, int32_t length, bool nullable) {
  return DataTypeBuilder::Nested(TypeRoot::kVector, nullable, {std::move(element)}, length);
}

bool DataType::is_nested() const {
  switch (root_) {
    case TypeRoot::kArray:
    case TypeRoot::kMap:
    case TypeRoot::kMultiset:
    case TypeRoot::kRow:
    case TypeRoot::kVector:
      return true;
    default:
      return false;
  }
}

bool DataType::holds_blob() const {
  if (root_ == TypeRoot::kBlob) return true;
  if (root_ == TypeRoot::kArray) return element()->is_blob();
  if (root_ == TypeRoot::kMap) return value()->is_blob();
  return false;
}

bool DataType::contains_blob() const {
  switch (root_) {
    case TypeRoot::kBlob:
      return true;
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kVector:
      return element()->contains_blob();
    case TypeRoot::kMap:
      return key()->contains_blob() || value()->contains_blob();
    case TypeRoot::kRow:
      return std::any_of(fields_.begin(), fields_.end(),
                         [](const DataField& f) { return f.type->contains_blob(); });
    default:
      return false;
  }
}

Status CheckBlobNesting(const DataField& field) {
  if (field.type->holds_blob() || !field.type->contains_blob()) return Status::OK();
  return Status::Invalid("Field '", field.name, "' has unsupported nested BLOB type ",
                         field.type->ToString(),
                         ". BLOB is only supported as a top-level BLOB, ARRAY<BLOB>, or "
                         "MAP<X, BLOB> field.");
}

DataTypePtr DataType::WithNullable(bool nullable) const {
  return DataTypeBuilder::CopyWithNullable(*this, nullable);
}

std::string DataType::ToString() const {
  std::string sql;
  switch (root_) {
    case TypeRoot::kBoolean:
      sql = "BOOLEAN";
      break;
    case TypeRoot::kTinyInt:
      sql = "TINYINT";
      break;
    case TypeRoot::kSmallInt:
      sql = "SMALLINT";
      break;
    case TypeRoot::kInt:
      sql = "INT";
      break;
    case TypeRoot::kBigInt:
      sql = "BIGINT";
      break;
    case TypeRoot::kFloat:
      sql = "FLOAT";
      break;
    case TypeRoot::kDouble:
      sql = "DOUBLE";
      break;
    case TypeRoot::kDecimal:
      sql = "DECIMAL(" + std::to_string(precision_) + ", " + std::to_string(scale_) + ")";
      break;
    case TypeRoot::kChar:
      sql = "CHAR(" + std::to_string(length_) + ")";
      break;
    case TypeRoot::kVarChar:
      sql = length_ == kMaxLength ? "STRING" : "VARCHAR(" + std::to_string(length_) + ")";
      break;
    case TypeRoot::kBinary:
      sql = "BINARY(" + std::to_string(length_) + ")";
      break;
    case TypeRoot::kVarBinary:
      sql = length_ == kMaxLength ? "BYTES" : "VARBINARY(" + std::to_string(length_) + ")";
      break;
    case TypeRoot::kDate:
      sql = "DATE";
      break;
    case TypeRoot::kTime:
      sql = "TIME(" + std::to_string(precision_) + ")";
      break;
    case TypeRoot::kTimestamp:
      sql = "TIMESTAMP(" + std::to_string(precision_) + ")";
      break;
    case TypeRoot::kTimestampLtz:
      sql = "TIMESTAMP(" + std::to_string(precision_) + ") WITH LOCAL TIME ZONE";
      break;
    case TypeRoot::kVariant:
      sql = "VARIANT";
      break;
    case TypeRoot::kBlob:
      sql = "BLOB";
      break;
    case TypeRoot::kArray:
      sql = "ARRAY<" + element()->ToString() + ">";
      break;
    case TypeRoot::kMultiset:
      sql = "MULTISET<" + element()->ToString() + ">";
      break;
    case TypeRoot::kMap:
      sql = "MAP<" + key()->ToString() + ", " + value()->ToString() + ">";
      break;
    case TypeRoot::kVector:
      sql = "VECTOR<" + element()->ToString() + ", " + std::to_string(length_) + ">";
      break;
    case TypeRoot::kRow: {
      sql = "ROW<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i > 0) sql += ", ";
        sql += EscapeIdentifier(fields_[i].name) + " " + fields_[i].type->ToString();
        if (fields_[i].description) {
          sql += " COMMENT '" + EscapeSingleQuotes(*fields_[i].description) + "'";
        }
      }
      sql += ">";
      break;
    }
  }
  return WithNullability(std::move(sql), nullable_);
}

bool DataType::Equals(const DataType& other) const {
  if (root_ != other.root_ || nullable_ != other.nullable_ || length_ != other.length_ ||
      precision_ != other.precision_ || scale_ != other.scale_ ||
      children_.size() != other.children_.size() || fields_.size() != other.fields_.size()) {
    return false;
  }
  for (size_t i = 0; i < children_.size(); ++i) {
    if (!children_[i]->Equals(*other.children_[i])) return false;
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i].Equals(other.fields_[i])) return false;
  }
  return true;
}

// ------------------------------------------------------------------------------------------
// DataField
bool DataField::Equals(const DataField& other) const {
  return id == other.id && name == other.name && description == other.description &&
         default_value == other.default_value && type && other.type && type->Equals(*other.type);
}

namespace {

void CollectMaxId(const DataType& type, int32_t* max_id) {
  for (const auto& f : type.fields()) {
    if (f.id < system_fields::kSystemFieldIdStart) *max_id = std::max(*max_id, f.id);
    CollectMaxId(*f.type, max_id);
  }
  if (type.root() == TypeRoot::kArray || type.root() == TypeRoot::kMultiset ||
      type.root() == TypeRoot::kVector) {
    CollectMaxId(*type.element(), max_id);
  } else if (type.root() == TypeRoot::kMap) {
    CollectMaxId(*type.key(), max_id);
    CollectMaxId(*type.value(), max_id);
  }
}

// Java's ReassignFieldId / pypaimon's reassign_field_id: within a type, each ROW field's
// children are numbered before the field itself.
void ReassignIds(std::shared_ptr<const DataType>* type, int32_t* next_id) {
  const DataType& t = **type;
  switch (t.root()) {
    case TypeRoot::kRow: {
      std::vector<DataField> fields = t.fields();
      for (auto& f : fields) {
        ReassignIds(&f.type, next_id);
        f.id = (*next_id)++;
      }
      *type = DataType::Row(std::move(fields), t.nullable());
      return;
    }
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kVector: {
      DataTypePtr element = t.element();
      ReassignIds(&element, next_id);
      *type = t.root() == TypeRoot::kArray ? DataType::Array(element, t.nullable())
              : t.root() == TypeRoot::kMultiset
                  ? DataType::Multiset(element, t.nullable())
                  : DataType::Vector(element, t.length(), t.nullable());
      return;
    }
    case TypeRoot::kMap: {
      DataTypePtr key = t.key(), value = t.value();
      ReassignIds(&key, next_id);
      ReassignIds(&value, next_id);
      *type = DataType::Map(key, value, t.nullable());
      return;
    }
    default:
      return;
  }
}

}  // namespace

int32_t HighestFieldId(const std::vector<DataField>& fields) {
  int32_t max_id = -1;
  for (const auto& f : fields) {
    if (f.id < system_fields::kSystemFieldIdStart) max_id = std::max(max_id, f.id);
    if (f.type) CollectMaxId(*f.type, &max_id);
  }
  return max_id;
}

std::vector<DataField> AssignFieldIds(std::vector<DataField> fields, int32_t first_id) {
  int32_t next_id = first_id;
  for (auto& f : fields) {
    f.id = next_id++;
    ReassignIds(&f.type, &next_id);
  }
  return fields;
}

namespace system_fields {

bool IsSystemField(std::string_view name) { return name == kRowId || name == kSequenceNumber; }

DataField RowId() {
  return DataField{kRowIdFieldId, kRowId, DataType::Atomic(TypeRoot::kBigInt, false), std::nullopt,
                   std::nullopt};
}

DataField SequenceNumber() {
  return DataField{kSequenceNumberFieldId, kSequenceNumber,
                   DataType::Atomic(TypeRoot::kBigInt, false), std::nullopt, std::nullopt};
}

}  // namespace system_fields

}  // namespace paimon_rowid
