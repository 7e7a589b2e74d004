// Planning the read of one data-evolution file group (the first phase of
// TableRead::ReadGroup): which rows, which file supplies each column, and which .blob files
// supply the BLOB columns no normal file holds. Pure: no I/O, so it is unit-tested on
// hand-made DataFileMeta (read/table_read_test.cc).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "paimon_rowid/scan/plan.h"
#include "paimon_rowid/types/table_schema.h"

namespace paimon_rowid {

/// Resolves a file's schema id (TableRead passes its SchemaCache; tests a map). Called only
/// for the files the plan looks into, so a group without selected rows resolves none.
using SchemaLookup = std::function<Result<std::shared_ptr<const TableSchema>>(int64_t schema_id)>;

struct GroupReadPlan {
  /// The row ids the group covers, and the positions (relative to range.from) to read:
  /// the split's row ranges intersected with the group, or the whole group.
  RowRange range;
  std::vector<RowRange> selection;
  int64_t num_rows = 0;  // rows in `selection`

  /// The group's normal files, newest (highest max sequence number) first.
  std::vector<const DataFileMeta*> normal;

  /// One file and the columns it supplies, as (table field name, name in the file); each
  /// requested user column appears in at most one supply (the newest file holding it).
  struct Supply {
    const DataFileMeta* file;
    std::vector<std::pair<std::string, std::string>> columns;
    /// The type of each of `columns` in the file's schema (nested ROW fields carry the ids
    /// they were written with; read/nested_align.h maps them to the table's).
    std::vector<DataTypePtr> file_types;
  };
  std::vector<Supply> supplies;

  /// BLOB fields no normal file supplies -> the group's .blob files holding them (matched by
  /// field id through each file's schema), in group order.
  std::map<std::string, std::vector<const DataFileMeta*>> blob_files;
};

/// Plans the read of `group` for the needed fields (table fields, partition keys and system
/// fields; only user columns are planned, the others are derived when assembling).
/// `row_ranges` are the split's (nullopt: all rows). Returns nullopt when no row of the group
/// is selected. Invalid when the normal files do not all cover the group's row-id range.
/// All pointers in the plan point into `group`, which must outlive it. Errors of `schemas`
/// are returned as they are.
Result<std::optional<GroupReadPlan>> PlanGroupRead(
    const TableSchema& schema, const std::vector<std::string>& needed_fields,
    const FileGroup& group, const std::optional<std::vector<RowRange>>& row_ranges,
    const SchemaLookup& schemas);

}  // namespace paimon_rowid
