#include "paimon_rowid/types/data_type.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <nlohmann/json.hpp>

#include "arrow/type.h"
#include "arrow/util/key_value_metadata.h"
#include "paimon_rowid/common/checked_json.h"

namespace paimon_rowid {

using nlohmann::json;
using nlohmann::ordered_json;

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

// Deeper nesting than this is rejected so that hostile input cannot exhaust the stack.
constexpr int kMaxNestingDepth = 64;

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

std::string Upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
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

Status CheckLength(int64_t length) {
  if (length < 1 || length > DataType::kMaxLength) {
    return Status::Invalid("Length must be between 1 and ", DataType::kMaxLength,
                           " (both inclusive), got ", length);
  }
  return Status::OK();
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

// ------------------------------------------------------------------------------------------
// SQL string parser (recursive descent over the characters).

class SqlTypeParser {
 public:
  explicit SqlTypeParser(std::string_view text) : text_(text) {}

  Result<DataTypePtr> ParseAll() {
    ARROW_ASSIGN_OR_RAISE(auto type, ParseType(0));
    SkipSpaces();
    if (pos_ != text_.size()) return Error("unexpected trailing text");
    return type;
  }

 private:
  Status Error(std::string_view what) const {
    return Status::Invalid("Cannot parse type '", text_, "': ", what, " at position ", pos_);
  }

  void SkipSpaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  static bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  // The next word, upper-cased, without consuming it ("" when none).
  std::string PeekWord() {
    SkipSpaces();
    size_t end = pos_;
    while (end < text_.size() && IsWordChar(text_[end])) ++end;
    return Upper(text_.substr(pos_, end - pos_));
  }

  std::string NextWord() {
    std::string word = PeekWord();
    pos_ += word.size();
    return word;
  }

  bool ConsumeKeyword(std::string_view keyword) {
    size_t saved = pos_;
    if (PeekWord() == keyword) {
      pos_ += keyword.size();
      return true;
    }
    pos_ = saved;
    return false;
  }

  Status ExpectKeyword(std::string_view keyword) {
    if (!ConsumeKeyword(keyword)) return Error(std::string("expected ") + std::string(keyword));
    return Status::OK();
  }

  bool Consume(char c) {
    SkipSpaces();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  Status Expect(char c) {
    if (!Consume(c)) return Error(std::string("expected '") + c + "'");
    return Status::OK();
  }

  Result<int64_t> ParseInt() {
    SkipSpaces();
    size_t end = pos_;
    while (end < text_.size() && std::isdigit(static_cast<unsigned char>(text_[end]))) ++end;
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + end, value);
    if (end == pos_ || ec != std::errc() || value > std::numeric_limits<int32_t>::max()) {
      return Error("expected a non-negative 32-bit integer");
    }
    pos_ = end;
    return value;
  }

  // "(n)" when present, else `fallback`.
  Result<int64_t> OptionalParenInt(int64_t fallback) {
    if (!Consume('(')) return fallback;
    ARROW_ASSIGN_OR_RAISE(int64_t value, ParseInt());
    ARROW_RETURN_NOT_OK(Expect(')'));
    return value;
  }

  // Reads "NOT NULL" / "NULL" after a type; true means nullable.
  bool ParseNullability() {
    size_t saved = pos_;
    if (ConsumeKeyword("NOT")) {
      if (ConsumeKeyword("NULL")) return false;
      pos_ = saved;
      return true;
    }
    ConsumeKeyword("NULL");
    return true;
  }

  Result<std::string> ParseIdentifier() {
    SkipSpaces();
    if (pos_ < text_.size() && (text_[pos_] == '`' || text_[pos_] == '"')) {
      char quote = text_[pos_++];
      std::string out;
      while (pos_ < text_.size()) {
        char c = text_[pos_++];
        if (c == quote) {
          if (pos_ < text_.size() && text_[pos_] == quote) {
            out += quote;
            ++pos_;
            continue;
          }
          return out;
        }
        out += c;
      }
      return Error("unterminated quoted identifier");
    }
    size_t start = pos_;
    while (pos_ < text_.size() && IsWordChar(text_[pos_])) ++pos_;
    if (pos_ == start) return Error("expected a field name");
    return std::string(text_.substr(start, pos_ - start));
  }

  Result<std::string> ParseStringLiteral() {
    SkipSpaces();
    if (pos_ >= text_.size() || text_[pos_] != '\'') return Error("expected a string literal");
    ++pos_;
    std::string out;
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == '\'') {
        if (pos_ < text_.size() && text_[pos_] == '\'') {
          out += '\'';
          ++pos_;
          continue;
        }
        return out;
      }
      out += c;
    }
    return Error("unterminated string literal");
  }

