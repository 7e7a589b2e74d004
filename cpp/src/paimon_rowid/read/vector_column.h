// VECTOR columns (Arrow fixed_size_list) from the variable-size lists Parquet files hold.
#pragma once

#include <memory>
#include <string>

#include "arrow/api.h"
#include "arrow/compute/exec.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

/// Converts a LIST or LARGE_LIST array to `type`'s fixed-size lists. Arrow's cast rejects
/// NULL rows (their length is 0), so each NULL row gets `type.list_size()` NULL placeholder
/// values; a non-NULL row of another length is Invalid, naming `column`. The placeholders
/// of large arrays are zeros in pages never written (common/lazy_zero_buffer.h): a column of
/// NULL vectors, such as embeddings not yet computed, takes no memory for them. Lists of
/// the target value type without any NULL whose rows lie back to back (the usual decoded
/// column) are not copied: the result slices their values (kept alive only when the rows
/// fill at least half of the values' buffer; else the rows are copied out).
Result<std::shared_ptr<arrow::Array>> ListToFixedSize(const std::shared_ptr<arrow::Array>& lists,
                                                      const arrow::FixedSizeListType& type,
                                                      const std::string& column,
                                                      arrow::compute::ExecContext* ctx);

}  // namespace paimon_rowid
