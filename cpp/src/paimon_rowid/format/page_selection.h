// Reading a row selection of a Parquet file page by page (internal to format/).
//
// Arrow C++ has no row-range reads: its readers decode whole column chunks, and Skip only
// saves value decoding. This reader decodes only the data pages that hold selected rows,
// through the stock library, with no patch:
//
//  * With an OffsetIndex (our writer's files): the wanted pages are located by the index and
//    fetched alone, together with the chunk's dictionary page, into one compacted buffer. A
//    page reader over that buffer is injected into parquet::arrow::FileReader through a
//    wrapping ParquetFileReader::Contents, which then converts exactly those pages. Unwanted
//    pages cost no I/O, no decompression and no decoding. A multi-leaf column (struct, list,
//    map) keeps, in every leaf, the pages that overlap the union of the rows kept by all its
//    leaves, grown to a fixpoint, so that every leaf yields the same rows.
//  * Without an index (pyarrow and pypaimon defaults), for a flat column (max repetition
//    level 0, one leaf): a data-page filter counts rows page by page (a V1 page's value count
//    is its row count when nothing repeats) and drops pages with no selected row before they
//    are decompressed or decoded. The chunk's bytes are still read, in one request.
//  * Otherwise (no index and nested, or repeated leaves from a writer not known to start
//    pages on row boundaries): the whole column chunk is decoded, as before.
//
// The decoded rows are then mapped back to the selection and taken out with one Take per
// row group and column, or sliced out (no copy) when the wanted rows are one run of them.
// A list of fixed-width values (a VECTOR column) is decoded in batches of about 2^21 values,
// one chunk each, not in one call: the decoder then reuses its value and level buffers
// instead of doubling them to the whole chunk in memory new to the process.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/chunked_array.h"
#include "arrow/io/interfaces.h"
#include "arrow/memory_pool.h"
#include "paimon_rowid/common/row_range.h"
#include "paimon_rowid/common/status.h"

namespace parquet {
class ParquetFileReader;
class ReaderProperties;
namespace arrow {
struct SchemaManifest;
}  // namespace arrow
}  // namespace parquet

namespace paimon_rowid {

/// What a selective read touched, for tests and diagnostics. Counts are per column chunk
/// page (data pages only) and per column chunk.
struct ParquetReadStats {
  int64_t data_pages_total = 0;        // data pages of the touched column chunks, when known
  int64_t data_pages_decoded = 0;      // of those, pages handed to the decoder
  int64_t chunks_by_index = 0;         // column chunks read through the offset index
  int64_t chunks_by_filter = 0;        // column chunks read with the row-counting page filter
  int64_t chunks_whole = 0;            // column chunks decoded whole
  int64_t chunks_sparse = 0;           // chunks gathered value by value (either way below)
  int64_t chunks_from_pages = 0;       // of those, gathered from decompressed pages
  int64_t dictionaries_in_place = 0;   // of those, with the dictionary page read in place
  int64_t chunks_sliced = 0;           // decoded chunks whose wanted rows were one run (sliced)
  int64_t bytes_fetched_by_index = 0;  // bytes read for the index route (pages + dictionary)
};

namespace format_internal {

/// Reader properties for every Parquet read: default ones allocating from `pool`, plus page
/// CRC verification (pages whose header carries a `crc`; others are read unchecked).
parquet::ReaderProperties VerifyingReaderProperties(arrow::MemoryPool* pool);

/// The pages of one column chunk that hold a row of `wanted`. `page_first_rows` are the
/// pages' first rows (row-group relative, ascending, starting at 0); `rows` is the row
/// group's row count; `wanted` is sorted and merged, row-group relative. Returns page
/// ordinals, ascending.
std::vector<int> PagesHoldingRows(const std::vector<int64_t>& page_first_rows, int64_t rows,
                                  const std::vector<RowRange>& wanted);

struct SelectionRead {
  std::shared_ptr<arrow::io::RandomAccessFile> file;
  /// The opened file (metadata, page index). Not owned; outlives the call.
  parquet::ParquetFileReader* parquet = nullptr;
  const parquet::arrow::SchemaManifest* manifest = nullptr;
  std::vector<int> fields;                // top-level field indices to read, in output order
  std::vector<int64_t> row_group_starts;  // first row of each row group, plus the total
  /// Sorted, merged, non-empty ranges of file row positions, validated by the caller.
  const std::vector<RowRange>* positions = nullptr;
  std::string path;  // for error messages
  /// Every allocation of the read (page buffers, decoding, gathers, takes). Not owned.
  arrow::MemoryPool* pool = arrow::default_memory_pool();
};

/// Reads the selected rows of each field in `in.fields`, one ChunkedArray per field, rows
/// in selection order. May throw parquet::ParquetException (the caller converts it).
Result<std::vector<std::shared_ptr<arrow::ChunkedArray>>> ReadSelectedRows(const SelectionRead& in,
                                                                           ParquetReadStats* stats);

}  // namespace format_internal
}  // namespace paimon_rowid