  Result<std::vector<DataField>> ParseRowFields(int depth, char close) {
    std::vector<DataField> fields;
    if (Consume(close)) return fields;
    do {
      DataField field;
      ARROW_ASSIGN_OR_RAISE(field.name, ParseIdentifier());
      Consume(':');  // pypaimon's str() form "name: TYPE"
      ARROW_ASSIGN_OR_RAISE(field.type, ParseType(depth + 1));
      if (ConsumeKeyword("COMMENT")) {
        ARROW_ASSIGN_OR_RAISE(auto comment, ParseStringLiteral());
        field.description = std::move(comment);
      }
      fields.push_back(std::move(field));
    } while (Consume(','));
    ARROW_RETURN_NOT_OK(Expect(close));
    return fields;
  }

  Result<DataTypePtr> ParseType(int depth) {
    if (depth > kMaxNestingDepth) return Error("type nesting is too deep");
    std::string word = NextWord();
    if (word.empty()) return Error("expected a type name");
    DataTypePtr base;
    if (word == "BOOLEAN") {
      base = DataType::Atomic(TypeRoot::kBoolean);
    } else if (word == "TINYINT") {
      base = DataType::Atomic(TypeRoot::kTinyInt);
    } else if (word == "SMALLINT") {
      base = DataType::Atomic(TypeRoot::kSmallInt);
    } else if (word == "INT" || word == "INTEGER") {
      base = DataType::Atomic(TypeRoot::kInt);
    } else if (word == "BIGINT") {
      base = DataType::Atomic(TypeRoot::kBigInt);
    } else if (word == "FLOAT") {
      base = DataType::Atomic(TypeRoot::kFloat);
    } else if (word == "DOUBLE") {
      ConsumeKeyword("PRECISION");
      base = DataType::Atomic(TypeRoot::kDouble);
    } else if (word == "DATE") {
      base = DataType::Atomic(TypeRoot::kDate);
    } else if (word == "VARIANT") {
      base = DataType::Atomic(TypeRoot::kVariant);
    } else if (word == "BLOB") {
      base = DataType::Atomic(TypeRoot::kBlob);
    } else if (word == "STRING") {
      base = DataType::Char(TypeRoot::kVarChar, DataType::kMaxLength);
    } else if (word == "BYTES") {
      base = DataType::Char(TypeRoot::kVarBinary, DataType::kMaxLength);
    } else if (word == "CHAR" || word == "VARCHAR" || word == "BINARY" || word == "VARBINARY") {
      TypeRoot root = word == "CHAR"      ? TypeRoot::kChar
                      : word == "VARCHAR" ? TypeRoot::kVarChar
                      : word == "BINARY"  ? TypeRoot::kBinary
                                          : TypeRoot::kVarBinary;
      ARROW_ASSIGN_OR_RAISE(int64_t length, OptionalParenInt(1));
      ARROW_RETURN_NOT_OK(CheckLength(length));
      base = DataType::Char(root, static_cast<int32_t>(length));
    } else if (word == "DECIMAL" || word == "DEC" || word == "NUMERIC") {
      int64_t precision = 10, scale = 0;
      if (Consume('(')) {
        ARROW_ASSIGN_OR_RAISE(precision, ParseInt());
        if (Consume(',')) {
          ARROW_ASSIGN_OR_RAISE(scale, ParseInt());
        }
        ARROW_RETURN_NOT_OK(Expect(')'));
      }
      ARROW_RETURN_NOT_OK(CheckPrecision(TypeRoot::kDecimal, precision, scale));
      base = DataType::Decimal(static_cast<int32_t>(precision), static_cast<int32_t>(scale));
    } else if (word == "TIME") {
      ARROW_ASSIGN_OR_RAISE(int64_t precision, OptionalParenInt(0));
      ARROW_RETURN_NOT_OK(CheckPrecision(TypeRoot::kTime, precision, 0));
      if (ConsumeKeyword("WITHOUT")) {
        ARROW_RETURN_NOT_OK(ExpectKeyword("TIME"));
        ARROW_RETURN_NOT_OK(ExpectKeyword("ZONE"));
      }
      base = DataType::Temporal(TypeRoot::kTime, static_cast<int32_t>(precision));
    } else if (word == "TIMESTAMP" || word == "TIMESTAMP_LTZ") {
      ARROW_ASSIGN_OR_RAISE(int64_t precision, OptionalParenInt(6));
      TypeRoot root = word == "TIMESTAMP" ? TypeRoot::kTimestamp : TypeRoot::kTimestampLtz;
      if (root == TypeRoot::kTimestamp) {
        if (ConsumeKeyword("WITHOUT")) {
          ARROW_RETURN_NOT_OK(ExpectKeyword("TIME"));
          ARROW_RETURN_NOT_OK(ExpectKeyword("ZONE"));
        } else if (ConsumeKeyword("WITH")) {
          ARROW_RETURN_NOT_OK(ExpectKeyword("LOCAL"));
          ARROW_RETURN_NOT_OK(ExpectKeyword("TIME"));
          ARROW_RETURN_NOT_OK(ExpectKeyword("ZONE"));
          root = TypeRoot::kTimestampLtz;
        }
      }
      ARROW_RETURN_NOT_OK(CheckPrecision(root, precision, 0));
      base = DataType::Temporal(root, static_cast<int32_t>(precision));
    } else if (word == "ARRAY" || word == "MULTISET") {
      ARROW_RETURN_NOT_OK(Expect('<'));
      ARROW_ASSIGN_OR_RAISE(auto element, ParseType(depth + 1));
      ARROW_RETURN_NOT_OK(Expect('>'));
      base = word == "ARRAY" ? DataType::Array(element) : DataType::Multiset(element);
    } else if (word == "MAP") {
      ARROW_RETURN_NOT_OK(Expect('<'));
      ARROW_ASSIGN_OR_RAISE(auto key, ParseType(depth + 1));
      ARROW_RETURN_NOT_OK(Expect(','));
      ARROW_ASSIGN_OR_RAISE(auto value, ParseType(depth + 1));
      ARROW_RETURN_NOT_OK(Expect('>'));
      base = DataType::Map(key, value);
    } else if (word == "VECTOR") {
      ARROW_RETURN_NOT_OK(Expect('<'));
      ARROW_ASSIGN_OR_RAISE(auto element, ParseType(depth + 1));
      ARROW_RETURN_NOT_OK(Expect(','));
      ARROW_ASSIGN_OR_RAISE(int64_t length, ParseInt());
      ARROW_RETURN_NOT_OK(Expect('>'));
      ARROW_RETURN_NOT_OK(CheckVector(element, length));
      base = DataType::Vector(element, static_cast<int32_t>(length));
    } else if (word == "ROW") {
      char close;
      if (Consume('<')) {
        close = '>';
      } else if (Consume('(')) {
        close = ')';
      } else {
        return Error("expected '<' after ROW");
      }
      ARROW_ASSIGN_OR_RAISE(auto fields, ParseRowFields(depth, close));
      base = DataType::Row(std::move(fields));
    } else {
      return Status::Invalid("Unknown type: ", word, " in '", text_, "'");
    }
    bool nullable = ParseNullability();
    return nullable ? base : base->WithNullable(false);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// ------------------------------------------------------------------------------------------
// JSON helpers: nlohmann's accessors throw on a type mismatch, so every access is checked.

Result<std::string> GetString(const json& obj, const char* key, const char* what) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) {
    return Status::Invalid(what, " needs a string '", key, "'");
  }
  return it->get<std::string>();
}

