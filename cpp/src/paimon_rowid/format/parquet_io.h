// Parquet data files. This folder is the only one that includes Parquet headers (STYLE
// habit 7); Parquet's exceptions become Status here, at the seam.
//
// Reading resolves columns by NAME (docs/format.md §8): pypaimon's files carry no field ids, so
// ids are never needed to read. A row selection decodes only the data pages that hold
// selected rows, where the file allows it (page_selection.h: through the offset index, or a
// row-counting page filter for flat columns of files without one), and then takes the
// wanted rows out of them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/io/interfaces.h"
#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "arrow/scalar.h"
#include "arrow/table.h"
#include "paimon_rowid/common/row_range.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/format/page_selection.h"

namespace paimon_rowid {

struct ParquetReadOptions {
  /// Every allocation of the reads: Parquet's reader properties (page and decompression
  /// buffers), the Arrow reader's builders, the page-selective read's compacted buffers,
  /// gathers and takes. Not owned; outlives the reader.
  arrow::MemoryPool* pool = arrow::default_memory_pool();
};

// Integrity: data page and dictionary page CRCs (the optional `crc` of the page header,
// written by our writer and by Java's parquet-java, not by pyarrow/pypaimon) are verified on
// every read path, the page-selective one included; a mismatch is IOError naming the file.
// Files without CRCs read as before. Page headers themselves carry no checksum.
class ParquetFileReader {
 public:
  /// Opens a file; `path` is used in error messages only. `expected_size` (> 0) is the size the
  /// manifest records: a file of another size is IOError (replaced or truncated) before any
  /// byte of it is parsed. The open file's size is known without a syscall, and Parquet's
  /// reader needs it anyway to find the footer. `options.pool` serves every allocation of the
  /// reader (the file's own reads allocate from the pool `file` was opened with).
  static Result<std::unique_ptr<ParquetFileReader>> Open(
      std::shared_ptr<arrow::io::RandomAccessFile> file, std::string path,
      int64_t expected_size = -1, const ParquetReadOptions& options = {});
  ~ParquetFileReader();

  int64_t num_rows() const;
  int num_row_groups() const;
  /// The path given to Open (for messages).
  const std::string& path() const;
  /// Top-level fields as Arrow sees them.
  const std::shared_ptr<arrow::Schema>& schema() const;

  /// Footer statistics of the flat top-level column `name`: per row group its min and max,
  /// as scalars of the column's type in schema(). nullopt when the column is absent or nested,
  /// or when any row group lacks a min/max (all-NULL chunks, INT96, writers that wrote none).
  /// Reads no data page.
  struct MinMax {
    std::shared_ptr<arrow::Scalar> min;
    std::shared_ptr<arrow::Scalar> max;
  };
  Result<std::optional<std::vector<MinMax>>> ColumnMinMax(const std::string& name) const;

  /// Bounds of a run of rows of one column: a row group, or one page of it.
  struct Segment {
    RowRange rows;                       // file row positions
    std::shared_ptr<arrow::Scalar> min;  // null: unknown
    std::shared_ptr<arrow::Scalar> max;  // null: unknown
    std::optional<int64_t> null_count;   // nullopt: unknown
  };
  /// Statistics of the flat top-level column `name` for the row groups `positions` touches
  /// (all row groups with nullptr), in row order and covering those row groups' rows: per row
  /// group the footer's bounds, split into page bounds where the file has a page index
  /// (ColumnIndex and OffsetIndex) for the chunk. Bounds are scalars of the column's type in
  /// schema(); a segment without usable statistics has null bounds. nullopt when the column
  /// is absent or nested. Reads the page index of those row groups (one request per row
  /// group, none for files without one), never a data page. Bounds are pruning hints: a
  /// writer may truncate them (outward), so they are never used for more than excluding rows.
  Result<std::optional<std::vector<Segment>>> ColumnSegments(
      const std::string& name, const std::vector<RowRange>* positions) const;

  /// Reads the named top-level columns (in that order) at the given row positions
  /// (sorted, non-overlapping, inside [0, num_rows)); `positions == nullptr` reads all rows.
  /// With positions, only the pages holding selected rows are decoded where the file
  /// allows it (else their row groups' column chunks). Unknown names are KeyError; a
  /// selection outside the file, unsorted or overlapping is Invalid; an unreadable file is
  /// IOError. `stats`, when given, receives what a selective read touched. Not thread-safe
  /// with other calls on the same reader.
  Result<std::shared_ptr<arrow::Table>> Read(const std::vector<std::string>& columns,
                                             const std::vector<RowRange>* positions,
                                             ParquetReadStats* stats = nullptr) const;

 private:
  friend class ParquetPageSplice;  // copies pages out of the file (page_splice.h)
  ParquetFileReader();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct ParquetWriteOptions {
  std::string compression = "zstd";  // zstd, snappy, gzip, lz4, none
  int compression_level = 1;
  int64_t row_group_size_rows = 1 << 20;
  /// Small pages let reads by row id decode little (with the page index, only the pages
  /// holding wanted rows are read): 64 KiB halves the time to read 100 random rows of a
  /// 1M-row file against 1 MiB, at no measurable cost in write or scan time or file size
  /// (format_test DISABLED_PageSizeCost).
  int64_t data_page_size_bytes = 64 << 10;
  /// Values buffered between page-size checks: a page can overshoot the size by this many
  /// values, which matters for wide values (a 3 KiB vector x 1024 is a 3 MiB page).
  int64_t write_batch_size = 256;
  bool write_page_index = true;
  /// A CRC32 in every page header (the Parquet spec's optional page checksum; parquet-java
  /// writes it by default, and readers that do not verify ignore it). Costs 4 bytes and one
  /// CRC pass per page.
  bool write_page_checksum = true;
  /// Top-level columns written without a dictionary (NearlyDistinctColumns of the first
  /// batch: their values are nearly all distinct, so a dictionary would not pay).
  std::vector<std::string> plain_columns;
  /// Encode the columns of a row group on parallel threads (Arrow's CPU pool).
  bool encode_columns_in_parallel = true;
  /// Parquet's writer properties and Arrow's FileWriter allocate from it. Not owned.
  arrow::MemoryPool* pool = arrow::default_memory_pool();
};

/// Streams record batches into one Parquet file. The Arrow schema's field metadata
/// "PARQUET:field_id" becomes the Parquet field ids; the root is named "paimon_schema".
/// Physical types follow Java Paimon's writer (docs/format.md §8), with one deviation from
/// Arrow's defaults: nanosecond timestamps (TIMESTAMP(7..9), with or without local time zone,
/// also nested) are written as INT96, which has no Parquet statistics; millisecond and
/// microsecond timestamps stay INT64.
class ParquetFileWriter {
 public:
  static Result<std::unique_ptr<ParquetFileWriter>> Open(
      std::shared_ptr<arrow::io::OutputStream> sink, std::shared_ptr<arrow::Schema> schema,
      const ParquetWriteOptions& options);
  ~ParquetFileWriter();

  Status Write(const arrow::RecordBatch& batch);
  /// Bytes written so far (an estimate until Close).
  int64_t bytes_written() const;
  int64_t rows_written() const;
  Status Close();

 private:
  ParquetFileWriter();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace paimon_rowid
