// Gathering a few rows of a flat column straight from its decompressed pages.
//
// The general selective read (page_selection.h) has Arrow decode every row of the kept pages
// and then takes the wanted ones; a read of one row in a hundred spends most of its time in
// that decoding (dictionary lookups of every value, plain BYTE_ARRAY values walked and
// copied), after decompression. Here the page reader only decompresses (and verifies) the
// kept pages; for each wanted row the decoder finds its definition level, its value's index
// among the page's non-null values, and then that one value: at a fixed offset (PLAIN fixed
// width), after a walk over the length prefixes (PLAIN BYTE_ARRAY), or through its
// dictionary index (RLE_DICTIONARY / PLAIN_DICTIONARY), read straight out of the bit-packed
// or run-length encoded runs. Nothing else is decoded or copied.
//
// Supported: flat leaves (max repetition level 0, max definition level <= 1) of INT32,
// INT64, FLOAT, DOUBLE and BYTE_ARRAY read as the Arrow type of the same width (int32,
// date32, int64, float, double, string, binary and their large forms), in chunks whose
// encodings are PLAIN, RLE_DICTIONARY, PLAIN_DICTIONARY (values) and RLE (levels), data pages
// V1 and V2. Other chunks are read the general way.
//
// Internal to format/ (parquet headers).
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "arrow/array.h"
#include "arrow/memory_pool.h"
#include "paimon_rowid/common/row_range.h"
#include "paimon_rowid/common/status.h"
#include "parquet/column_page.h"
#include "parquet/column_reader.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"

namespace paimon_rowid::format_internal {

/// True when the chunk `col` of leaf `descr`, read as `type`, can be gathered by
/// GatherSparsePages (see above).
bool IsSparsePageColumn(const parquet::ColumnDescriptor& descr,
                        const parquet::ColumnChunkMetaData& col, const arrow::DataType& type);

/// The `wanted` rows (row-group relative, sorted, merged) of the chunk whose pages `pages`
/// yields (the dictionary page first, when there is one). `kept` lists the rows those data
/// pages hold, in order (row-group relative, merged); it may grow while pages load (a page
/// filter that records the pages it keeps). Every wanted row must be kept. The result, of
/// `type`, is built in `pool`. IOError when a page is malformed or the pages end early.
///
/// `dictionary_pages`, when given, yields the chunk's dictionary page (and `pages` its data
/// pages only): the dictionary is then read in place, in that reader's own buffer, instead
/// of being copied out of the one buffer `pages` decompresses every page into.
Result<std::shared_ptr<arrow::Array>> GatherSparsePages(
    parquet::PageReader* pages, const parquet::ColumnDescriptor& descr,
    const std::vector<RowRange>& kept, const std::vector<RowRange>& wanted,
    const std::shared_ptr<arrow::DataType>& type, arrow::MemoryPool* pool,
    parquet::PageReader* dictionary_pages = nullptr);

/// A page reader over pages already in memory, handed out in order (tests and fuzzing build
/// pages by hand).
class PageListReader : public parquet::PageReader {
 public:
  explicit PageListReader(std::deque<std::shared_ptr<parquet::Page>> pages)
      : pages_(std::move(pages)) {}
  std::shared_ptr<parquet::Page> NextPage() override {
    if (pages_.empty()) return nullptr;
    auto page = std::move(pages_.front());
    pages_.pop_front();
    return page;
  }
  void set_max_page_header_size(uint32_t) override {}

 private:
  std::deque<std::shared_ptr<parquet::Page>> pages_;
};

}  // namespace paimon_rowid::format_internal
