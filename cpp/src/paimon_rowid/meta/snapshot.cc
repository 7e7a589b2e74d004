#include "paimon_rowid/meta/snapshot.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "paimon_rowid/common/checked_json.h"
#include "paimon_rowid/common/json_text.h"

namespace paimon_rowid {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// Snapshot files written before "version" existed are version 1 (Java Snapshot).
constexpr int32_t kLegacySnapshotVersion = 1;

Result<std::optional<int64_t>> OptionalLong(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer()) {
    return Status::Invalid("snapshot key '", key, "' must be an integer");
  }
  if (it->is_number_unsigned() &&
      it->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Status::Invalid("snapshot key '", key, "' is out of range");
  }
  return std::optional<int64_t>(it->get<int64_t>());
}

Result<int64_t> RequiredLong(const json& obj, const char* key) {
  ARROW_ASSIGN_OR_RAISE(auto value, OptionalLong(obj, key));
  if (!value) return Status::Invalid("snapshot JSON has no '", key, "'");
  return *value;
}

Result<std::optional<std::string>> OptionalString(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) return Status::Invalid("snapshot key '", key, "' must be a string");
  return std::optional<std::string>(it->get<std::string>());
}

Result<std::string> RequiredString(const json& obj, const char* key) {
  ARROW_ASSIGN_OR_RAISE(auto value, OptionalString(obj, key));
  if (!value) return Status::Invalid("snapshot JSON has no '", key, "'");
  return *value;
}

Result<json> ParseObject(std::string_view text, const char* what) {
  json root = json::parse(text.begin(), text.end(), /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return Status::Invalid(what, " file is not valid JSON");
  if (!root.is_object()) return Status::Invalid(what, " JSON must be an object");
  return root;
}

Result<Snapshot> ParseSnapshot(const json& root) {
  Snapshot s;
  ARROW_ASSIGN_OR_RAISE(auto version, OptionalLong(root, "version"));
  if (version && (*version < 0 || *version > std::numeric_limits<int32_t>::max())) {
    return Status::Invalid("snapshot version ", *version, " is out of range");
  }
  s.version = version ? static_cast<int32_t>(*version) : kLegacySnapshotVersion;
  ARROW_ASSIGN_OR_RAISE(s.uuid, OptionalString(root, "uuid"));
  ARROW_ASSIGN_OR_RAISE(s.id, RequiredLong(root, "id"));
  ARROW_ASSIGN_OR_RAISE(s.schema_id, RequiredLong(root, "schemaId"));
  ARROW_ASSIGN_OR_RAISE(s.base_manifest_list, RequiredString(root, "baseManifestList"));
  ARROW_ASSIGN_OR_RAISE(s.base_manifest_list_size, OptionalLong(root, "baseManifestListSize"));
  ARROW_ASSIGN_OR_RAISE(s.delta_manifest_list, RequiredString(root, "deltaManifestList"));
  ARROW_ASSIGN_OR_RAISE(s.delta_manifest_list_size, OptionalLong(root, "deltaManifestListSize"));
  ARROW_ASSIGN_OR_RAISE(s.changelog_manifest_list, OptionalString(root, "changelogManifestList"));
  ARROW_ASSIGN_OR_RAISE(s.changelog_manifest_list_size,
                        OptionalLong(root, "changelogManifestListSize"));
  ARROW_ASSIGN_OR_RAISE(s.index_manifest, OptionalString(root, "indexManifest"));
  ARROW_ASSIGN_OR_RAISE(s.commit_user, RequiredString(root, "commitUser"));
  ARROW_ASSIGN_OR_RAISE(s.writer_version, OptionalString(root, "writerVersion"));
  ARROW_ASSIGN_OR_RAISE(s.commit_identifier, RequiredLong(root, "commitIdentifier"));
  ARROW_ASSIGN_OR_RAISE(s.commit_kind, RequiredString(root, "commitKind"));
  ARROW_ASSIGN_OR_RAISE(s.time_millis, RequiredLong(root, "timeMillis"));
  ARROW_ASSIGN_OR_RAISE(s.total_record_count, OptionalLong(root, "totalRecordCount"));
  ARROW_ASSIGN_OR_RAISE(s.delta_record_count, OptionalLong(root, "deltaRecordCount"));
  ARROW_ASSIGN_OR_RAISE(s.changelog_record_count, OptionalLong(root, "changelogRecordCount"));
  ARROW_ASSIGN_OR_RAISE(s.watermark, OptionalLong(root, "watermark"));
  ARROW_ASSIGN_OR_RAISE(s.statistics, OptionalString(root, "statistics"));
  auto props = root.find("properties");
  if (props != root.end() && !props->is_null()) {
    if (!props->is_object()) return Status::Invalid("snapshot key 'properties' must be an object");
    for (const auto& [key, value] : props->items()) {
      if (!value.is_string()) {
        return Status::Invalid("snapshot property '", key, "' must be a string");
      }
      s.properties[key] = value.get<std::string>();
    }
  }
  ARROW_ASSIGN_OR_RAISE(s.next_row_id, OptionalLong(root, "nextRowId"));
  ARROW_ASSIGN_OR_RAISE(s.operation, OptionalString(root, "operation"));
  return s;
}

ordered_json SnapshotToJson(const Snapshot& s) {
  ordered_json out;
  out["version"] = s.version;
  if (s.uuid) out["uuid"] = *s.uuid;
  out["id"] = s.id;
  out["schemaId"] = s.schema_id;
  out["baseManifestList"] = s.base_manifest_list;
  if (s.base_manifest_list_size) out["baseManifestListSize"] = *s.base_manifest_list_size;
  out["deltaManifestList"] = s.delta_manifest_list;
  if (s.delta_manifest_list_size) out["deltaManifestListSize"] = *s.delta_manifest_list_size;
  if (s.changelog_manifest_list) out["changelogManifestList"] = *s.changelog_manifest_list;
  if (s.changelog_manifest_list_size) {
    out["changelogManifestListSize"] = *s.changelog_manifest_list_size;
  }
  if (s.index_manifest) out["indexManifest"] = *s.index_manifest;
  out["commitUser"] = s.commit_user;
  if (s.writer_version) out["writerVersion"] = *s.writer_version;
  out["commitIdentifier"] = s.commit_identifier;
  out["commitKind"] = s.commit_kind;
  out["timeMillis"] = s.time_millis;
  if (s.total_record_count) out["totalRecordCount"] = *s.total_record_count;
  if (s.delta_record_count) out["deltaRecordCount"] = *s.delta_record_count;
  if (s.changelog_record_count) out["changelogRecordCount"] = *s.changelog_record_count;
  if (s.watermark) out["watermark"] = *s.watermark;
  if (s.statistics) out["statistics"] = *s.statistics;
  if (!s.properties.empty()) {
    ordered_json props = ordered_json::object();
    for (const auto& [k, v] : s.properties) props[k] = v;
    out["properties"] = std::move(props);
  }
  if (s.next_row_id) out["nextRowId"] = *s.next_row_id;
  if (s.operation) out["operation"] = *s.operation;
  return out;
}

}  // namespace

