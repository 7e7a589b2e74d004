#include "paimon_rowid/catalog/rest_catalog.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "paimon_rowid/common/identifier.h"
#include "paimon_rowid/fs/file_io.h"

namespace paimon_rowid {
namespace {

using nlohmann::json;

constexpr const char* kStateTableId = "__rest.table-id";
constexpr const char* kStateIdentifier = "__rest.identifier";

std::string StringField(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The server's error answer as pypaimon's DefaultErrorHandler raises it.
Status RestError(const HttpResponse& response) {
  std::string message;
  std::string resource_type;
  int code = response.status;
  if (!response.body.empty()) {
    json parsed = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object()) {
      message = StringField(parsed, "message");
      resource_type = StringField(parsed, "resourceType");
      auto c = parsed.find("code");
      if (c != parsed.end() && c->is_number_integer()) code = c->get<int>();
    }
  }
  if (message.empty()) message = response.body.empty() ? "response body is null" : response.body;
  using arrow::StatusCode;
  if (resource_type == "COLUMN" && (code == 404 || code == 409)) {  // alter_table's refusals
    return code == 404
               ? MakeKindError(StatusCode::KeyError, ErrorKind::kColumnNotExist, message)
               : MakeKindError(StatusCode::AlreadyExists, ErrorKind::kColumnAlreadyExist, message);
  }
  switch (code) {
    case 400:
      return MakeKindError(StatusCode::Invalid, ErrorKind::kRestBadRequest, message);
    case 401:
      return MakeKindError(StatusCode::IOError, ErrorKind::kRestNotAuthorized,
                           "Not authorized: " + message);
    case 403:
      return MakeKindError(StatusCode::IOError, ErrorKind::kRestForbidden, "Forbidden: " + message);
    case 404:
      return MakeKindError(StatusCode::KeyError, ErrorKind::kRestNoSuchResource, message);
    case 409:
      return MakeKindError(StatusCode::AlreadyExists, ErrorKind::kRestAlreadyExists, message);
    case 500:
      return MakeKindError(StatusCode::IOError, ErrorKind::kRestServiceFailure,
                           "Server error: " + message);
    case 501:
      return MakeKindError(StatusCode::NotImplemented, ErrorKind::kRestNotImplemented, message);
    case 503:
      return MakeKindError(StatusCode::IOError, ErrorKind::kRestServiceUnavailable,
                           "Service unavailable: " + message);
    default:
      return MakeKindError(StatusCode::IOError, ErrorKind::kRestError,
                           "Unable to process: " + message);
  }
}

bool HasKind(const Status& st, ErrorKind kind) {
  const ErrorKind* k = GetErrorKind(st);
  return k != nullptr && *k == kind;
}

// A REST error about a named database or table, as pypaimon's RESTCatalog re-raises it.
Status ForDatabase(const Status& st, const std::string& database) {
  using arrow::StatusCode;
  if (HasKind(st, ErrorKind::kRestNoSuchResource)) {
    return MakeKindError(StatusCode::KeyError, ErrorKind::kDatabaseNotExist,
                         "Database " + database + " does not exist.");
  }
  if (HasKind(st, ErrorKind::kRestAlreadyExists)) {
    return MakeKindError(StatusCode::AlreadyExists, ErrorKind::kDatabaseAlreadyExist,
                         "Database " + database + " already exists.");
  }
  if (HasKind(st, ErrorKind::kRestForbidden)) {
    return MakeKindError(StatusCode::IOError, ErrorKind::kDatabaseNoPermission,
                         "Database " + database + " has no permission. " + st.message());
  }
  return st;
}

Status ForTable(const Status& st, const std::string& table) {
  using arrow::StatusCode;
  if (HasKind(st, ErrorKind::kRestNoSuchResource)) {
    return MakeKindError(StatusCode::KeyError, ErrorKind::kTableNotExist,
                         "Table " + table + " does not exist.");
  }
  if (HasKind(st, ErrorKind::kRestAlreadyExists)) {
    return MakeKindError(StatusCode::AlreadyExists, ErrorKind::kTableAlreadyExist,
                         "Table " + table + " already exists.");
  }
  if (HasKind(st, ErrorKind::kRestForbidden)) {
    return MakeKindError(StatusCode::IOError, ErrorKind::kTableNoPermission,
                         "Table " + table + " has no permission. " + st.message());
  }
  return st;
}

// The keys of `options` a FileIO is made from (object-store settings), without the
// catalog's connection and bearer token.
std::map<std::string, std::string> FilesystemOptions(
    const std::map<std::string, std::string>& options) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : options) {
    for (const char* prefix : {"fs.", "s3.", "s3a.", "s3n.", "oss."}) {
      if (k.rfind(prefix, 0) == 0) {
        out[k] = v;
        break;
      }
    }
  }
  return out;
}

