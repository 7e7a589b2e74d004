// The Arrow shapes an append writer accepts and writes, per Paimon type:
//   * input: the table's Arrow type (pypaimon's mapping), except ARRAY<BLOB> / MAP<K, BLOB>
//     whose element / value field is made nullable so a null where the type says NOT NULL
//     reaches the blob writer and fails there with pypaimon's ValueError;
//   * Parquet: VECTOR columns as LIST (Parquet C++ cannot write a null fixed_size_list slot;
//     docs/format.md §6.4 stores VECTOR as LIST anyway; readers cast back).
// ConformInput selects, casts (safe) and checks an input batch against the write fields.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/types/data_type.h"

namespace paimon_rowid {

/// The Parquet field of a VECTOR column: the same field with LIST type.
std::shared_ptr<arrow::Field> VectorFieldAsList(const std::shared_ptr<arrow::Field>& field);

/// The key types of MAP<K, BLOB> that have a serializer (codec/blob_file_nested.h).
bool IsMapBlobKeyType(const DataType& key);

/// The Arrow type input of `type` is cast to (see above).
std::shared_ptr<arrow::DataType> BlobInputType(const DataType& type);

/// "[a, b, c]".
std::string JoinNames(const std::vector<std::string>& names);

/// `batch` as `input_schema` (one field per write field, same order): columns picked by name,
/// cast when their type differs; unknown, missing or duplicated columns, nulls in NOT NULL
/// columns and null elements inside non-null vectors are errors (Invalid; TypeError for an
/// impossible cast of a non-BLOB column, as pypaimon raises). `table_name` is for messages.
/// Casts allocate from `pool`.
Result<std::shared_ptr<arrow::RecordBatch>> ConformInput(
    const arrow::RecordBatch& batch, const std::vector<DataField>& write_fields,
    const std::shared_ptr<arrow::Schema>& input_schema, const std::string& table_name,
    arrow::MemoryPool* pool = arrow::default_memory_pool());

/// `batch` with its fixed_size_list (VECTOR) columns as LIST, typed as `file_schema`, the
/// lists built in `pool`.
Result<std::shared_ptr<arrow::RecordBatch>> VectorsAsLists(
    const arrow::RecordBatch& batch, const std::shared_ptr<arrow::Schema>& file_schema,
    arrow::MemoryPool* pool = arrow::default_memory_pool());

}  // namespace paimon_rowid
