// read_by_row_id: read some columns of a set of row ids (docs/architecture.md, "The row-id jobs").
//
// Set semantics, like `WHERE _ROW_ID IN (...)`: one output row per distinct id, grouped by
// file group and ascending within a group. Ids are routed with the RowIdIndex (binary
// search), sorted and de-duplicated per group into runs, and each group is read with only
// those runs selected: only the projected columns, only from the files that win them, and
// only the row groups holding wanted rows are decoded.
//
// Thread-safety: Read may be called from several threads on disjoint id sets.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/read/table_read.h"
#include "paimon_rowid/rowid/row_id_index.h"

namespace paimon_rowid {

struct RowIdReadOptions {
  /// Every allocation of the reads (ReadOptions::pool of the underlying TableRead). Not
  /// owned; must outlive the RowIdRead and its streams.
  arrow::MemoryPool* pool = arrow::default_memory_pool();
};

class RowIdRead : public std::enable_shared_from_this<RowIdRead> {
 public:
  /// `table` carries the read options (time travel already resolved by the caller to a
  /// snapshot: the index is built from `snapshot`). `projection` is validated and
  /// de-duplicated by the caller; the output is (*projection, _ROW_ID), with _ROW_ID kept
  /// where the projection puts it.
  static Result<std::shared_ptr<RowIdRead>> Make(std::shared_ptr<const Table> table,
                                                 std::vector<std::string> projection,
                                                 std::shared_ptr<const RowIdIndex> index,
                                                 const RowIdReadOptions& options = {});

  const std::shared_ptr<arrow::Schema>& output_schema() const;
  const std::shared_ptr<const RowIdIndex>& index() const { return index_; }

  /// Routes `ids` (int64, any order, duplicates allowed) and returns, per touched group, the
  /// sorted distinct runs to read. Invalid for null ids or ids outside the valid ranges.
  Result<std::vector<std::pair<size_t, std::vector<RowRange>>>> Plan(
      const std::vector<std::shared_ptr<arrow::Array>>& ids) const;

  /// Reads one planned group.
  Result<std::shared_ptr<arrow::RecordBatch>> ReadGroup(size_t group,
                                                        const std::vector<RowRange>& runs) const;

  /// Plans and streams all groups (one batch per group, in plan order); the stream keeps
  /// this object alive. Up to `threads` groups are read at once (0: one per core), at most
  /// 2 × threads ahead of the consumer.
  Result<std::shared_ptr<arrow::RecordBatchReader>> Read(
      const std::vector<std::shared_ptr<arrow::Array>>& ids, int threads = 0) const;

 private:
  RowIdRead() = default;
  std::shared_ptr<const Table> table_;
  std::shared_ptr<const RowIdIndex> index_;
  std::shared_ptr<TableRead> read_;
};

}  // namespace paimon_rowid