Result<Snapshot> Snapshot::FromJson(std::string_view text) {
  return CatchJsonErrors("malformed snapshot JSON: ", [&]() -> Result<Snapshot> {
    ARROW_ASSIGN_OR_RAISE(json root, ParseObject(text, "snapshot"));
    return ParseSnapshot(root);
  });
}

std::string Snapshot::ToJson() const { return ToJacksonText(SnapshotToJson(*this)); }

Result<Tag> Tag::FromJson(std::string_view text) {
  return CatchJsonErrors("malformed tag JSON: ", [&]() -> Result<Tag> {
    ARROW_ASSIGN_OR_RAISE(json root, ParseObject(text, "tag"));
    Tag tag;
    ARROW_ASSIGN_OR_RAISE(tag.snapshot, ParseSnapshot(root));
    auto created = root.find("tagCreateTime");
    if (created != root.end() && !created->is_null()) {
      // Java LocalDateTime: [year, month, day, hour, minute(, second(, nano))].
      if (!created->is_array() || created->size() < 5 || created->size() > 7) {
        return Status::Invalid("tag key 'tagCreateTime' must be a LocalDateTime array");
      }
      for (const auto& part : *created) {
        if (!part.is_number_integer()) {
          return Status::Invalid("tag key 'tagCreateTime' must hold integers");
        }
      }
      tag.tag_create_time_json = created->dump();
    }
    auto retained = root.find("tagTimeRetained");
    if (retained != root.end() && !retained->is_null()) {
      // Java Duration: decimal seconds (a number; a numeric string is accepted too).
      if (retained->is_number()) {
        tag.tag_time_retained = retained->dump();
      } else if (retained->is_string()) {
        std::string text_value = retained->get<std::string>();
        json number = json::parse(text_value, nullptr, /*allow_exceptions=*/false);
        if (!number.is_number()) {
          return Status::Invalid("tag key 'tagTimeRetained' must be decimal seconds");
        }
        tag.tag_time_retained = text_value;
      } else {
        return Status::Invalid("tag key 'tagTimeRetained' must be decimal seconds");
      }
    }
    return tag;
  });
}

std::string Tag::ToJson() const {
  ordered_json out = SnapshotToJson(snapshot);
  // The raw values were validated when read; anything unparsable written by a caller is
  // dropped rather than producing an invalid file.
  if (tag_create_time_json) {
    ordered_json created = ordered_json::parse(*tag_create_time_json, nullptr, false);
    if (created.is_array()) out["tagCreateTime"] = std::move(created);
  }
  if (tag_time_retained) {
    ordered_json retained = ordered_json::parse(*tag_time_retained, nullptr, false);
    if (retained.is_number()) out["tagTimeRetained"] = std::move(retained);
  }
  return ToJacksonText(out);
}

}  // namespace paimon_rowid
