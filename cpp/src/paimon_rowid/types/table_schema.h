// TableSchema: one schema/schema-N file (docs/format.md §1.4).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "paimon_rowid/common/options.h"
#include "paimon_rowid/types/data_type.h"

namespace paimon_rowid {

struct TableSchema {
  int32_t version = 3;
  int64_t id = 0;
  std::vector<DataField> fields;
  int32_t highest_field_id = -1;
  std::vector<std::string> partition_keys;
  std::vector<std::string> primary_keys;
  std::map<std::string, std::string> options;
  std::optional<std::string> comment;
  int64_t time_millis = 0;

  /// Parses schema JSON. Unknown keys are ignored; a JSON null comment is absent. A missing
  /// "version" means v1 (Java then adds bucket=1, and v<=2 without file.format means orc);
  /// those defaults are applied here. Malformed JSON or missing required keys are Invalid.
  static Result<TableSchema> FromJson(std::string_view json);
  /// Java's layout: pretty-printed with 2-space indent, keys in Java's order.
  std::string ToJson() const;

  Options table_options() const { return Options(options); }
  std::vector<std::string> field_names() const;
  /// nullptr when absent.
  const DataField* FieldByName(std::string_view name) const;
  const DataField* FieldById(int32_t id) const;
  int FieldIndex(std::string_view name) const;  // -1 when absent
  bool IsPartitionKey(std::string_view name) const;
  /// Arrow schema of all fields, equal to pypaimon's from_paimon_schema (no field ids).
  std::shared_ptr<arrow::Schema> ArrowSchema() const;
  /// The same with "PARQUET:field_id" field metadata, for Parquet writers.
  std::shared_ptr<arrow::Schema> ArrowSchemaWithFieldIds() const;
  /// The fields in `names` order; Invalid when a name is absent.
  Result<std::vector<DataField>> Project(const std::vector<std::string>& names) const;
};

}  // namespace paimon_rowid