Result<std::optional<std::string>> GetOptionalString(const json& obj, const char* key,
                                                     const char* what) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) return Status::Invalid(what, " key '", key, "' must be a string");
  return std::optional<std::string>(it->get<std::string>());
}

Result<int64_t> GetInt(const json& obj, const char* key, const char* what) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_integer()) {
    return Status::Invalid(what, " needs an integer '", key, "'");
  }
  if (it->is_number_unsigned()) {
    auto v = it->get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Status::Invalid(what, " key '", key, "' is out of range");
    }
    return static_cast<int64_t>(v);
  }
  return it->get<int64_t>();
}

// For a nested type's "type" string ("ARRAY NOT NULL", pypaimon's "MAP<K, V>"): nullability
// is read from what follows the keyword and any "<...>" part, so a NOT NULL inside the
// angle brackets (a nested type's) is not mistaken for the outer one.
bool NestedTypeNullable(std::string_view type_string, size_t keyword_length) {
  std::string rest = Upper(type_string.substr(keyword_length));
  std::string outside;
  int angle = 0;
  for (char c : rest) {
    if (c == '<') {
      ++angle;
    } else if (c == '>') {
      if (angle > 0) --angle;
    } else if (angle == 0) {
      outside += c;
    }
  }
  return outside.find("NOT NULL") == std::string::npos;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

Result<DataTypePtr> TypeFromJson(const json& value, int depth);

Result<DataField> FieldFromJson(const json& value, int depth) {
  if (!value.is_object()) return Status::Invalid("a data field must be a JSON object");
  DataField field;
  ARROW_ASSIGN_OR_RAISE(int64_t id, GetInt(value, "id", "data field"));
  if (id < std::numeric_limits<int32_t>::min() || id > std::numeric_limits<int32_t>::max()) {
    return Status::Invalid("data field id ", id, " is out of range");
  }
  field.id = static_cast<int32_t>(id);
  ARROW_ASSIGN_OR_RAISE(field.name, GetString(value, "name", "data field"));
  auto type_it = value.find("type");
  if (type_it == value.end()) {
    return Status::Invalid("data field '", field.name, "' has no 'type'");
  }
  ARROW_ASSIGN_OR_RAISE(field.type, TypeFromJson(*type_it, depth + 1));
  ARROW_ASSIGN_OR_RAISE(field.description, GetOptionalString(value, "description", "data field"));
  ARROW_ASSIGN_OR_RAISE(field.default_value,
                        GetOptionalString(value, "defaultValue", "data field"));
  return field;
}

Result<DataTypePtr> ChildType(const json& obj, const char* key, int depth) {
  auto it = obj.find(key);
  if (it == obj.end()) return Status::Invalid("nested type needs '", key, "'");
  return TypeFromJson(*it, depth + 1);
}

Result<DataTypePtr> TypeFromJson(const json& value, int depth) {
  if (depth > kMaxNestingDepth) return Status::Invalid("type nesting is too deep");
  if (value.is_string()) return DataType::Parse(value.get<std::string>());
  if (!value.is_object()) {
    return Status::Invalid("a data type must be a JSON string or object, got ", value.type_name());
  }
  ARROW_ASSIGN_OR_RAISE(std::string type, GetString(value, "type", "data type"));
  // The head's keyword is matched in any case (pypaimon upper-cases it too).
  const std::string head = Upper(type);
  if (StartsWith(head, "ARRAY")) {
    ARROW_ASSIGN_OR_RAISE(auto element, ChildType(value, "element", depth));
    return DataType::Array(element, NestedTypeNullable(type, 5));
  }
  if (StartsWith(head, "MULTISET")) {
    ARROW_ASSIGN_OR_RAISE(auto element, ChildType(value, "element", depth));
    return DataType::Multiset(element, NestedTypeNullable(type, 8));
  }
  if (StartsWith(head, "VECTOR")) {
    ARROW_ASSIGN_OR_RAISE(auto element, ChildType(value, "element", depth));
    ARROW_ASSIGN_OR_RAISE(int64_t length, GetInt(value, "length", "VECTOR type"));
    ARROW_RETURN_NOT_OK(CheckVector(element, length));
    return DataType::Vector(element, static_cast<int32_t>(length), NestedTypeNullable(type, 6));
  }
  if (StartsWith(head, "MAP")) {
    ARROW_ASSIGN_OR_RAISE(auto key, ChildType(value, "key", depth));
    ARROW_ASSIGN_OR_RAISE(auto val, ChildType(value, "value", depth));
    return DataType::Map(key, val, NestedTypeNullable(type, 3));
  }
  if (StartsWith(head, "ROW")) {
    auto it = value.find("fields");
    if (it == value.end() || !it->is_array()) {
      return Status::Invalid("ROW type needs a 'fields' array");
    }
    std::vector<DataField> fields;
    for (const auto& f : *it) {
      // A field's type is one level below the ROW, as in the SQL parser (ParseRowFields);
      // counting the field as a level too refused the JSON of types the SQL form accepts.
      ARROW_ASSIGN_OR_RAISE(auto field, FieldFromJson(f, depth));
      fields.push_back(std::move(field));
    }
    return DataType::Row(std::move(fields), NestedTypeNullable(type, 3));
  }
  // pypaimon accepts an atomic SQL string wrapped in an object.
  return DataType::Parse(type);
}

// ------------------------------------------------------------------------------------------
// Arrow mapping.

arrow::TimeUnit::type UnitForPrecision(int32_t precision) {
  if (precision == 0) return arrow::TimeUnit::SECOND;
  if (precision <= 3) return arrow::TimeUnit::MILLI;
  if (precision <= 6) return arrow::TimeUnit::MICRO;
  return arrow::TimeUnit::NANO;
}

int32_t PrecisionForUnit(arrow::TimeUnit::type unit) {
  switch (unit) {
    case arrow::TimeUnit::SECOND:
      return 0;
    case arrow::TimeUnit::MILLI:
      return 3;
    case arrow::TimeUnit::MICRO:
      return 6;
    case arrow::TimeUnit::NANO:
      return 9;
  }
  return 6;
}

std::shared_ptr<arrow::KeyValueMetadata> FieldMetadata(const DataField& field, bool with_id) {
  std::vector<std::string> keys, values;
  if (with_id) {
    keys.push_back("PARQUET:field_id");
    values.push_back(std::to_string(field.id));
  }
  if (field.description && !field.description->empty()) {
    keys.push_back("description");
    values.push_back(*field.description);
  }
  if (keys.empty()) return nullptr;
  return arrow::key_value_metadata(std::move(keys), std::move(values));
}

std::shared_ptr<arrow::DataType> ToArrowImpl(const DataType& type, bool with_ids);

std::shared_ptr<arrow::Field> FieldToArrow(const DataField& field, bool with_ids, bool top_level) {
  // Nested ROW fields carry no description metadata (pypaimon only sets it at top level).
  DataField meta_source = field;
  if (!top_level) meta_source.description.reset();
  return arrow::field(field.name, ToArrowImpl(*field.type, with_ids), field.type->nullable(),
                      FieldMetadata(meta_source, with_ids));
}

std::shared_ptr<arrow::DataType> ToArrowImpl(const DataType& type, bool with_ids) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return arrow::boolean();
    case TypeRoot::kTinyInt:
      return arrow::int8();
    case TypeRoot::kSmallInt:
      return arrow::int16();
    case TypeRoot::kInt:
      return arrow::int32();
    case TypeRoot::kBigInt:
      return arrow::int64();
    case TypeRoot::kFloat:
      return arrow::float32();
    case TypeRoot::kDouble:
      return arrow::float64();
    case TypeRoot::kDecimal:
      return arrow::decimal128(type.precision(), type.scale());
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return arrow::utf8();
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return arrow::binary();
    case TypeRoot::kBlob:
      return arrow::large_binary();
    case TypeRoot::kDate:
      return arrow::date32();
    case TypeRoot::kTime:
      return arrow::time32(arrow::TimeUnit::MILLI);
    case TypeRoot::kTimestamp:
      return arrow::timestamp(UnitForPrecision(type.precision()));
    case TypeRoot::kTimestampLtz:
      return arrow::timestamp(UnitForPrecision(type.precision()), "UTC");
    case TypeRoot::kVariant:
      return arrow::struct_({arrow::field("value", arrow::binary(), /*nullable=*/false),
                             arrow::field("metadata", arrow::binary(), /*nullable=*/false)});
    case TypeRoot::kArray:
      return arrow::list(
          arrow::field("item", ToArrowImpl(*type.element(), with_ids), type.element()->nullable()));
    case TypeRoot::kMultiset:
      return arrow::map(ToArrowImpl(*type.element(), with_ids),
                        arrow::field("value", arrow::int32(), /*nullable=*/false));
    case TypeRoot::kMap:
      return std::make_shared<arrow::MapType>(
          arrow::field("key", ToArrowImpl(*type.key(), with_ids), /*nullable=*/false),
          arrow::field("value", ToArrowImpl(*type.value(), with_ids), type.value()->nullable()));
    case TypeRoot::kRow: {
      arrow::FieldVector children;
      for (const auto& f : type.fields()) {
        children.push_back(FieldToArrow(f, with_ids, /*top_level=*/false));
      }
      return arrow::struct_(std::move(children));
    }
    case TypeRoot::kVector:
      // pyarrow.list_(T, n): the element field is "item", always nullable.
      return arrow::fixed_size_list(ToArrowImpl(*type.element(), with_ids), type.length());
  }
  return arrow::null();
}

