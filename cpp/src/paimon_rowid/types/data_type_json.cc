// DataType and DataField to and from Paimon's schema JSON (nested types as objects, atomic
// types as their SQL strings).
#include <limits>
#include <nlohmann/json.hpp>

#include "paimon_rowid/common/checked_json.h"
#include "paimon_rowid/types/data_type.h"
#include "paimon_rowid/types/data_type_internal.h"

namespace paimon_rowid {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

using data_type_internal::CheckVector;
using data_type_internal::kMaxNestingDepth;
using data_type_internal::Upper;

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

}  // namespace

Result<DataTypePtr> DataType::FromJson(const nlohmann::json& value) {
  return CatchJsonErrors("malformed data type JSON: ", [&]() -> Result<DataTypePtr> {
    return TypeFromJson(value, 0);
  });
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

}  // namespace paimon_rowid
