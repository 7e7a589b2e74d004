// Predicate pushdown below the file group (internal to read/): which rows of a group the
// predicate may match, from the Parquet statistics of the files that supply its columns, and
// the bookkeeping of the two-phase ("late materialization") filtered read.
//
// A group's normal files all cover the group's row-id range, so a row position means the same
// row in each of them. The predicate's columns may come from different files (a partial-column
// file rewrote one of them); each column's statistics are those of the file that supplies the
// column on read (GroupReadPlan::supplies: the newest normal file holding it), never of an
// older file whose values that file overrides. Row-group and page boundaries of those files
// need not agree: the predicate is evaluated on every interval between consecutive
// boundaries, with each column's bounds of the run (row group or page) containing it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "arrow/datum.h"
#include "paimon_rowid/common/row_range.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/format/parquet_io.h"
#include "paimon_rowid/read/group_plan.h"
#include "paimon_rowid/scan/predicate.h"

namespace paimon_rowid {

/// The bounds of one column over a run of a group's rows (positions relative to the group's
/// first row id). Null bounds and a missing null count mean "unknown".
struct StatsRun {
  RowRange rows;
  Predicate::ColumnStats stats;
};

/// The positions of `selection` (sorted, merged group positions) that `predicate` may match.
/// `runs` holds per field name its runs, sorted and non-overlapping; a field without runs, and
/// rows none of a field's runs covers, have unknown statistics for it. `_ROW_ID` bounds are
/// derived from `first_row_id`. Never drops a row the predicate could match (Predicate::MayMatch
/// fails open). Pure. Cost: one MayMatch per interval between run boundaries.
std::vector<RowRange> MayMatchPositions(const Predicate& predicate,
                                        const std::vector<RowRange>& selection,
                                        const std::map<std::string, std::vector<StatsRun>>& runs,
                                        int64_t first_row_id);

/// The positions of `selection` whose entry of `mask` is true (null counts as false). `mask`
/// is a boolean array with one entry per selected row in selection order, or a boolean scalar
/// for all of them. Invalid when the lengths differ.
Result<std::vector<RowRange>> SelectByMask(const std::vector<RowRange>& selection,
                                           const arrow::Datum& mask);

/// The Parquet readers of one group read, each file opened (footer read) at most once.
/// Not thread-safe; lives for one ReadGroup call.
class GroupFileReaders {
 public:
  GroupFileReaders(const Table& table, const DataSplit& split, arrow::MemoryPool* pool)
      : table_(table), split_(split), pool_(pool) {}
  /// The reader of `file` (a member of the split's group); IOError when the file cannot be
  /// opened or its row count differs from the manifest's.
  Result<ParquetFileReader*> Get(const DataFileMeta& file);

 private:
  const Table& table_;
  const DataSplit& split_;
  arrow::MemoryPool* pool_;
  std::map<const DataFileMeta*, std::unique_ptr<ParquetFileReader>> readers_;
};

/// Narrows `plan->selection` (and num_rows) to the rows the predicate may match according to
/// the Parquet statistics (row groups; pages where the page index exists) of each predicate
/// column's supplying file. Only columns whose file type equals the table type (string and
/// binary widths aside) are used; partition and other columns count as unknown. Opens those
/// files' footers and page indexes, never a data page. Statistics that cannot be read are
/// ignored (the exact filter still runs); a file that cannot be opened is an error.
Status PruneByFileStats(const Predicate& predicate, const TableSchema& schema,
                        GroupFileReaders* files, GroupReadPlan* plan);

}  // namespace paimon_rowid