Result<RestDataToken> ParseDataToken(const std::string& text, const std::string& table) {
  json parsed = json::parse(text, nullptr, false);
  if (!parsed.is_object() || !parsed.contains("expiresAtMillis") ||
      !parsed["expiresAtMillis"].is_number_integer()) {
    return Status::IOError("REST catalog server answered no data token for table ", table);
  }
  RestDataToken token;
  token.expires_at_millis = parsed["expiresAtMillis"].get<int64_t>();
  if (parsed.contains("token") && parsed["token"].is_object()) {
    for (const auto& [k, v] : parsed["token"].items()) {
      if (v.is_string()) token.token[k] = v.get<std::string>();
    }
  }
  return token;
}

json IdentifierJson(const Identifier& id) {
  return json{{"database", id.database}, {"object", id.table}};
}

std::string TablePath(const Identifier& id) {
  return "/databases/" + HttpClient::Encode(id.database) + "/tables/" +
         HttpClient::Encode(id.table);
}

class RestSnapshotCommit final : public SnapshotCommit {
 public:
  RestSnapshotCommit(std::shared_ptr<const RestCatalog> catalog, Identifier identifier,
                     std::string table_id)
      : catalog_(std::move(catalog)),
        identifier_(std::move(identifier)),
        table_id_(std::move(table_id)) {}

  Status Commit(const Snapshot& snapshot, const std::string& statistics_json) const override {
    json statistics = json::parse(statistics_json, nullptr, false);
    if (!statistics.is_array()) statistics = json::array();
    json body{{"snapshot", json::parse(snapshot.ToJson())}, {"statistics", statistics}};
    if (!table_id_.empty()) body["tableId"] = table_id_;
    auto answer = catalog_->Call("POST", TablePath(identifier_) + "/commit", body.dump());
    if (!answer.ok()) return ForTable(answer.status(), identifier_.FullName());
    json parsed = json::parse(*answer, nullptr, false);
    if (parsed.is_object() && parsed.value("success", false)) return Status::OK();
    return Status::AlreadyExists("the REST catalog server refused snapshot ", snapshot.id, " of ",
                                 identifier_.FullName(), " (a concurrent commit won)");
  }

  Status Rollback(int64_t snapshot_id, const std::string& tag_name) const override {
    json instant = tag_name.empty() ? json{{"type", "snapshot"}, {"snapshotId", snapshot_id}}
                                    : json{{"type", "tag"}, {"tagName", tag_name}};
    json body{{"instant", instant}};
    auto answer = catalog_->Call("POST", TablePath(identifier_) + "/rollback", body.dump());
    return answer.ok() ? Status::OK() : ForTable(answer.status(), identifier_.FullName());
  }

  std::map<std::string, std::string> State() const override {
    auto state = catalog_->user_options();
    state[kStateTableId] = table_id_;
    state[kStateIdentifier] = identifier_.FullName();
    return state;
  }

 private:
  std::shared_ptr<const RestCatalog> catalog_;
  Identifier identifier_;
  std::string table_id_;
};

}  // namespace

