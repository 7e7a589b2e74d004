// Helpers shared by the files of RestCatalog (rest_catalog*.cc): the server's error answers
// mapped to Status, the re-mapping of a REST error onto a named database or table, and the
// request paths. Not part of the public surface.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "paimon_rowid/common/identifier.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/fs/http_client.h"

namespace paimon_rowid::rest_internal {

/// The string at `key` of a JSON object, or "" when absent or not a string.
std::string StringField(const nlohmann::json& object, const char* key);

/// The server's error answer as pypaimon's DefaultErrorHandler raises it (rest_catalog.h lists
/// the kinds).
Status RestError(const HttpResponse& response);

bool HasKind(const Status& st, ErrorKind kind);

/// A REST error about a named database or table, as pypaimon's RESTCatalog re-raises it:
/// 404 -> k*NotExist, 409 -> k*AlreadyExist, 403 -> k*NoPermission; other errors unchanged.
Status ForDatabase(const Status& st, const std::string& database);
Status ForTable(const Status& st, const std::string& table);

nlohmann::json IdentifierJson(const Identifier& id);

/// "/databases/{db}/tables/{table}", each segment URL-encoded.
std::string TablePath(const Identifier& id);

}  // namespace paimon_rowid::rest_internal
