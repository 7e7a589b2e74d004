// The check a rebased update runs (RowIdUpdate::Rebase / VerifyUnchangedSince): the update
// columns of the routed rows must hold the same values at two snapshots. BLOB columns compare
// as descriptors (file and byte range), so no payload is fetched.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arrow/array.h"
#include "arrow/memory_pool.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/rowid/read_by_row_id.h"
#include "paimon_rowid/rowid/row_id_index.h"

namespace paimon_rowid::rowid_internal {

/// A reader of `cols` of `table` pinned at `index`'s snapshot (through the unpinned handle
/// when that snapshot has expired: its files are still there).
Result<std::shared_ptr<RowIdRead>> ReaderAt(const Table& table,
                                            const std::vector<std::string>& cols,
                                            std::shared_ptr<const RowIdIndex> index,
                                            arrow::MemoryPool* pool);

/// OK when `cols` of `ids` hold the same values through `before` and `after`; else the
/// kCommitConflict error every rebase reports.
/// `error` (a failed read or write of an update planned on snapshot `base_id`) as the
/// kBaseExpired error "... was expired while it ran ..." when that snapshot no longer exists
/// (an expiration removed a file of the base under the update), else `error` unchanged.
Status BaseExpiredOr(const Table& table, int64_t base_id, Status error);
/// Whether `st` is BaseExpiredOr's error: the update moves onto the latest snapshot.
bool IsBaseExpired(const Status& st);

Status CheckUnchanged(const RowIdRead& before, const RowIdRead& after,
                      const std::vector<std::shared_ptr<arrow::Array>>& ids,
                      const std::vector<std::string>& cols, arrow::MemoryPool* pool);

}  // namespace paimon_rowid::rowid_internal
