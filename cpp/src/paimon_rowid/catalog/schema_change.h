// ALTER TABLE: the schema changes of pypaimon's / Java's SchemaChange and the rules that decide
// whether they apply (Java's SchemaManager + SchemaValidation; pypaimon's messages).
//
// A change list is applied in order to an accumulating copy of the latest schema; the result
// is one new schema (id + 1) or an error, never a partial schema. Catalog::AlterTable writes
// the result with the no-replace primitive and re-applies the list on a newer schema when a
// concurrent alter won the id (docs/schema-evolution.md).
//
// Errors (the Python layer wraps each in RuntimeError "Failed to alter table db.t: <msg>", as
// pypaimon does):
//   * kColumnNotExist (KeyError) "Column X does not exist";
//   * kColumnAlreadyExist (AlreadyExists) "Column X already exists";
//   * Invalid with pypaimon's / Java's message for every refused rule;
//   * NotImplemented for a change of an unknown action.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "paimon_rowid/common/status.h"
#include "paimon_rowid/types/table_schema.h"

namespace paimon_rowid {

struct ColumnMove {
  enum class Type { kFirst, kAfter, kBefore, kLast };
  std::string field_name;
  std::optional<std::string> reference_field_name;
  Type type = Type::kLast;
};

struct SchemaChange {
  enum class Action {
    kSetOption,
    kRemoveOption,
    kUpdateComment,
    kAddColumn,
    kRenameColumn,
    kDropColumn,
    kUpdateColumnType,
    kUpdateColumnNullability,
    kUpdateColumnComment,
    kUpdateColumnDefaultValue,
    kUpdateColumnPosition,
  };
  Action action = Action::kSetOption;
  std::string key;                           // set/remove option
  std::string value;                         // set option
  std::optional<std::string> comment;        // update comment, add column, update column comment
  std::vector<std::string> field_names;      // column path (nested ROW fields by name)
  DataTypePtr type;                          // add column, update column type
  std::string new_name;                      // rename column
  bool keep_nullability = false;             // update column type
  bool nullable = true;                      // update column nullability
  std::optional<std::string> default_value;  // update column default value
  std::optional<ColumnMove> move;            // add column, update column position

  /// Parses one change in pypaimon's / Java's JSON form ({"action": "addColumn",
  /// "fieldNames": [...], "dataType": <type>, "comment": ..., "move": {...}}, ...).
  static Result<SchemaChange> FromJson(const nlohmann::json& value);
  /// A JSON array of changes.
  static Result<std::vector<SchemaChange>> ListFromJson(std::string_view text);
};

/// Applies `changes` to `current` and returns the next schema (id + 1, highestFieldId
/// advanced for added columns, `time_millis` set by the caller). `has_snapshot` turns on the
/// rules that only hold once data exists (immutable options, bucket). The result has passed
/// ValidateTableSchema.
Result<TableSchema> ApplySchemaChanges(const TableSchema& current,
                                       const std::vector<SchemaChange>& changes, bool has_snapshot);

/// Java's DataTypeCasts.supportsCast (explicit casts included unless `implicit_only`) and a
/// cast kernel for the read path: whether a column of type `from` may become `to`.
bool SupportsColumnTypeChange(const DataType& from, const DataType& to, bool implicit_only);

}  // namespace paimon_rowid
