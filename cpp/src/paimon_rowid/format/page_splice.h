// Writing a Parquet file whose column chunks are other files' chunks with a few data pages
// replaced: the partial-column file of an update that changes few rows of a file group.
//
// A partial-column file covers every row of its group, so an update of 10,000 clustered rows
// of a 1,000,000-row group would decode, re-encode and recompress the whole column. Here the
// pages holding no updated row are copied byte for byte (headers, CRCs and all), and only the
// runs of pages that hold one are decoded (by the caller, through ParquetFileReader::Read),
// spliced and encoded again with the table's writer settings. The dictionary page, when the
// chunk has one, is copied too, so copied dictionary-encoded pages still decode; the
// re-encoded pages are PLAIN, like the pages after a writer's dictionary fallback.
//
// The new file's footer, statistics and page index (OffsetIndex and ColumnIndex) are built
// from the copied pages' headers and page index entries and from the re-encoded pages.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/array.h"
#include "arrow/io/interfaces.h"
#include "arrow/type_fwd.h"
#include "paimon_rowid/common/row_range.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/format/parquet_io.h"

namespace paimon_rowid {

class ParquetPageSplice {
 public:
  /// One column of the new file.
  struct Column {
    const ParquetFileReader* source;  // the file holding the column's current values
    std::string name;                 // its flat top-level column there
    std::vector<int64_t> positions;   // the rows that change: ascending, inside the file
  };

  /// Plans a file of `schema`'s fields (one per column, in order, field ids in their
  /// metadata as for ParquetFileWriter) written with `options`. A column's unchanged pages are
  /// copied when its chunk allows it: a flat fixed-width column of the same type, nullability
  /// and codec as the new file's, in a file of one row group with a page index holding null
  /// counts, not encrypted, of two pages or more, at most half of them changed. A column that
  /// does not is re-encoded whole (one run of every row) if it is fixed-width. nullptr when
  /// the file must be written whole instead: no column has a page to copy, or a column is
  /// neither copied nor fixed-width. Reads each source's page index and the copied chunks'
  /// bytes (kept until Write). IOError for an unreadable source.
  static Result<std::unique_ptr<ParquetPageSplice>> Plan(std::shared_ptr<arrow::Schema> schema,
                                                         const ParquetWriteOptions& options,
                                                         std::vector<Column> columns);
  ~ParquetPageSplice();

  int64_t num_rows() const;
  /// The rows (file positions) of column `c` re-encoded: runs of whole pages that together
  /// hold every changed position, ascending.
  const std::vector<RowRange>& rewritten_rows(size_t c) const;
  /// The pages of column `c` copied as they are: their rows, bounds (scalars of the field's
  /// type; null on an all-NULL page) and null counts, from the source's page index.
  const std::vector<ParquetFileReader::Segment>& copied_pages(size_t c) const;

  /// Writes the file to `sink` and closes it. `values[c][k]` holds the new values of
  /// rewritten_rows(c)[k]: one per row, of field c's type. Invalid when they do not fit.
  Status Write(const std::shared_ptr<arrow::io::OutputStream>& sink,
               const std::vector<std::vector<std::shared_ptr<arrow::Array>>>& values);

 private:
  ParquetPageSplice();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace paimon_rowid
