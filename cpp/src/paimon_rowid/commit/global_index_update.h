// `global-index.column-update-action` (pypaimon's GlobalIndexUpdateChecker): what a commit of
// partial-column updates does when an updated column is indexed by a live global index of a
// partition it writes. THROW_ERROR (the default) refuses the commit; IGNORE keeps the (now stale)
// index; DROP_PARTITION_INDEX drops, in the same commit, every live global-index file (of any
// type) of a written partition whose indexed columns include an updated column.
#pragma once

#include <vector>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/meta/manifest.h"

namespace paimon_rowid {

/// `updates` are the commit's ADD entries of files with write_cols (partial-column files);
/// `live_index` the latest snapshot's live index entries. Returns the index entries the commit
/// must drop (DROP_PARTITION_INDEX; empty otherwise). UnknownError (RuntimeError in Python)
/// with pypaimon's message under THROW_ERROR; Invalid for an unknown action value.
Result<std::vector<IndexManifestEntry>> CheckGlobalIndexColumnUpdates(
    const Table& table, const std::vector<ManifestEntry>& updates,
    const std::vector<IndexManifestEntry>& live_index);

}  // namespace paimon_rowid
