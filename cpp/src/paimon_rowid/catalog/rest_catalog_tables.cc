#include <nlohmann/json.hpp>

#include "paimon_rowid/catalog/rest_catalog.h"
#include "paimon_rowid/catalog/rest_catalog_internal.h"
#include "paimon_rowid/fs/file_io.h"

// RestCatalog's database and table calls, and a table's data token.
namespace paimon_rowid {
namespace {

using nlohmann::json;
using rest_internal::ForDatabase;
using rest_internal::ForTable;
using rest_internal::HasKind;
using rest_internal::IdentifierJson;
using rest_internal::StringField;
using rest_internal::TablePath;

// The keys of `options` a FileIO is made from (object-store settings, and dlf.oss-endpoint,
// which RestTokenFileIO puts over a data token's OSS endpoint), without the catalog's
// connection and bearer token.
std::map<std::string, std::string> FilesystemOptions(
    const std::map<std::string, std::string>& options) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : options) {
    if (k == "dlf.oss-endpoint") out[k] = v;
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

}  // namespace

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

Result<RestDataToken> RestCatalog::LoadDataToken(const Identifier& identifier) const {
  auto answer = Call("GET", TablePath(identifier) + "/token");
  if (!answer.ok()) return ForTable(answer.status(), identifier.FullName());
  return ParseDataToken(*answer, identifier.FullName());
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
}  // namespace paimon_rowid
