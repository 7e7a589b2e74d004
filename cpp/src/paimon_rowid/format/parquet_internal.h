// Internals shared by the Parquet files of this folder (parquet_io.cc, page_splice.cc): the
// reader's state, the writer's properties and schema, and the seam where Parquet's exceptions
// become Status. Included by format/ only.
#pragma once

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "arrow/io/interfaces.h"
#include "arrow/util/compression.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/format/parquet_io.h"
#include "parquet/arrow/reader.h"
#include "parquet/metadata.h"
#include "parquet/page_index.h"
#include "parquet/properties.h"
#include "parquet/schema.h"

namespace paimon_rowid {

struct ParquetFileReader::Impl {
  std::string path;
  std::shared_ptr<arrow::io::RandomAccessFile> file;
  std::unique_ptr<parquet::arrow::FileReader> reader;
  std::shared_ptr<arrow::Schema> schema;
  std::vector<int64_t> row_group_starts;  // first row of each row group, plus the total
  arrow::MemoryPool* pool = arrow::default_memory_pool();
};

namespace format_internal {

// Parquet's lower layer throws; everything crossing this file's boundary is a Status.
template <typename Fn>
auto CatchParquet(const std::string& path, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return Status::IOError("cannot read Parquet file '", path, "': ", e.what());
  }
}

inline Result<arrow::Compression::type> CompressionFromName(const std::string& name) {
  if (name == "zstd") return arrow::Compression::ZSTD;
  if (name == "snappy") return arrow::Compression::SNAPPY;
  if (name == "gzip") return arrow::Compression::GZIP;
  if (name == "lz4") return arrow::Compression::LZ4;
  if (name == "none" || name == "uncompressed") return arrow::Compression::UNCOMPRESSED;
  return Status::Invalid("unsupported Parquet compression '", name, "'");
}

/// The first byte of a column chunk, as Arrow computes it: some writers store 0 for "no
/// dictionary page".
inline int64_t ChunkStart(const parquet::ColumnChunkMetaData& col) {
  int64_t start = col.data_page_offset();
  if (col.has_dictionary_page() && col.dictionary_page_offset() > 0 &&
      col.dictionary_page_offset() < start) {
    start = col.dictionary_page_offset();
  }
  return start;
}

/// Appends the pages of one column chunk (leaf `column` of the row group `index` reads, its
/// rows [first_row, first_row + rows) of the file) to `out` from the chunk's page index:
/// rows, bounds as scalars of `type` (the column's type in the reader's Arrow schema) and
/// null counts. false, appending nothing, when the index is missing or does not describe
/// pages starting at row 0 in ascending row order.
bool AppendPageSegments(parquet::RowGroupPageIndexReader* index, int column,
                        const parquet::ColumnDescriptor* descr, const arrow::DataType& type,
                        int64_t first_row, int64_t rows, arrow::MemoryPool* pool,
                        std::vector<ParquetFileReader::Segment>* out);

/// What every Parquet file we write is written with: Parquet's and Arrow's writer properties
/// for `options`, and the Parquet schema of `schema` (root "paimon_schema", like Java's;
/// nanosecond timestamps as INT96).
struct WriterSetup {
  std::shared_ptr<parquet::WriterProperties> properties;
  std::shared_ptr<parquet::ArrowWriterProperties> arrow_properties;
  std::shared_ptr<parquet::schema::GroupNode> root;
};
Result<WriterSetup> MakeWriterSetup(const std::shared_ptr<arrow::Schema>& schema,
                                    const ParquetWriteOptions& options);

}  // namespace format_internal
}  // namespace paimon_rowid
