// Validation of table schemas for the tables this engine writes (docs/format.md §9, §6.1; Java's
// SchemaValidation for append tables with row tracking / data evolution).
#pragma once

#include "paimon_rowid/common/status.h"
#include "paimon_rowid/types/table_schema.h"

namespace paimon_rowid {

/// Checks a schema before a table is created (Invalid with Java's message, or
/// NotImplemented for tables this engine does not support):
///   * field names are non-empty and unique; `_ROW_ID` / `_SEQUENCE_NUMBER` are reserved;
///   * partition keys name atomic, non-BLOB columns;
///   * no primary keys (append tables only);
///   * row tracking requires bucket = -1 (or absent); data evolution requires row tracking;
///   * the bucket layout is valid (catalog/bucket_spec.h: fixed buckets need a bucket key);
///   * BLOB columns (BLOB, ARRAY<BLOB>, MAP<_, BLOB>) require row tracking and data
///     evolution, and the table must keep at least one non-BLOB column;
///   * blob-descriptor-field names scalar BLOB columns;
///   * every option the engine reads has a value it can use (catalog/table_options.h).
Status ValidateTableSchema(const TableSchema& schema);

}  // namespace paimon_rowid
