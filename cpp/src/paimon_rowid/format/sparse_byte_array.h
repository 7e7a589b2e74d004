// Reading a few rows of a flat BYTE_ARRAY column (STRING / BINARY, not repeated) without
// materializing the rest. The general selective read (page_selection.h) decodes every row
// of the kept pages into an Arrow array and then takes the wanted ones; for strings that
// copy dominates when one row in hundreds is wanted and a page holds thousands (files of
// other writers: 1 MiB pages, no page index). Here the column reader skips between the
// wanted runs (walking lengths only) and only wanted values are copied into the builder.
// Pages are decompressed either way.
//
// Internal to format/ (parquet headers).
#pragma once

#include <memory>
#include <vector>

#include "arrow/array.h"
#include "arrow/memory_pool.h"
#include "paimon_rowid/common/row_range.h"
#include "paimon_rowid/common/status.h"
#include "parquet/column_reader.h"
#include "parquet/schema.h"

namespace paimon_rowid::format_internal {

/// True for a flat (max repetition 0, max definition <= 1) BYTE_ARRAY leaf without a
/// logical type other than STRING, read as Arrow binary / string (or their large forms).
bool IsSparseByteArrayColumn(const parquet::ColumnDescriptor& descr, const arrow::DataType& type);

/// The `wanted` rows (row-group relative, sorted, merged) of the column `reader` decodes.
/// `kept` lists the rows the reader yields, in order (row-group relative, merged); it may
/// grow while reading (a page filter that records the pages it keeps): a page is loaded
/// whenever a wanted row lies beyond the rows known so far. Every wanted row must be kept.
/// The result is built in `pool`.
Result<std::shared_ptr<arrow::Array>> ReadSparseByteArray(
    parquet::ColumnReader* reader, const std::vector<RowRange>& kept,
    const std::vector<RowRange>& wanted, const std::shared_ptr<arrow::DataType>& type,
    arrow::MemoryPool* pool);

}  // namespace paimon_rowid::format_internal
