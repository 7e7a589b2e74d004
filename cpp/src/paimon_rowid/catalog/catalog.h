// The filesystem catalog (docs/format.md §1.1): databases are "<name>.db" directories under the
// warehouse, tables are directories holding schema/schema-N. Every name is validated
// (common/identifier.h) before a path is built, so nothing outside the warehouse is touched.
// Thread-safety: a Catalog is immutable after Make and may be shared.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "paimon_rowid/catalog/schema_change.h"
#include "paimon_rowid/common/options.h"
#include "paimon_rowid/fs/file_io.h"
#include "paimon_rowid/types/table_schema.h"

namespace paimon_rowid {

class Table;

class Catalog {
 public:
  /// Options: "warehouse" (required; Invalid "Paimon 'warehouse' path must be set"),
  /// "metastore" (only "filesystem"; anything else Invalid "Unknown catalog identifier: x.
  /// Available types: [...]"). A "file://" prefix on the warehouse is accepted.
  static Result<std::shared_ptr<Catalog>> Make(const std::map<std::string, std::string>& options);

  const std::string& warehouse() const { return warehouse_; }
  const std::shared_ptr<FileIO>& file_io() const { return io_; }
  const Options& options() const { return options_; }

  /// Sorted database names. IOError when a local warehouse directory does not exist.
  Result<std::vector<std::string>> ListDatabases() const;
  /// kDatabaseNotExist (KeyError-like) when the database is absent.
  Result<std::vector<std::string>> ListTables(const std::string& database) const;
  Result<bool> DatabaseExists(const std::string& database) const;
  /// "db.table". kTableNotExist when absent.
  Result<std::shared_ptr<Table>> GetTable(const std::string& identifier) const;

  Status CreateDatabase(const std::string& database, bool ignore_if_exists) const;
  Status DropDatabase(const std::string& database, bool ignore_if_not_exists, bool cascade) const;
  /// Writes schema-0 with the no-replace primitive. `schema.id` is set to 0 and field ids
  /// must already be assigned.
  Status CreateTable(const std::string& identifier, TableSchema schema,
                     bool ignore_if_exists) const;
  Status DropTable(const std::string& identifier, bool ignore_if_not_exists) const;
  /// Moves table `from` to `to` (also across databases) with one directory rename, as
  /// pypaimon's filesystem catalog does: kTableNotExist for a missing source,
  /// kDatabaseNotExist for a missing target database, kTableAlreadyExist for an existing
  /// target; Invalid when the target directory holds files of no table; NotImplemented on
  /// a store without atomic rename (an object store would copy the table file by file).
  Status RenameTable(const std::string& from, const std::string& to) const;
  /// Applies `changes` (catalog/schema_change.h) to the latest schema and writes the result
  /// as schema-(latest + 1) with the no-replace primitive. When a concurrent alter took that
  /// id first, the changes are applied again on the newer schema (up to `max_attempts`
  /// times, then Invalid); a change the newer schema refuses is refused and nothing is
  /// written. kTableNotExist when the table is absent (OK with `ignore_if_not_exists`).
  /// Returns the schema written (nullopt when the missing table was ignored).
  Result<std::optional<TableSchema>> AlterTable(const std::string& identifier,
                                                const std::vector<SchemaChange>& changes,
                                                bool ignore_if_not_exists,
                                                int max_attempts = 1000) const;

  std::string DatabasePath(const std::string& database) const;
  std::string TablePath(const std::string& database, const std::string& table) const;

 private:
  Catalog(std::string warehouse, Options options, std::shared_ptr<FileIO> io);
  std::string warehouse_;
  Options options_;
  std::shared_ptr<FileIO> io_;
};

}  // namespace paimon_rowid
