#include "paimon_rowid/catalog/rest_catalog.h"

#include <algorithm>
#include <chrono>

#include "paimon_rowid/catalog/rest_catalog_internal.h"

// RestCatalog's connection: Make (options, authentication, the config endpoint), one request
// (Call, signed for DLF), paged listings, and the server's errors mapped to Status.
namespace paimon_rowid {

namespace rest_internal {

using nlohmann::json;

std::string StringField(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

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
json IdentifierJson(const Identifier& id) {
  return json{{"database", id.database}, {"object", id.table}};
}

std::string TablePath(const Identifier& id) {
  return "/databases/" + HttpClient::Encode(id.database) + "/tables/" +
         HttpClient::Encode(id.table);
}
}  // namespace rest_internal

using nlohmann::json;
using rest_internal::RestError;
using rest_internal::StringField;

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
    ARROW_ASSIGN_OR_RAISE(auto signed_headers,
                          signer_->Sign({method, full.substr(0, q), std::move(query), body}));
    for (auto& [k, v] : signed_headers) {
      // HttpClient sends Content-Type for a body itself (the same value).
      if (k != "Content-Type" && k != "content-type") headers[k] = std::move(v);
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

}  // namespace paimon_rowid
