#include "paimon_rowid/catalog/catalog.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "paimon_rowid/catalog/schema_validation.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/common/clock.h"
#include "paimon_rowid/common/identifier.h"

namespace paimon_rowid {
namespace {

constexpr const char* kDbSuffix = ".db";
constexpr const char* kWarehouse = "warehouse";
constexpr const char* kMetastore = "metastore";

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Status DatabaseNotExist(const std::string& database) {
  return MakeKindError(arrow::StatusCode::KeyError, ErrorKind::kDatabaseNotExist,
                       "Database " + database + " does not exist.");
}

Status TableNotExist(const Identifier& id) {
  return MakeKindError(arrow::StatusCode::KeyError, ErrorKind::kTableNotExist,
                       "Table " + id.FullName() + " does not exist.");
}

// "file:///x" and "file:/x" name the local path "/x".
std::string StripFileScheme(std::string path) {
  if (path.rfind("file://", 0) == 0) {
    path = path.substr(7);
  } else if (path.rfind("file:/", 0) == 0) {
    path = path.substr(5);
  }
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// True when `dir` holds a schema/schema-N file, the filesystem catalog's test for a table.
Result<bool> HasSchemaFile(const FileIO& io, const std::string& table_dir) {
  ARROW_ASSIGN_OR_RAISE(auto entries, io.List(JoinPath(table_dir, "schema")));
  for (const auto& e : entries) {
    if (e.is_dir || e.name.rfind("schema-", 0) != 0 || e.name.size() == 7) continue;
    if (std::all_of(e.name.begin() + 7, e.name.end(),
                    [](char c) { return c >= '0' && c <= '9'; })) {
      return true;
    }
  }
  return false;
}

// The checks Java's SchemaValidation applies to an append table with row tracking, plus
// the structural ones a hand-built TableSchema could violate.
// Field ids must be assigned and unique; the table rules are ValidateTableSchema's.
Status ValidateNewSchema(const TableSchema& schema) {
  std::set<int32_t> ids;
  for (const auto& f : schema.fields) {
    if (f.id < 0 || !ids.insert(f.id).second) {
      return Status::Invalid("field '", f.name, "' has an unassigned or duplicated id ", f.id,
                             " (see AssignFieldIds)");
    }
  }
  return ValidateTableSchema(schema);
}

}  // namespace

Catalog::Catalog(std::string warehouse, Options options, std::shared_ptr<FileIO> io)
    : warehouse_(std::move(warehouse)), options_(std::move(options)), io_(std::move(io)) {}

Result<std::shared_ptr<Catalog>> Catalog::Make(const std::map<std::string, std::string>& options) {
  auto metastore = options.find(kMetastore);
  if (metastore != options.end() && metastore->second != "filesystem") {
    return Status::Invalid("Unknown catalog identifier: ", metastore->second,
                           ". Available types: ['filesystem', 'rest'] (a 'rest' catalog is "
                           "made by RestCatalog::Make, catalog/rest_catalog.h)");
  }
  auto warehouse = options.find(kWarehouse);
  if (warehouse == options.end() || warehouse->second.empty()) {
    return Status::Invalid("Paimon 'warehouse' path must be set");
  }
  std::string path = StripFileScheme(warehouse->second);
  if (path.empty()) return Status::Invalid("Paimon 'warehouse' path must be set");
  if (path.find('\0') != std::string::npos) {
    return Status::Invalid("Paimon 'warehouse' path must not contain a NUL character");
  }
  // A local path, or an object-store URI (s3://bucket/path) configured by the options.
  ARROW_ASSIGN_OR_RAISE(auto io, FileIO::Make(path, options));
  return std::shared_ptr<Catalog>(new Catalog(std::move(path), Options(options), std::move(io)));
}

std::string Catalog::DatabasePath(const std::string& database) const {
  return JoinPath(warehouse_, database + kDbSuffix);
}

std::string Catalog::TablePath(const std::string& database, const std::string& table) const {
  return JoinPath(DatabasePath(database), table);
}

Result<std::vector<std::string>> Catalog::ListDatabases() const {
  ARROW_ASSIGN_OR_RAISE(auto entries, io_->List(warehouse_));
  if (entries.empty() && io_ == FileIO::Local()) {
    // A local warehouse that is not there is a typo far more often than an empty lake (pypaimon
    // lists nothing). Object stores have no directories: an empty prefix stays an empty list.
    ARROW_ASSIGN_OR_RAISE(bool is_dir, io_->IsDirectory(warehouse_));
    if (!is_dir) {
      return Status::IOError("warehouse '", warehouse_,
                             "' does not exist or is not a directory (create_database creates it)");
    }
  }
  std::vector<std::string> out;
  const std::string suffix = kDbSuffix;
  for (const auto& e : entries) {
    if (!e.is_dir || !EndsWith(e.name, suffix)) continue;
    std::string name = e.name.substr(0, e.name.size() - suffix.size());
    if (ValidateName(name, "database").ok()) out.push_back(std::move(name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<bool> Catalog::DatabaseExists(const std::string& database) const {
  ARROW_RETURN_NOT_OK(ValidateName(database, "database"));
  return io_->IsDirectory(DatabasePath(database));
}

Result<std::vector<std::string>> Catalog::ListTables(const std::string& database) const {
  ARROW_ASSIGN_OR_RAISE(bool exists, DatabaseExists(database));
  if (!exists) return DatabaseNotExist(database);
  std::string db_path = DatabasePath(database);
  ARROW_ASSIGN_OR_RAISE(auto entries, io_->List(db_path));
  std::vector<std::string> out;
  for (const auto& e : entries) {
    if (!e.is_dir || e.name[0] == '.' || !ValidateName(e.name, "table").ok()) continue;
    ARROW_ASSIGN_OR_RAISE(bool is_table, HasSchemaFile(*io_, JoinPath(db_path, e.name)));
    if (is_table) out.push_back(e.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::shared_ptr<Table>> Catalog::GetTable(const std::string& identifier) const {
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(identifier));
  std::string path = TablePath(id.database, id.table);
  ARROW_ASSIGN_OR_RAISE(bool is_table, HasSchemaFile(*io_, path));
  if (!is_table) return TableNotExist(id);
  return Table::Open(io_, id, std::move(path));
}

Status Catalog::CreateDatabase(const std::string& database, bool ignore_if_exists) const {
  // "a.b.t" names database "a" (identifiers split at the first dot, as in pypaimon and
  // Java), so a database named "a.b" could never be addressed.
  if (database.find('.') != std::string::npos) {
    return Status::Invalid("database name '", database, "' must not contain '.'");
  }
  ARROW_ASSIGN_OR_RAISE(bool exists, DatabaseExists(database));
  if (exists) {
    if (ignore_if_exists) return Status::OK();
    return MakeKindError(arrow::StatusCode::AlreadyExists, ErrorKind::kDatabaseAlreadyExist,
                         "Database " + database + " already exists.");
  }
  return io_->MakeDirs(DatabasePath(database));
}

Status Catalog::DropDatabase(const std::string& database, bool ignore_if_not_exists,
                             bool cascade) const {
  ARROW_ASSIGN_OR_RAISE(bool exists, DatabaseExists(database));
  if (!exists) return ignore_if_not_exists ? Status::OK() : DatabaseNotExist(database);
  if (!cascade) {
    ARROW_ASSIGN_OR_RAISE(auto tables, ListTables(database));
    if (!tables.empty()) return Status::Invalid("Database ", database, " is not empty.");
  }
  return io_->DeleteDirRecursive(DatabasePath(database));
}

Status Catalog::CreateTable(const std::string& identifier, TableSchema schema,
                            bool ignore_if_exists) const {
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(identifier));
  ARROW_ASSIGN_OR_RAISE(bool db_exists, DatabaseExists(id.database));
  if (!db_exists) return DatabaseNotExist(id.database);
  auto already_exists = [&]() -> Status {
    if (ignore_if_exists) return Status::OK();
    return MakeKindError(arrow::StatusCode::AlreadyExists, ErrorKind::kTableAlreadyExist,
                         "Table " + id.FullName() + " already exists.");
  };
  std::string path = TablePath(id.database, id.table);
  ARROW_ASSIGN_OR_RAISE(bool is_table, HasSchemaFile(*io_, path));
  if (is_table) return already_exists();

  ARROW_RETURN_NOT_OK(ValidateNewSchema(schema));
  // A directory without a schema that still holds files (snapshots, manifests, data of a
  // table dropped while a writer ran, or of a foreign tool) must not be adopted: the new
  // table would start from the old snapshots and fail to read.
  // schema/ is left out: it holds no schema file (checked above), and racing creators put
  // their temp files there before one of them links schema-0.
  bool leftovers = false;
  ARROW_ASSIGN_OR_RAISE(auto entries, io_->List(path));
  for (const auto& e : entries) {
    if (e.is_dir && e.name == "schema") continue;
    if (!e.is_dir) {
      leftovers = true;
    } else {
      ARROW_ASSIGN_OR_RAISE(leftovers, io_->HoldsFiles(JoinPath(path, e.name)));
    }
    if (leftovers) break;
  }
  if (leftovers) {
    return Status::Invalid("cannot create table ", id.FullName(), ": its directory '", path,
                           "' still holds files (of a dropped table?); remove them first");
  }
  schema.version = 3;
  schema.id = 0;
  schema.highest_field_id = std::max(schema.highest_field_id, HighestFieldId(schema.fields));
  if (schema.time_millis == 0) schema.time_millis = NowMillis();
  Status st = io_->WriteFileNoReplace(JoinPath(path, "schema/schema-0"), schema.ToJson());
  // Losing a race against another creator is the same as finding the table.
  if (st.IsAlreadyExists()) return already_exists();
  return st;
}

Status Catalog::RenameTable(const std::string& from, const std::string& to) const {
  ARROW_ASSIGN_OR_RAISE(Identifier source, Identifier::Parse(from));
  ARROW_ASSIGN_OR_RAISE(Identifier target, Identifier::Parse(to));
  std::string source_path = TablePath(source.database, source.table);
  ARROW_ASSIGN_OR_RAISE(bool source_exists, HasSchemaFile(*io_, source_path));
  if (!source_exists) return TableNotExist(source);
  ARROW_ASSIGN_OR_RAISE(bool db_exists, DatabaseExists(target.database));
  if (!db_exists) return DatabaseNotExist(target.database);
  std::string target_path = TablePath(target.database, target.table);
  ARROW_ASSIGN_OR_RAISE(bool target_exists, HasSchemaFile(*io_, target_path));
  if (target_exists) {
    return MakeKindError(arrow::StatusCode::AlreadyExists, ErrorKind::kTableAlreadyExist,
                         "Table " + target.FullName() + " already exists.");
  }
  if (!io_->atomic_rename()) {
    return Status::NotImplemented("rename_table is not supported on '", warehouse_,
                                  "': the store has no atomic directory rename");
  }
  ARROW_ASSIGN_OR_RAISE(bool leftovers, io_->Exists(target_path));
  if (leftovers) {
    return Status::Invalid("cannot rename ", source.FullName(), " to ", target.FullName(),
                           ": the directory '", target_path,
                           "' already exists (of a dropped table?); remove it first");
  }
  return io_->Rename(source_path, target_path);
}

Result<std::optional<TableSchema>> Catalog::AlterTable(const std::string& identifier,
                                                       const std::vector<SchemaChange>& changes,
                                                       bool ignore_if_not_exists,
                                                       int max_attempts) const {
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(identifier));
  std::string path = TablePath(id.database, id.table);
  for (int attempt = 0; attempt < max_attempts; ++attempt) {
    ARROW_ASSIGN_OR_RAISE(bool is_table, HasSchemaFile(*io_, path));
    if (!is_table) {
      if (ignore_if_not_exists) return std::nullopt;
      return TableNotExist(id);
    }
    // Opened afresh each round: the latest schema and whether a snapshot exists.
    ARROW_ASSIGN_OR_RAISE(auto table, Table::Open(io_, id, path));
    ARROW_ASSIGN_OR_RAISE(auto latest_snapshot, table->LatestSnapshotId());
    ARROW_ASSIGN_OR_RAISE(TableSchema next, ApplySchemaChanges(table->schema(), changes,
                                                               latest_snapshot.has_value()));
    next.time_millis = NowMillis();
    Status st = io_->WriteFileNoReplace(table->SchemaPath(next.id), next.ToJson());
    if (st.ok()) return next;
    if (!st.IsAlreadyExists()) return st;
    // Another alter won schema-(id): apply the changes again on top of it.
  }
  return Status::Invalid("Failed to alter table ", id.FullName(), ": schema-N was taken by ",
                         max_attempts, " concurrent alters in a row");
}

Status Catalog::DropTable(const std::string& identifier, bool ignore_if_not_exists) const {
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(identifier));
  std::string path = TablePath(id.database, id.table);
  ARROW_ASSIGN_OR_RAISE(bool is_table, HasSchemaFile(*io_, path));
  if (!is_table) return ignore_if_not_exists ? Status::OK() : TableNotExist(id);
  // First one atomic rename out of the table's place: the table is gone at once for every
  // reader, and a writer still running finds no schema when it commits and cleans up after
  // itself (files it creates later land in the old place, not in the directory being
  // deleted). Then the renamed directory is deleted; list_tables skips hidden names.
  if (!io_->atomic_rename()) {
    // An object store renames by copying: the schema files go first instead, so the table
    // stops being one (for every reader and a committing writer) before its files go.
    ARROW_RETURN_NOT_OK(io_->DeleteDirRecursive(JoinPath(path, "schema")));
    return io_->DeleteDirRecursive(path);
  }
  std::string trash =
      JoinPath(DatabasePath(id.database), "." + id.table + ".dropped-" + RandomUuid());
  ARROW_RETURN_NOT_OK(io_->Rename(path, trash));
  return io_->DeleteDirRecursive(trash);
}

}  // namespace paimon_rowid