bool IsVariantStruct(const arrow::StructType& type) {
  if (type.num_fields() != 2) return false;
  for (const char* name : {"value", "metadata"}) {
    auto f = type.GetFieldByName(name);
    if (!f || f->type()->id() != arrow::Type::BINARY || f->nullable()) return false;
  }
  return true;
}

// pypaimon's wording, which the Python API shows for Arrow types without a Paimon type.
Status UnsupportedArrowType(const std::string& type_name) {
  return Status::Invalid("Unsupported pyarrow type: ", type_name);
}

// An extension type whose C++ class is not registered (e.g. one defined in Python) reaches
// C++ through the C data interface as its storage type plus this metadata on its field.
// pypaimon refuses every extension type, so the storage type must not be mapped instead.
Status CheckNotExtension(const arrow::Field& field) {
  if (field.type()->id() == arrow::Type::EXTENSION) {
    return UnsupportedArrowType(field.type()->ToString());
  }
  const auto& metadata = field.metadata();
  if (metadata == nullptr) return Status::OK();
  const int index = metadata->FindKey("ARROW:extension:name");
  if (index < 0) return Status::OK();
  return UnsupportedArrowType("extension<" + metadata->value(index) + ">");
}

// Java's ReassignFieldId / pypaimon's reassign_field_id: within a type, each ROW field's
// children are numbered before the field itself.
void ReassignIds(std::shared_ptr<const DataType>* type, int32_t* next_id);

}  // namespace

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

