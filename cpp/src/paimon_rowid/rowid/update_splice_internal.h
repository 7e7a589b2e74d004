// The partial-column file of an update that changes few pages of its group's columns, written
// as a splice of the files holding the current values (format/page_splice.h): the pages
// without a changed row are copied, the others decoded, merged and encoded again.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/array.h"
#include "arrow/memory_pool.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/read/stats_filter.h"
#include "paimon_rowid/rowid/row_id_index.h"
#include "paimon_rowid/write/append_writer.h"

namespace paimon_rowid::rowid_internal {

/// Whether a splice may pay for `positions` (ascending group positions) of a group of `n`
/// rows: they are few, or close together. Cheap; the plan decides page by page.
bool MaySplice(const std::vector<int64_t>& positions, int64_t n);

/// Writes group `g`'s partial file of `columns` with `writer` (a fresh MakeForRowIds writer
/// of those columns) as a splice: `values[c]` are column c's new values in position order,
/// one per entry of `positions`. `files` are the readers of the group's split (deleted rows
/// included); the caller reuses them for the whole write when the splice is refused. false,
/// with nothing written, when the group's files do not allow a splice or it would not pay:
/// then write the file whole. Errors are the reads' and the writer's.
Result<bool> WriteSplicedPart(const std::shared_ptr<const Table>& table, const RowIdIndex& index,
                              size_t g, const std::vector<std::string>& columns,
                              const std::vector<std::shared_ptr<arrow::Array>>& values,
                              const std::vector<int64_t>& positions, GroupFileReaders* files,
                              AppendWriter* writer, arrow::MemoryPool* pool);

}  // namespace paimon_rowid::rowid_internal