Result<std::shared_ptr<RestCatalog>> RestCatalog::Make(
    const std::map<std::string, std::string>& options) {
  auto get = [&](const char* key) {
    auto it = options.find(key);
    return it == options.end() ? std::string() : it->second;
  };
  const std::string uri = get("uri");
  if (uri.empty()) return Status::Invalid("uri is empty which must be defined.");
  const std::string warehouse = get("warehouse");
  if (warehouse.empty()) return Status::Invalid("Paimon 'warehouse' path must be set");
  const std::string provider = get("token.provider");
  std::shared_ptr<RestCatalog> catalog(new RestCatalog());
  if (provider == "bear") {
    const std::string token = get("token");
    if (token.empty())
      return Status::Invalid("token is empty: token.provider 'bear' needs 'token'");
    catalog->headers_["Authorization"] = "Bearer " + token;
  } else if (provider == "dlf") {
    ARROW_ASSIGN_OR_RAISE(auto signer, DlfSigner::Make(options));
    catalog->signer_ = std::move(signer);
  } else if (!provider.empty()) {
    return Status::NotImplemented("token.provider '", provider,
                                  "' is not supported (supported: 'bear', 'dlf')");
  }
  ARROW_ASSIGN_OR_RAISE(catalog->http_, HttpClient::Make(uri));
  catalog->warehouse_ = warehouse;
  catalog->user_options_ = options;
  catalog->base_path_ = "/v1";
  // The config endpoint: defaults < user options < overrides.
  ARROW_ASSIGN_OR_RAISE(auto config,
                        catalog->Call("GET", "/config?warehouse=" + HttpClient::Encode(warehouse)));
  std::map<std::string, std::string> merged;
  json parsed = json::parse(config, nullptr, false);
  auto take = [&](const char* key) {
    if (!parsed.is_object() || !parsed.contains(key) || !parsed[key].is_object()) return;
    for (const auto& [k, v] : parsed[key].items()) {
      if (v.is_string()) merged[k] = v.get<std::string>();
    }
  };
  take("defaults");
  for (const auto& [k, v] : options) merged[k] = v;
  take("overrides");
  for (const auto& [k, v] : merged) {
    if (k.rfind("header.", 0) == 0) catalog->headers_[k.substr(7)] = v;
  }
  const std::string prefix = merged.count("prefix") ? merged["prefix"] : "";
  catalog->base_path_ = prefix.empty() ? "/v1" : "/v1/" + HttpClient::Encode(prefix);
  catalog->options_ = Options(std::move(merged));
  return catalog;
}

std::map<std::string, std::string> RestCatalog::Headers() const { return headers_; }

Result<std::string> RestCatalog::Call(const std::string& method, const std::string& path,
                                      const std::string& body) const {
  const std::string full = base_path_ + path;
  std::map<std::string, std::string> headers = headers_;
  if (signer_) {
    const size_t q = full.find('?');
    std::map<std::string, std::string> query;
    if (q != std::string::npos) {
      size_t start = q + 1;
      while (start <= full.size()) {
        size_t amp = full.find('&', start);
        if (amp == std::string::npos) amp = full.size();
        const std::string pair = full.substr(start, amp - start);
        const size_t eq = pair.find('=');
        if (!pair.empty()) {
          query[HttpClient::Decode(pair.substr(0, eq))] =
              eq == std::string::npos ? "" : HttpClient::Decode(pair.substr(eq + 1));
        }
        start = amp + 1;
      }
    }
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    for (auto& [k, v] : signer_->Sign(method, full.substr(0, q), query, body, now)) {
      if (k != "Content-Type") headers[k] = std::move(v);  // HttpClient sends it for a body
    }
  }
  ARROW_ASSIGN_OR_RAISE(HttpResponse response, http_->Send(method, full, headers, body));
  if (!response.ok()) return RestError(response);
  return response.body;
}