Result<DataTypePtr> DataType::FromJson(const nlohmann::json& value) {
  return CatchJsonErrors("malformed data type JSON: ", [&]() -> Result<DataTypePtr> {
    return TypeFromJson(value, 0);
  });
}

Result<DataTypePtr> DataType::Parse(std::string_view sql) { return SqlTypeParser(sql).ParseAll(); }

Result<DataTypePtr> DataType::FromArrow(const arrow::DataType& type, bool nullable,
                                        int32_t* next_field_id) {
  switch (type.id()) {
    case arrow::Type::INT8:
      return Atomic(TypeRoot::kTinyInt, nullable);
    case arrow::Type::INT16:
      return Atomic(TypeRoot::kSmallInt, nullable);
    case arrow::Type::INT32:
      return Atomic(TypeRoot::kInt, nullable);
    case arrow::Type::INT64:
      return Atomic(TypeRoot::kBigInt, nullable);
    case arrow::Type::FLOAT:
      return Atomic(TypeRoot::kFloat, nullable);
    case arrow::Type::DOUBLE:
      return Atomic(TypeRoot::kDouble, nullable);
    case arrow::Type::BOOL:
      return Atomic(TypeRoot::kBoolean, nullable);
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
      return Char(TypeRoot::kVarChar, kMaxLength, nullable);
    case arrow::Type::FIXED_SIZE_BINARY:
      return Char(TypeRoot::kBinary,
                  static_cast<const arrow::FixedSizeBinaryType&>(type).byte_width(), nullable);
    case arrow::Type::BINARY:
      return Char(TypeRoot::kVarBinary, kMaxLength, nullable);
    case arrow::Type::LARGE_BINARY:
      return Atomic(TypeRoot::kBlob, nullable);
    case arrow::Type::DECIMAL32:
    case arrow::Type::DECIMAL64:
    case arrow::Type::DECIMAL128:
    case arrow::Type::DECIMAL256: {
      const auto& dec = static_cast<const arrow::DecimalType&>(type);
      ARROW_RETURN_NOT_OK(CheckPrecision(TypeRoot::kDecimal, dec.precision(), dec.scale()));
      return Decimal(dec.precision(), dec.scale(), nullable);
    }
    case arrow::Type::TIMESTAMP: {
      const auto& ts = static_cast<const arrow::TimestampType&>(type);
      return Temporal(ts.timezone().empty() ? TypeRoot::kTimestamp : TypeRoot::kTimestampLtz,
                      PrecisionForUnit(ts.unit()), nullable);
    }
    case arrow::Type::DATE32:
      return Atomic(TypeRoot::kDate, nullable);
    case arrow::Type::TIME32:
    case arrow::Type::TIME64:
      return Temporal(TypeRoot::kTime, 0, nullable);
    case arrow::Type::FIXED_SIZE_LIST: {
      const auto& list = static_cast<const arrow::FixedSizeListType&>(type);
      ARROW_RETURN_NOT_OK(CheckNotExtension(*list.value_field()));
      ARROW_ASSIGN_OR_RAISE(auto element, FromArrow(*list.value_type(),
                                                    list.value_field()->nullable(), next_field_id));
      ARROW_RETURN_NOT_OK(CheckVector(element, list.list_size()));
      return Vector(element, list.list_size(), nullable);
    }
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST: {
      const auto& list = static_cast<const arrow::BaseListType&>(type);
      ARROW_RETURN_NOT_OK(CheckNotExtension(*list.value_field()));
      ARROW_ASSIGN_OR_RAISE(auto element, FromArrow(*list.value_type(),
                                                    list.value_field()->nullable(), next_field_id));
      return Array(element, nullable);
    }
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(type);
      ARROW_RETURN_NOT_OK(CheckNotExtension(*map.key_field()));
      ARROW_RETURN_NOT_OK(CheckNotExtension(*map.item_field()));
      ARROW_ASSIGN_OR_RAISE(auto key,
                            FromArrow(*map.key_type(), map.key_field()->nullable(), next_field_id));
      ARROW_ASSIGN_OR_RAISE(
          auto value, FromArrow(*map.item_type(), map.item_field()->nullable(), next_field_id));
      return Map(key, value, nullable);
    }
    case arrow::Type::STRUCT: {
      const auto& st = static_cast<const arrow::StructType&>(type);
      if (IsVariantStruct(st)) return Atomic(TypeRoot::kVariant, nullable);
      std::vector<DataField> fields;
      for (int i = 0; i < st.num_fields(); ++i) {
        const auto& child = st.field(i);
        ARROW_RETURN_NOT_OK(CheckNotExtension(*child));
        DataField field;
        field.name = child->name();
        // Children first, then the field itself (Java's ReassignFieldId order).
        ARROW_ASSIGN_OR_RAISE(field.type,
                              FromArrow(*child->type(), child->nullable(), next_field_id));
        field.id = next_field_id ? (*next_field_id)++ : i;
        fields.push_back(std::move(field));
      }
      return Row(std::move(fields), nullable);
    }
    default:
      return UnsupportedArrowType(type.ToString());
  }
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

