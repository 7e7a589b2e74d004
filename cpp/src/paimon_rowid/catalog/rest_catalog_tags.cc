#include <nlohmann/json.hpp>

#include "paimon_rowid/catalog/rest_catalog.h"
#include "paimon_rowid/catalog/rest_catalog_internal.h"

// RestCatalog's tag and partition calls: the server keeps the tag files and the partitions.
namespace paimon_rowid {

using nlohmann::json;
using rest_internal::ForTable;
using rest_internal::HasKind;
using rest_internal::StringField;
using rest_internal::TablePath;

// A tag call's error: a 404 about a table that exists is the tag's (kRestNoSuchResource,
// the Python layer names the tag), else the table's; a 409 is the tag's.
Status RestCatalog::TagError(const Status& st, const Identifier& id) const {
  if (HasKind(st, ErrorKind::kRestNoSuchResource)) {
    auto table = Call("GET", TablePath(id));
    if (!table.ok()) return ForTable(table.status(), id.FullName());
    return st;
  }
  if (HasKind(st, ErrorKind::kRestAlreadyExists)) return st;
  return ForTable(st, id.FullName());
}

Status RestCatalog::CreateTag(const std::string& identifier, const std::string& tag,
                              std::optional<int64_t> snapshot_id,
                              const std::optional<std::string>& time_retained) const {
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(identifier));
  json body{{"tagName", tag}};
  body["snapshotId"] = snapshot_id ? json(*snapshot_id) : json(nullptr);
  body["timeRetained"] = time_retained ? json(*time_retained) : json(nullptr);
  auto answer = Call("POST", TablePath(id) + "/tags", body.dump());
  return answer.ok() ? Status::OK() : TagError(answer.status(), id);
}

Result<RestTag> RestCatalog::GetTag(const std::string& identifier, const std::string& tag) const {
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(identifier));
  auto answer = Call("GET", TablePath(id) + "/tags/" + HttpClient::Encode(tag));
  if (!answer.ok()) return TagError(answer.status(), id);
  json parsed = json::parse(*answer, nullptr, false);
  if (!parsed.is_object() || !parsed.contains("snapshot") || !parsed["snapshot"].is_object()) {
    return Status::IOError("REST catalog server answered tag ", tag, " with no snapshot");
  }
  RestTag out;
  ARROW_ASSIGN_OR_RAISE(out.snapshot, Snapshot::FromJson(parsed["snapshot"].dump()));
  if (parsed.contains("tagCreateTime") && parsed["tagCreateTime"].is_number_integer()) {
    out.create_time_millis = parsed["tagCreateTime"].get<int64_t>();
  }
  if (parsed.contains("tagTimeRetained") && parsed["tagTimeRetained"].is_string()) {
    out.time_retained = parsed["tagTimeRetained"].get<std::string>();
  }
  return out;
}

Result<std::vector<std::string>> RestCatalog::ListTags(const std::string& identifier,
                                                       const std::string& prefix) const {
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(identifier));
  auto tags = ListPaged(TablePath(id) + "/tags", "tags",
                        prefix.empty() ? "" : "tagNamePrefix=" + HttpClient::Encode(prefix));
  if (!tags.ok()) return ForTable(tags.status(), id.FullName());
  return tags;
}

Status RestCatalog::DeleteTag(const std::string& identifier, const std::string& tag) const {
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(identifier));
  auto answer = Call("DELETE", TablePath(id) + "/tags/" + HttpClient::Encode(tag));
  return answer.ok() ? Status::OK() : TagError(answer.status(), id);
}

Result<std::vector<RestPartition>> RestCatalog::ListPartitions(
    const std::string& identifier) const {
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(identifier));
  std::vector<RestPartition> out;
  std::string token;
  auto integer = [](const json& o, const char* key) -> int64_t {
    auto it = o.find(key);
    return it != o.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
  };
  while (true) {
    std::string query = token.empty() ? "" : "?pageToken=" + HttpClient::Encode(token);
    auto text = Call("GET", TablePath(id) + "/partitions" + query);
    if (!text.ok()) return ForTable(text.status(), id.FullName());
    json parsed = json::parse(*text, nullptr, false);
    if (!parsed.is_object()) {
      return Status::IOError("REST catalog server answered partitions with no JSON object");
    }
    if (parsed.contains("partitions") && parsed["partitions"].is_array()) {
      for (const auto& p : parsed["partitions"]) {
        if (!p.is_object()) continue;
        RestPartition part;
        if (p.contains("spec") && p["spec"].is_object()) {
          for (const auto& [k, v] : p["spec"].items()) {
            part.spec[k] = v.is_string() ? v.get<std::string>() : v.dump();
          }
        }
        part.record_count = integer(p, "recordCount");
        part.file_size_in_bytes = integer(p, "fileSizeInBytes");
        part.file_count = integer(p, "fileCount");
        part.last_file_creation_time = integer(p, "lastFileCreationTime");
        part.total_buckets = integer(p, "totalBuckets");
        part.done = p.value("done", false);
        if (p.contains("createdAt") && p["createdAt"].is_number_integer()) {
          part.created_at = p["createdAt"].get<int64_t>();
        }
        out.push_back(std::move(part));
      }
    }
    std::string next = StringField(parsed, "nextPageToken");
    if (next.empty() || next == token) break;
    token = next;
  }
  return out;
}
Status RestCatalog::CreatePartitions(const std::string& identifier,
                                     const std::vector<std::map<std::string, std::string>>& specs,
                                     bool ignore_if_exists) const {
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(identifier));
  json body{{"partitionSpecs", specs}, {"ignoreIfExists", ignore_if_exists}};
  auto answer = Call("POST", TablePath(id) + "/partitions", body.dump());
  if (answer.ok()) return Status::OK();
  const Status& st = answer.status();
  if (HasKind(st, ErrorKind::kRestNoSuchResource)) {
    auto table = Call("GET", TablePath(id));
    if (!table.ok()) return ForTable(table.status(), id.FullName());
    return MakeKindError(arrow::StatusCode::NotImplemented, ErrorKind::kRestNotImplemented,
                         "the REST catalog server does not implement create_partitions (it "
                         "answered 404 for the existing table " +
                             id.FullName() + ")");
  }
  if (HasKind(st, ErrorKind::kRestAlreadyExists) || HasKind(st, ErrorKind::kRestBadRequest) ||
      HasKind(st, ErrorKind::kRestNotImplemented)) {
    return st;
  }
  return ForTable(st, id.FullName());
}

Status RestCatalog::MarkDonePartitions(
    const std::string& identifier,
    const std::vector<std::map<std::string, std::string>>& specs) const {
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(identifier));
  json body{{"specs", specs}};
  auto answer = Call("POST", TablePath(id) + "/partitions/mark", body.dump());
  if (answer.ok() || HasKind(answer.status(), ErrorKind::kRestNotImplemented)) {
    return Status::OK();
  }
  return ForTable(answer.status(), id.FullName());
}

}  // namespace paimon_rowid