Result<std::vector<std::string>> RestCatalog::ListPaged(const std::string& path,
                                                        const std::string& key,
                                                        const std::string& extra_query) const {
  std::vector<std::string> out;
  std::string token;
  while (true) {
    std::string query = extra_query;
    if (!token.empty()) {
      query += (query.empty() ? "" : "&") + std::string("pageToken=") + HttpClient::Encode(token);
    }
    ARROW_ASSIGN_OR_RAISE(auto text, Call("GET", path + (query.empty() ? "" : "?" + query)));
    json parsed = json::parse(text, nullptr, false);
    if (!parsed.is_object()) {
      return Status::IOError("REST catalog server answered ", path, " with no JSON object");
    }
    if (parsed.contains(key) && parsed[key].is_array()) {
      for (const auto& v : parsed[key]) {
        if (v.is_string()) out.push_back(v.get<std::string>());
      }
    }
    std::string next = StringField(parsed, "nextPageToken");
    if (next.empty() || next == token) break;
    token = next;
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<std::string>> RestCatalog::ListDatabases() const {
  return ListPaged("/databases", "databases");
}

Result<std::vector<std::string>> RestCatalog::ListTables(const std::string& database) const {
  ARROW_RETURN_NOT_OK(ValidateName(database, "database"));
  auto tables = ListPaged("/databases/" + HttpClient::Encode(database) + "/tables", "tables");
  if (!tables.ok()) return ForDatabase(tables.status(), database);
  return tables;
}

Status RestCatalog::CreateDatabase(const std::string& database, bool ignore_if_exists,
                                   const std::map<std::string, std::string>& properties) const {
  ARROW_RETURN_NOT_OK(ValidateName(database, "database"));
  json body{{"name", database}, {"options", properties}};
  auto answer = Call("POST", "/databases", body.dump());
  if (answer.ok()) return Status::OK();
  if (ignore_if_exists && HasKind(answer.status(), ErrorKind::kRestAlreadyExists)) {
    return Status::OK();
  }
  return ForDatabase(answer.status(), database);
}

Result<std::map<std::string, std::string>> RestCatalog::GetDatabase(
    const std::string& database) const {
  ARROW_RETURN_NOT_OK(ValidateName(database, "database"));
  auto answer = Call("GET", "/databases/" + HttpClient::Encode(database));
  if (!answer.ok()) return ForDatabase(answer.status(), database);
  std::map<std::string, std::string> out;
  json parsed = json::parse(*answer, nullptr, false);
  if (parsed.is_object() && parsed.contains("options") && parsed["options"].is_object()) {
    for (const auto& [k, v] : parsed["options"].items()) {
      if (v.is_string()) out[k] = v.get<std::string>();
    }
  }
  return out;
}

Status RestCatalog::DropDatabase(const std::string& database, bool ignore_if_not_exists,
                                 bool cascade) const {
  ARROW_RETURN_NOT_OK(ValidateName(database, "database"));
  if (!cascade) {
    auto tables = ListTables(database);
    if (!tables.ok()) {
      if (ignore_if_not_exists && HasKind(tables.status(), ErrorKind::kDatabaseNotExist)) {
        return Status::OK();
      }
      return tables.status();
    }
    if (!tables->empty()) return Status::Invalid("Cannot drop non-empty database: ", database);
  }
  auto answer = Call("DELETE", "/databases/" + HttpClient::Encode(database));
  if (answer.ok()) return Status::OK();
  if (ignore_if_not_exists && HasKind(answer.status(), ErrorKind::kRestNoSuchResource)) {
    return Status::OK();
  }
  return ForDatabase(answer.status(), database);
}

Status RestCatalog::AlterDatabase(const std::string& database,
                                  const std::map<std::string, std::string>& updates,
                                  const std::vector<std::string>& removals) const {
  ARROW_RETURN_NOT_OK(ValidateName(database, "database"));
  json body{{"removals", removals}, {"updates", updates}};
  auto answer = Call("POST", "/databases/" + HttpClient::Encode(database), body.dump());
  return answer.ok() ? Status::OK() : ForDatabase(answer.status(), database);
}

Result<std::shared_ptr<Table>> RestCatalog::GetTable(const std::string& identifier) const {
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(identifier));
  auto answer = Call("GET", TablePath(id));
  if (!answer.ok()) return ForTable(answer.status(), id.FullName());
  json parsed = json::parse(*answer, nullptr, false);
  const std::string path = parsed.is_object() ? StringField(parsed, "path") : "";
  if (path.empty()) {
    return Status::IOError("REST catalog server gave no path for table ", id.FullName());
  }
  std::shared_ptr<FileIO> io;
  ARROW_ASSIGN_OR_RAISE(bool data_token, options_.GetBool("data-token.enabled", false));
  if (data_token) {
    auto self = shared_from_this();
    ARROW_ASSIGN_OR_RAISE(io, RestTokenFileIO::Make(
                                  path, FilesystemOptions(options_.values()),
                                  [self, id]() { return self->LoadDataToken(id); }, std::nullopt));
  } else {
    ARROW_ASSIGN_OR_RAISE(io, FileIO::Make(path, options_.values()));
  }
  std::string location = path;
  if (location.rfind("file://", 0) == 0) {
    location = location.substr(7);
  } else if (location.rfind("file:/", 0) == 0) {
    location = location.substr(5);
  }
  ARROW_ASSIGN_OR_RAISE(auto table, Table::Open(io, id, location));
  return table->WithSnapshotCommit(MakeSnapshotCommit(id, StringField(parsed, "id")));
}

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

Result<RestDataToken> RestCatalog::LoadDataToken(const Identifier& identifier) const {
  auto answer = Call("GET", TablePath(identifier) + "/token");
  if (!answer.ok()) return ForTable(answer.status(), identifier.FullName());
  return ParseDataToken(*answer, identifier.FullName());
}

Result<std::shared_ptr<FileIO>> RestCatalog::FileIOFromState(
    const std::string& path, const std::map<std::string, std::string>& io_options,
    const std::map<std::string, std::string>& commit_state) {
  std::map<std::string, std::string> base;
  auto shipped = RestTokenFileIO::ShippedToken(io_options, &base);
  if (!shipped || commit_state.empty()) return FileIO::Make(path, io_options);
  auto options = commit_state;
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(options[kStateIdentifier]));
  options.erase(kStateTableId);
  options.erase(kStateIdentifier);
  auto loader = [options, id]() -> Result<RestDataToken> {
    ARROW_ASSIGN_OR_RAISE(auto catalog, Make(options));
    return catalog->LoadDataToken(id);
  };
  ARROW_ASSIGN_OR_RAISE(
      auto io, RestTokenFileIO::Make(path, std::move(base), std::move(loader), std::move(shipped)));
  return io;
}

