// Reading nested ROW fields of files written with an older schema by field id (the nested
// half of what WrittenFields does for top-level columns): a ROW field renamed since reads
// under its new name, one added since reads NULL, one dropped is left out -- inside ROW
// columns and inside the ROW elements of ARRAY columns and ROW values of MAP columns.
#pragma once

#include <memory>

#include "arrow/api.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/types/data_type.h"

namespace paimon_rowid {

/// Rebuilds `column`, read from a file whose schema types it `file_type`, so that every
/// nested ROW follows `table_type`: sub-fields matched by field id, named and ordered as the
/// table's, absent ones all NULL. Zero-copy except for the NULL children. Leaves keep their
/// file types (the caller casts them); shapes that do not correspond (e.g. a ROW read as
/// STRING after a type change) are returned unchanged. Returns `column` itself when the
/// types hold no ROW whose fields differ.
Result<std::shared_ptr<arrow::ChunkedArray>> AlignNestedById(
    const std::shared_ptr<arrow::ChunkedArray>& column, const DataType& file_type,
    const DataType& table_type, arrow::MemoryPool* pool);

}  // namespace paimon_rowid
