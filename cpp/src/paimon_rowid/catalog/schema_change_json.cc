// The JSON form of schema changes (pypaimon's / Java's SchemaChange serialization).
#include <map>
#include <nlohmann/json.hpp>

#include "paimon_rowid/catalog/schema_change.h"
#include "paimon_rowid/common/checked_json.h"

namespace paimon_rowid {

using nlohmann::json;

Result<SchemaChange> SchemaChange::FromJson(const json& value) {
  if (!value.is_object() || !value.contains("action") || !value["action"].is_string()) {
    return Status::Invalid("a schema change is an object with an 'action'");
  }
  static const std::map<std::string, Action> kActions = {
      {"setOption", Action::kSetOption},
      {"removeOption", Action::kRemoveOption},
      {"updateComment", Action::kUpdateComment},
      {"addColumn", Action::kAddColumn},
      {"renameColumn", Action::kRenameColumn},
      {"dropColumn", Action::kDropColumn},
      {"updateColumnType", Action::kUpdateColumnType},
      {"updateColumnNullability", Action::kUpdateColumnNullability},
      {"updateColumnComment", Action::kUpdateColumnComment},
      {"updateColumnDefaultValue", Action::kUpdateColumnDefaultValue},
      {"updateColumnPosition", Action::kUpdateColumnPosition}};
  const std::string action = value["action"].get<std::string>();
  auto found = kActions.find(action);
  if (found == kActions.end()) {
    return Status::NotImplemented("Unsupported change: ", action);
  }
  SchemaChange c;
  c.action = found->second;
  auto str = [&](const char* key, bool required) -> Result<std::optional<std::string>> {
    auto it = value.find(key);
    if (it == value.end() || it->is_null()) {
      if (required) return Status::Invalid("schema change '", action, "' needs '", key, "'");
      return std::nullopt;
    }
    if (!it->is_string()) return Status::Invalid("'", key, "' of '", action, "' must be a string");
    return it->get<std::string>();
  };
  auto parse_move = [&](const json& m) -> Result<ColumnMove> {
    if (!m.is_object() || !m.contains("fieldName") || !m["fieldName"].is_string() ||
        !m.contains("type") || !m["type"].is_string()) {
      return Status::Invalid("a move needs 'fieldName' and 'type'");
    }
    ColumnMove move;
    move.field_name = m["fieldName"].get<std::string>();
    if (m.contains("referenceFieldName") && m["referenceFieldName"].is_string()) {
      move.reference_field_name = m["referenceFieldName"].get<std::string>();
    }
    const std::string type = m["type"].get<std::string>();
    if (type == "FIRST") {
      move.type = ColumnMove::Type::kFirst;
    } else if (type == "AFTER") {
      move.type = ColumnMove::Type::kAfter;
    } else if (type == "BEFORE") {
      move.type = ColumnMove::Type::kBefore;
    } else if (type == "LAST") {
      move.type = ColumnMove::Type::kLast;
    } else {
      return Status::Invalid("Unsupported move type: ", type);
    }
    if ((move.type == ColumnMove::Type::kAfter || move.type == ColumnMove::Type::kBefore) &&
        !move.reference_field_name) {
      return Status::Invalid("a move ", type, " needs 'referenceFieldName'");
    }
    return move;
  };
  if (value.contains("fieldNames")) {
    const json& names = value["fieldNames"];
    if (!names.is_array() || names.empty()) {
      return Status::Invalid("'fieldNames' must be a non-empty array of strings");
    }
    for (const auto& n : names) {
      if (!n.is_string()) return Status::Invalid("'fieldNames' must hold strings");
      c.field_names.push_back(n.get<std::string>());
    }
  }
  auto need_names = [&]() -> Status {
    if (c.field_names.empty()) {
      return Status::Invalid("schema change '", action, "' needs 'fieldNames'");
    }
    return Status::OK();
  };
  switch (c.action) {
    case Action::kSetOption: {
      ARROW_ASSIGN_OR_RAISE(auto key, str("key", true));
      ARROW_ASSIGN_OR_RAISE(auto v, str("value", true));
      c.key = *key;
      c.value = *v;
      break;
    }
    case Action::kRemoveOption: {
      ARROW_ASSIGN_OR_RAISE(auto key, str("key", true));
      c.key = *key;
      break;
    }
    case Action::kUpdateComment: {
      ARROW_ASSIGN_OR_RAISE(c.comment, str("comment", false));
      break;
    }
    case Action::kAddColumn: {
      ARROW_RETURN_NOT_OK(need_names());
      if (!value.contains("dataType")) return Status::Invalid("addColumn needs 'dataType'");
      ARROW_ASSIGN_OR_RAISE(c.type, DataType::FromJson(value["dataType"]));
      ARROW_ASSIGN_OR_RAISE(c.comment, str("comment", false));
      if (value.contains("move") && !value["move"].is_null()) {
        ARROW_ASSIGN_OR_RAISE(c.move, parse_move(value["move"]));
      }
      break;
    }
    case Action::kRenameColumn: {
      ARROW_RETURN_NOT_OK(need_names());
      ARROW_ASSIGN_OR_RAISE(auto name, str("newName", true));
      c.new_name = *name;
      break;
    }
    case Action::kDropColumn:
      ARROW_RETURN_NOT_OK(need_names());
      break;
    case Action::kUpdateColumnType: {
      ARROW_RETURN_NOT_OK(need_names());
      if (!value.contains("newDataType")) {
        return Status::Invalid("updateColumnType needs 'newDataType'");
      }
      ARROW_ASSIGN_OR_RAISE(c.type, DataType::FromJson(value["newDataType"]));
      c.keep_nullability = value.contains("keepNullability") &&
                           value["keepNullability"].is_boolean() &&
                           value["keepNullability"].get<bool>();
      break;
    }
    case Action::kUpdateColumnNullability: {
      ARROW_RETURN_NOT_OK(need_names());
      if (!value.contains("newNullability") || !value["newNullability"].is_boolean()) {
        return Status::Invalid("updateColumnNullability needs a boolean 'newNullability'");
      }
      c.nullable = value["newNullability"].get<bool>();
      break;
    }
    case Action::kUpdateColumnComment: {
      ARROW_RETURN_NOT_OK(need_names());
      ARROW_ASSIGN_OR_RAISE(c.comment, str("newComment", false));
      break;
    }
    case Action::kUpdateColumnDefaultValue: {
      ARROW_RETURN_NOT_OK(need_names());
      ARROW_ASSIGN_OR_RAISE(c.default_value, str("newDefaultValue", false));
      break;
    }
    case Action::kUpdateColumnPosition: {
      if (!value.contains("move")) return Status::Invalid("updateColumnPosition needs 'move'");
      ARROW_ASSIGN_OR_RAISE(c.move, parse_move(value["move"]));
      break;
    }
  }
  return c;
}

Result<std::vector<SchemaChange>> SchemaChange::ListFromJson(std::string_view text) {
  return CatchJsonErrors("malformed schema changes: ", [&]() -> Result<std::vector<SchemaChange>> {
    json root = json::parse(text.begin(), text.end(), nullptr, false);
    if (root.is_discarded() || !root.is_array()) {
      return Status::Invalid("schema changes must be a JSON array");
    }
    std::vector<SchemaChange> out;
    for (const auto& v : root) {
      ARROW_ASSIGN_OR_RAISE(auto c, FromJson(v));
      out.push_back(std::move(c));
    }
    return out;
  });
}

}  // namespace paimon_rowid