nlohmann::json DataType::ToJson() const { return nlohmann::json(ToOrderedJson()); }

nlohmann::ordered_json DataType::ToOrderedJson() const {
  const char* suffix = nullable_ ? "" : " NOT NULL";
  ordered_json out;
  switch (root_) {
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
      out["type"] = std::string(root_ == TypeRoot::kArray ? "ARRAY" : "MULTISET") + suffix;
      out["element"] = element()->ToOrderedJson();
      return out;
    case TypeRoot::kVector:
      out["type"] = std::string("VECTOR") + suffix;
      out["element"] = element()->ToOrderedJson();
      out["length"] = length_;
      return out;
    case TypeRoot::kMap:
      out["type"] = std::string("MAP") + suffix;
      out["key"] = key()->ToOrderedJson();
      out["value"] = value()->ToOrderedJson();
      return out;
    case TypeRoot::kRow: {
      out["type"] = std::string("ROW") + suffix;
      ordered_json fields = ordered_json::array();
      for (const auto& f : fields_) fields.push_back(f.ToOrderedJson());
      out["fields"] = std::move(fields);
      return out;
    }
    default:
      return ToString();
  }
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

std::shared_ptr<arrow::DataType> DataType::ToArrow() const {
  return ToArrowImpl(*this, /*with_ids=*/false);
}

std::shared_ptr<arrow::DataType> DataType::ToArrowWithFieldIds() const {
  return ToArrowImpl(*this, /*with_ids=*/true);
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

Result<DataField> DataField::FromJson(const nlohmann::json& value) {
  return CatchJsonErrors("malformed data field JSON: ", [&]() -> Result<DataField> {
    return FieldFromJson(value, 0);
  });
}

nlohmann::json DataField::ToJson() const { return nlohmann::json(ToOrderedJson()); }

nlohmann::ordered_json DataField::ToOrderedJson() const {
  ordered_json out;
  out["id"] = id;
  out["name"] = name;
  out["type"] = type->ToOrderedJson();
  if (description) out["description"] = *description;
  if (default_value) out["defaultValue"] = *default_value;
  return out;
}

std::shared_ptr<arrow::Field> DataField::ToArrow() const {
  return FieldToArrow(*this, /*with_ids=*/false, /*top_level=*/true);
}

std::shared_ptr<arrow::Field> DataField::ToArrowWithFieldIds() const {
  return FieldToArrow(*this, /*with_ids=*/true, /*top_level=*/true);
}

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

Result<std::vector<DataField>> FieldsFromArrow(const arrow::Schema& schema) {
  std::vector<DataField> fields;
  int32_t next_id = 0;
  for (const auto& af : schema.fields()) {
    ARROW_RETURN_NOT_OK(CheckNotExtension(*af));
    DataField field;
    field.id = next_id++;
    field.name = af->name();
    ARROW_ASSIGN_OR_RAISE(field.type, DataType::FromArrow(*af->type(), af->nullable(), &next_id));
    if (af->metadata()) {
      int index = af->metadata()->FindKey("description");
      if (index >= 0) field.description = af->metadata()->value(index);
    }
    fields.push_back(std::move(field));
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
