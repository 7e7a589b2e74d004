// Splicing updated values into a file group's current column: the merge step of
// update_by_row_id (a partial-column file covers every row of its group, so untouched rows keep
// their current values).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "arrow/array.h"
#include "arrow/memory_pool.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid::rowid_internal {

/// `current` with the value at row `positions[k]` replaced by `updates[k]`, for every k.
/// `positions` are strictly increasing and below current->length(); `updates` has one value per
/// position and current's type. Fixed-width values (numbers, dates, timestamps, decimals,
/// fixed-size binaries) are copied once and overwritten in place; other types are gathered with
/// one Take over both arrays.
Result<std::shared_ptr<arrow::Array>> SpliceColumn(const std::shared_ptr<arrow::Array>& current,
                                                   const std::vector<int64_t>& positions,
                                                   const std::shared_ptr<arrow::Array>& updates,
                                                   arrow::MemoryPool* pool);

}  // namespace paimon_rowid::rowid_internal
