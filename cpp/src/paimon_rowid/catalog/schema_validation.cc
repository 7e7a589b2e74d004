#include "paimon_rowid/catalog/schema_validation.h"

#include <set>

#include "paimon_rowid/catalog/bucket_spec.h"
#include "paimon_rowid/catalog/table_options.h"

namespace paimon_rowid {

Status ValidateTableSchema(const TableSchema& schema) {
  std::set<std::string> names;
  for (const auto& f : schema.fields) {
    if (f.name.empty()) return Status::Invalid("field names must not be empty");
    // A NUL cuts the name short in C strings (Parquet/Avro metadata, error messages).
    if (f.name.find('\0') != std::string::npos) {
      return Status::Invalid("field name '", f.name.substr(0, f.name.find('\0')),
                             "\\0...' must not contain a NUL character");
    }
    if (!f.type) return Status::Invalid("field '", f.name, "' has no type");
    if (system_fields::IsSystemField(f.name)) {
      return Status::Invalid("Field name '", f.name,
                             "' is reserved for a system field of row-tracking tables, please "
                             "rename it");
    }
    if (!names.insert(f.name).second) {
      return Status::Invalid("Table column names must be unique, '", f.name, "' is duplicated");
    }
  }
  for (const auto& key : schema.partition_keys) {
    const DataField* f = schema.FieldByName(key);
    if (f == nullptr) {
      return Status::Invalid("Table column ", key, " should include all partition fields");
    }
    if (f->type->is_nested() || f->type->holds_blob() || f->type->root() == TypeRoot::kVariant) {
      return Status::Invalid("partition key '", key, "' must be of an atomic, non-BLOB type");
    }
  }
  if (!schema.primary_keys.empty()) {
    return Status::NotImplemented(
        "primary-key tables are not supported; paimon-rowid writes append tables only");
  }

  Options opts = schema.table_options();
  ARROW_RETURN_NOT_OK(ValidateTableOptions(opts, schema.field_names()));
  ARROW_ASSIGN_OR_RAISE(bool row_tracking, opts.GetBool(options::kRowTrackingEnabled, false));
  ARROW_ASSIGN_OR_RAISE(bool data_evolution, opts.GetBool(options::kDataEvolutionEnabled, false));
  // Checked for its form only: deletion vectors go with any append table.
  ARROW_RETURN_NOT_OK(opts.GetBool(options::kDeletionVectorsEnabled, false).status());
  if (row_tracking) {
    if (auto bucket = opts.Get(options::kBucket)) {
      ARROW_ASSIGN_OR_RAISE(int64_t b, opts.GetInt(options::kBucket, -1));
      if (b != -1) {
        return Status::Invalid(
            "Cannot define bucket for row tracking table, it only supports bucket = -1");
      }
    }
  }
  ARROW_RETURN_NOT_OK(BucketSpec::Of(schema).status());
  if (data_evolution && !row_tracking) {
    return Status::Invalid("Data evolution config must enabled with row-tracking.enabled");
  }

  for (const auto& f : schema.fields) {
    ARROW_RETURN_NOT_OK(CheckBlobNesting(f));
  }
  bool has_blob = false, has_non_blob = false;
  for (const auto& f : schema.fields) {
    if (f.type->holds_blob()) {
      has_blob = true;
    } else {
      has_non_blob = true;
    }
  }
  if (has_blob) {
    if (!row_tracking || !data_evolution) {
      return Status::Invalid(
          "BLOB columns require 'row-tracking.enabled' = 'true' and 'data-evolution.enabled' = "
          "'true'");
    }
    if (!has_non_blob) {
      return Status::Invalid("A table with BLOB columns must have at least one non-BLOB column");
    }
  }
  for (const char* key : {options::kBlobDescriptorField, "blob.stored-descriptor-fields"}) {
    auto value = opts.Get(key);
    if (!value) continue;
    for (const auto& name : SplitOptionList(*value)) {
      const DataField* f = schema.FieldByName(name);
      if (f == nullptr || !f->type->is_blob()) {
        return Status::Invalid("'", key, "' names '", name, "', which is not a BLOB column");
      }
    }
  }
  return Status::OK();
}

}  // namespace paimon_rowid