Status RestCatalog::CreateTable(const std::string& identifier, const TableSchema& schema,
                                bool ignore_if_exists) const {
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(identifier));
  json file = json::parse(schema.ToJson());
  json request_schema{{"fields", file["fields"]},
                      {"partitionKeys", file.value("partitionKeys", json::array())},
                      {"primaryKeys", file.value("primaryKeys", json::array())},
                      {"options", file.value("options", json::object())}};
  if (file.contains("comment")) request_schema["comment"] = file["comment"];
  json body{{"identifier", IdentifierJson(id)}, {"schema", request_schema}};
  auto answer =
      Call("POST", "/databases/" + HttpClient::Encode(id.database) + "/tables", body.dump());
  if (answer.ok()) return Status::OK();
  if (ignore_if_exists && HasKind(answer.status(), ErrorKind::kRestAlreadyExists)) {
    return Status::OK();
  }
  if (HasKind(answer.status(), ErrorKind::kRestNoSuchResource)) {
    return ForDatabase(answer.status(), id.database);
  }
  return ForTable(answer.status(), id.FullName());
}

Status RestCatalog::DropTable(const std::string& identifier, bool ignore_if_not_exists) const {
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(identifier));
  auto answer = Call("DELETE", TablePath(id));
  if (answer.ok()) return Status::OK();
  if (ignore_if_not_exists && HasKind(answer.status(), ErrorKind::kRestNoSuchResource)) {
    return Status::OK();
  }
  return ForTable(answer.status(), id.FullName());
}

Status RestCatalog::RenameTable(const std::string& from, const std::string& to) const {
  ARROW_ASSIGN_OR_RAISE(Identifier source, Identifier::Parse(from));
  ARROW_ASSIGN_OR_RAISE(Identifier target, Identifier::Parse(to));
  json body{{"source", IdentifierJson(source)}, {"destination", IdentifierJson(target)}};
  auto answer = Call("POST", "/tables/rename", body.dump());
  if (answer.ok()) return Status::OK();
  if (HasKind(answer.status(), ErrorKind::kRestAlreadyExists)) {
    return ForTable(answer.status(), target.FullName());
  }
  return ForTable(answer.status(), source.FullName());
}

Status RestCatalog::AlterTable(const std::string& identifier, const std::string& changes_json,
                               bool ignore_if_not_exists) const {
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(identifier));
  json changes = json::parse(changes_json, nullptr, false);
  if (!changes.is_array()) return Status::Invalid("schema changes must be a JSON array");
  json body{{"changes", changes}};
  auto answer = Call("POST", TablePath(id), body.dump());
  if (answer.ok()) return Status::OK();
  if (ignore_if_not_exists && HasKind(answer.status(), ErrorKind::kRestNoSuchResource)) {
    return Status::OK();
  }
  return ForTable(answer.status(), id.FullName());
}

std::shared_ptr<const SnapshotCommit> RestCatalog::MakeSnapshotCommit(
    const Identifier& identifier, const std::string& table_id) const {
  return std::make_shared<RestSnapshotCommit>(shared_from_this(), identifier, table_id);
}

Result<std::shared_ptr<const SnapshotCommit>> RestCatalog::SnapshotCommitFromState(
    const std::map<std::string, std::string>& state) {
  auto options = state;
  const std::string table_id = options[kStateTableId];
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(options[kStateIdentifier]));
  options.erase(kStateTableId);
  options.erase(kStateIdentifier);
  ARROW_ASSIGN_OR_RAISE(auto catalog, Make(options));
  return catalog->MakeSnapshotCommit(id, table_id);
}

}  // namespace paimon_rowid
