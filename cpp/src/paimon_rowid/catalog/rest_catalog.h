// A client of Paimon's REST catalog protocol (the OpenAPI spec of Apache Paimon; pypaimon's
// pypaimon/api/ speaks the same): databases and tables live on a catalog server, table data
// on the filesystem the server names per table. docs/rest-catalog.md.
//
// Make asks the server's config endpoint once (GET /v1/config?warehouse=...): its "defaults"
// sit under the user's options and its "overrides" over them; the "prefix" it returns
// is the first path segment of every later call. Every call is one HTTP request (listings
// one per page). Tables are opened at the path the server returns, with a SnapshotCommit
// (catalog/snapshot_commit.h) that sends each new snapshot to the server's commit endpoint:
// the server creates snapshot-N or answers that N is taken.
//
// Data tokens: when the merged options say "data-token.enabled": "true", a table's files are
// read and written with the credentials the server vends for it (catalog/rest_token_file_io.h).
//
// Options (pypaimon's names): "uri" (required), "warehouse" (required), "token.provider"
// ("bear": "token" is sent as "Authorization: Bearer <token>"; "dlf": every request signed
// with the dlf.* keys, catalog/rest_dlf_signer.h), "header.NAME" (extra request headers, also from
// the server's config). The token is never put into a Status message.
//
// Errors: the server's error answers become Status with an ErrorKind (common/status.h):
// kRestBadRequest (400), kRestNotAuthorized (401, "Not authorized: ..."), kRestForbidden
// (403), kRestNoSuchResource (404), kRestAlreadyExists (409), kRestServiceFailure (500),
// kRestNotImplemented (501), kRestServiceUnavailable (503), kRestError; a 404 / 409 / 403 on a
// named database or table becomes kDatabaseNotExist, kTableNotExist, kDatabaseAlreadyExist,
// kTableAlreadyExist, kDatabaseNoPermission, kTableNoPermission (as pypaimon's RESTCatalog).
// A server that cannot be reached is an IOError naming the URI, after a few quick retries.
// Thread-safety: a RestCatalog is immutable after Make and may be shared.
//
// Sources by concern: rest_catalog.cc (Make, one request, errors), rest_catalog_tables.cc
// (databases, tables, data tokens), rest_catalog_commit.cc (commit seam, pickled state),
// rest_catalog_tags.cc (tags, partitions); shared helpers in rest_catalog_internal.h.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "paimon_rowid/catalog/rest_dlf_signer.h"
#include "paimon_rowid/catalog/rest_token_file_io.h"
#include "paimon_rowid/catalog/schema_change.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/common/options.h"
#include "paimon_rowid/fs/http_client.h"
#include "paimon_rowid/meta/snapshot.h"
#include "paimon_rowid/types/table_schema.h"

namespace paimon_rowid {

struct RestTag {
  Snapshot snapshot;
  std::optional<int64_t> create_time_millis;
  std::optional<std::string> time_retained;
};

/// One partition as the server's partitions endpoint answers it (Java's Partition).
struct RestPartition {
  std::map<std::string, std::string> spec;
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  int64_t file_count = 0;
  int64_t last_file_creation_time = 0;
  int64_t total_buckets = 0;
  bool done = false;
  std::optional<int64_t> created_at;
};

class RestCatalog : public std::enable_shared_from_this<RestCatalog> {
 public:
  static Result<std::shared_ptr<RestCatalog>> Make(
      const std::map<std::string, std::string>& options);

  const std::string& uri() const { return http_->base_url(); }
  const std::string& warehouse() const { return warehouse_; }
  /// The user's options merged with the server's defaults and overrides.
  const Options& options() const { return options_; }
  /// The options Make was called with (to make this catalog again in another process).
  const std::map<std::string, std::string>& user_options() const { return user_options_; }

  Result<std::vector<std::string>> ListDatabases() const;
  /// kDatabaseNotExist when the database is absent.
  Result<std::vector<std::string>> ListTables(const std::string& database) const;
  Status CreateDatabase(const std::string& database, bool ignore_if_exists,
                        const std::map<std::string, std::string>& properties = {}) const;
  /// The database's options; kDatabaseNotExist when absent.
  Result<std::map<std::string, std::string>> GetDatabase(const std::string& database) const;
  /// Without `cascade` a database holding tables is refused (Invalid "Cannot drop non-empty
  /// database: x").
  Status DropDatabase(const std::string& database, bool ignore_if_not_exists, bool cascade) const;
  Status AlterDatabase(const std::string& database,
                       const std::map<std::string, std::string>& updates,
                       const std::vector<std::string>& removals) const;

