// Encoding a row group's columns as parallel tasks, the longest first.
//
// Arrow's FileWriter encodes a batch's columns as one task each, started in schema order, and
// waits for all of them before the next batch. A long column late in the schema (a table's
// string column after its numbers) then starts last and runs alone for much of every batch:
// a bulk write of (id BIGINT, x DOUBLE, y INT, s STRING) kept ~1.4 of 2 cores busy. Here the
// same column writers (parquet's buffered row group, ColumnWriter::WriteArrow) get the same
// slices of the same batches, so the file's bytes are those of Arrow's FileWriter; only the
// order the tasks start in differs: most bytes first.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "paimon_rowid/common/status.h"

namespace parquet {
class ParquetFileWriter;
class RowGroupWriter;
class ArrowWriterProperties;
struct ArrowWriteContext;
}  // namespace parquet

namespace paimon_rowid::format_internal {

/// Whether ColumnTaskWriter can write `schema`: every field a flat column whose Arrow values
/// parquet's ColumnWriter::WriteArrow takes as they are (booleans, integers, floating point,
/// dates, strings and binaries; no nesting, decimals, timestamps or dictionaries).
bool ColumnTasksSupported(const arrow::Schema& schema);

class ColumnTaskWriter {
 public:
  /// Writes into `file`, whose schema must be `schema`'s as Parquet columns (one leaf per
  /// field), opening a buffered row group every `max_row_group_rows` rows.
  ColumnTaskWriter(std::unique_ptr<parquet::ParquetFileWriter> file,
                   const std::shared_ptr<arrow::Schema>& schema,
                   std::shared_ptr<parquet::ArrowWriterProperties> arrow_properties,
                   int64_t max_row_group_rows, arrow::MemoryPool* pool);
  ~ColumnTaskWriter();

  /// Appends `batch` (of the writer's schema). Parquet's exceptions become statuses.
  Status Write(const arrow::RecordBatch& batch);
  /// Closes the last row group and writes the footer (not the sink's close).
  Status Close();

 private:
  Status WriteRows(const arrow::RecordBatch& batch, int64_t offset, int64_t length);

  std::unique_ptr<parquet::ParquetFileWriter> file_;
  std::shared_ptr<parquet::ArrowWriterProperties> arrow_properties_;
  int64_t max_row_group_rows_;
  std::vector<bool> nullable_;
  // Per column: the scratch of its WriteArrow calls and its definition levels.
  std::vector<std::unique_ptr<parquet::ArrowWriteContext>> contexts_;
  std::vector<std::vector<int16_t>> levels_;
  parquet::RowGroupWriter* row_group_ = nullptr;
  int64_t row_group_rows_ = 0;
};

}  // namespace paimon_rowid::format_internal
