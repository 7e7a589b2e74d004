#include "paimon_rowid/types/table_schema.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "arrow/type.h"
#include "paimon_rowid/common/checked_json.h"
#include "paimon_rowid/common/json_text.h"

namespace paimon_rowid {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// Versions whose readers need defaults applied (Java SchemaSerializer).
constexpr int32_t kPaimon07Version = 1;  // bucket defaulted to 1
constexpr int32_t kPaimon08Version = 2;  // file.format defaulted to orc

Result<int64_t> RequiredInt(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) return Status::Invalid("schema JSON has no '", key, "'");
  if (!it->is_number_integer()) return Status::Invalid("schema key '", key, "' must be an integer");
  if (it->is_number_unsigned() &&
      it->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Status::Invalid("schema key '", key, "' is out of range");
  }
  return it->get<int64_t>();
}

Result<int32_t> ToInt32(int64_t value, const char* key) {
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    return Status::Invalid("schema key '", key, "' is out of range");
  }
  return static_cast<int32_t>(value);
}

Result<std::vector<std::string>> StringArray(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) return Status::Invalid("schema JSON has no '", key, "'");
  if (!it->is_array()) return Status::Invalid("schema key '", key, "' must be an array");
  std::vector<std::string> out;
  for (const auto& v : *it) {
    if (!v.is_string()) return Status::Invalid("schema key '", key, "' must hold strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

Result<TableSchema> ParseSchema(const json& root) {
  if (!root.is_object()) return Status::Invalid("schema JSON must be an object");
  TableSchema schema;
  if (root.contains("version")) {
    ARROW_ASSIGN_OR_RAISE(int64_t version, RequiredInt(root, "version"));
    ARROW_ASSIGN_OR_RAISE(schema.version, ToInt32(version, "version"));
  } else {
    schema.version = kPaimon07Version;
  }
  ARROW_ASSIGN_OR_RAISE(schema.id, RequiredInt(root, "id"));

  auto fields_it = root.find("fields");
  if (fields_it == root.end() || !fields_it->is_array()) {
    return Status::Invalid("schema JSON needs a 'fields' array");
  }
  for (const auto& f : *fields_it) {
    ARROW_ASSIGN_OR_RAISE(auto field, DataField::FromJson(f));
    schema.fields.push_back(std::move(field));
  }
  ARROW_ASSIGN_OR_RAISE(int64_t highest, RequiredInt(root, "highestFieldId"));
  ARROW_ASSIGN_OR_RAISE(schema.highest_field_id, ToInt32(highest, "highestFieldId"));
  ARROW_ASSIGN_OR_RAISE(schema.partition_keys, StringArray(root, "partitionKeys"));
  ARROW_ASSIGN_OR_RAISE(schema.primary_keys, StringArray(root, "primaryKeys"));

  auto options_it = root.find("options");
  if (options_it != root.end() && !options_it->is_null()) {
    if (!options_it->is_object()) return Status::Invalid("schema key 'options' must be an object");
    for (const auto& [key, value] : options_it->items()) {
      if (value.is_string()) {
        schema.options[key] = value.get<std::string>();
      } else if (value.is_number() || value.is_boolean()) {
        schema.options[key] = value.dump();  // Java reads these with asText()
      } else {
        return Status::Invalid("schema option '", key, "' must be a string");
      }
    }
  }

  auto comment_it = root.find("comment");
  if (comment_it != root.end() && !comment_it->is_null()) {
    if (!comment_it->is_string()) return Status::Invalid("schema key 'comment' must be a string");
    schema.comment = comment_it->get<std::string>();
  }
  if (root.contains("timeMillis") && !root["timeMillis"].is_null()) {
    ARROW_ASSIGN_OR_RAISE(schema.time_millis, RequiredInt(root, "timeMillis"));
  }

  if (schema.version <= kPaimon07Version) schema.options.emplace(options::kBucket, "1");
  if (schema.version <= kPaimon08Version) schema.options.emplace(options::kFileFormat, "orc");
  return schema;
}

}  // namespace

Result<TableSchema> TableSchema::FromJson(std::string_view text) {
  return CatchJsonErrors("malformed schema JSON: ", [&]() -> Result<TableSchema> {
    json root = json::parse(text.begin(), text.end(), /*cb=*/nullptr,
                            /*allow_exceptions=*/false);
    if (root.is_discarded()) return Status::Invalid("schema file is not valid JSON");
    return ParseSchema(root);
  });
}

std::string TableSchema::ToJson() const {
  ordered_json root;
  root["version"] = version;
  root["id"] = id;
  ordered_json fields_json = ordered_json::array();
  for (const auto& f : fields) fields_json.push_back(f.ToOrderedJson());
  root["fields"] = std::move(fields_json);
  root["highestFieldId"] = highest_field_id;
  root["partitionKeys"] = partition_keys;
  root["primaryKeys"] = primary_keys;
  ordered_json options_json = ordered_json::object();
  for (const auto& [k, v] : options) options_json[k] = v;
  root["options"] = std::move(options_json);
  if (comment) root["comment"] = *comment;
  root["timeMillis"] = time_millis;
  return ToJacksonText(root);
}

std::vector<std::string> TableSchema::field_names() const {
  std::vector<std::string> names;
  names.reserve(fields.size());
  for (const auto& f : fields) names.push_back(f.name);
  return names;
}

const DataField* TableSchema::FieldByName(std::string_view name) const {
  for (const auto& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const DataField* TableSchema::FieldById(int32_t field_id) const {
  for (const auto& f : fields) {
    if (f.id == field_id) return &f;
  }
  return nullptr;
}

int TableSchema::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

bool TableSchema::IsPartitionKey(std::string_view name) const {
  for (const auto& k : partition_keys) {
    if (k == name) return true;
  }
  return false;
}

std::shared_ptr<arrow::Schema> TableSchema::ArrowSchema() const {
  arrow::FieldVector out;
  for (const auto& f : fields) out.push_back(f.ToArrow());
  return arrow::schema(std::move(out));
}

std::shared_ptr<arrow::Schema> TableSchema::ArrowSchemaWithFieldIds() const {
  arrow::FieldVector out;
  for (const auto& f : fields) out.push_back(f.ToArrowWithFieldIds());
  return arrow::schema(std::move(out));
}

Result<std::vector<DataField>> TableSchema::Project(const std::vector<std::string>& names) const {
  std::vector<DataField> out;
  out.reserve(names.size());
  for (const auto& name : names) {
    const DataField* f = FieldByName(name);
    if (f == nullptr) {
      std::string all;
      for (const auto& field : fields) all += (all.empty() ? "" : ", ") + field.name;
      return Status::Invalid("Field '", name, "' is not in the table schema (fields: ", all, ")");
    }
    out.push_back(*f);
  }
  return out;
}

}  // namespace paimon_rowid