  /// "db.table": the table at the path the server names, committing through the server.
  Result<std::shared_ptr<Table>> GetTable(const std::string& identifier) const;
  /// The server's id of the table (its "id"), used to address commits.
  Status CreateTable(const std::string& identifier, const TableSchema& schema,
                     bool ignore_if_exists) const;
  Status DropTable(const std::string& identifier, bool ignore_if_not_exists) const;
  Status RenameTable(const std::string& from, const std::string& to) const;
  /// Sends the changes (their JSON, as pypaimon's) to the server, which applies them.
  Status AlterTable(const std::string& identifier, const std::string& changes_json,
                    bool ignore_if_not_exists) const;

  /// The snapshot commit seam of the table `identifier` with server id `table_id`.
  std::shared_ptr<const SnapshotCommit> MakeSnapshotCommit(const Identifier& identifier,
                                                           const std::string& table_id) const;
  /// Rebuilds a table's seam from SnapshotCommit::State() (a pickled table on a Ray worker).
  static Result<std::shared_ptr<const SnapshotCommit>> SnapshotCommitFromState(
      const std::map<std::string, std::string>& state);

  /// Tags through the server's tag endpoints (.../tables/{t}/tags[/{name}]): the server
  /// creates and deletes the tag files itself. 404 / 409 arrive as kRestNoSuchResource /
  /// kRestAlreadyExists (the caller names the tag); kTableNotExist for a missing table.
  Status CreateTag(const std::string& identifier, const std::string& tag,
                   std::optional<int64_t> snapshot_id,
                   const std::optional<std::string>& time_retained) const;
  /// The server's tag: the tagged snapshot, its creation time (epoch ms) and retention (as the
  /// server spells it), each when the server names one.
  Result<RestTag> GetTag(const std::string& identifier, const std::string& tag) const;
  /// Every tag name (all pages), sorted; `prefix` filters on the server.
  Result<std::vector<std::string>> ListTags(const std::string& identifier,
                                            const std::string& prefix) const;
  Status DeleteTag(const std::string& identifier, const std::string& tag) const;
  /// The server's partitions of the table (all pages), as it keeps them.
  Result<std::vector<RestPartition>> ListPartitions(const std::string& identifier) const;
  /// Registers partitions on the server (POST .../partitions, the OpenAPI spec's
  /// createPartitions; a catalog call, no table data is touched). kTableNotExist,
  /// kTableNoPermission; kRestAlreadyExists (409: some exist and !ignore_if_exists; the
  /// server rejects the whole batch); kRestBadRequest (400); kRestNotImplemented (501, or a
  /// 404 about a table that exists: a server without the call, as Java 1.4.2's test server).
  Status CreatePartitions(const std::string& identifier,
                          const std::vector<std::map<std::string, std::string>>& specs,
                          bool ignore_if_exists) const;
  /// Marks partitions done on the server (POST .../partitions/mark). A 501 (the table's
  /// partitions are not kept by the server) is OK, as Java's RESTCatalog ignores it;
  /// kTableNotExist, kTableNoPermission.
  Status MarkDonePartitions(const std::string& identifier,
                            const std::vector<std::map<std::string, std::string>>& specs) const;

  /// The table's data token (GET .../tables/{t}/token): filesystem options and their expiry.
  Result<RestDataToken> LoadDataToken(const Identifier& identifier) const;
  /// The FileIO of a pickled table (Table's state): a RestTokenFileIO when `io_options`
  /// carry a data token (it asks the server for a new one, through a catalog made from
  /// `commit_state`, only when that token needs refreshing), else FileIO::Make.
  static Result<std::shared_ptr<FileIO>> FileIOFromState(
      const std::string& path, const std::map<std::string, std::string>& io_options,
      const std::map<std::string, std::string>& commit_state);

  /// One request: `method` on `path` (after the prefix, e.g. "/databases"). The answer's
  /// JSON (null for an empty body) or the mapped error. Used by the calls above.
  Result<std::string> Call(const std::string& method, const std::string& path,
                           const std::string& body = "") const;

 private:
  RestCatalog() = default;
  Result<std::vector<std::string>> ListPaged(const std::string& path, const std::string& key,
                                             const std::string& query = "") const;
  std::map<std::string, std::string> Headers() const;
  Status TagError(const Status& st, const Identifier& id) const;

  std::shared_ptr<HttpClient> http_;
  std::string warehouse_;
  std::string base_path_;  // "/v1/<prefix>"
  Options options_;
  std::map<std::string, std::string> user_options_;
  std::map<std::string, std::string> headers_;
  std::shared_ptr<const DlfSigner> signer_;  // token.provider=dlf: every request signed
};

}  // namespace paimon_rowid
