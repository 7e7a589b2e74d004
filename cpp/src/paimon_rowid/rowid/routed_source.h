// The rows of an update_by_row_id source, routed to the file groups that own them.
//
// Rows stay in memory until the held bytes pass a budget; then every group's in-memory rows
// are appended to one spill file (Arrow IPC file format, LZ4-framed when available) and
// dropped, so the memory an update holds is bounded by the budget plus the groups being
// written, not by the size of the source. A spill file holds one record batch per group,
// in group order; Load reads a group's batches back by index (no scan of other groups).
// Spill files live under `spill_dir` and are deleted by Reset and by the destructor.
//
// Thread-safety: Append/Release/Reset from one thread; Load may run concurrently from
// several threads once appending is over.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "arrow/table.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

class RowIdIndex;

class RoutedSource {
 public:
  /// `budget` is the number of bytes of rows held in memory before spilling (<= 0: never
  /// spill). Spill files are created in `spill_dir` (the system temp directory when empty).
  /// Spilling and loading allocate from `pool` (not owned).
  RoutedSource(std::shared_ptr<arrow::Schema> schema, int64_t budget, std::string spill_dir,
               arrow::MemoryPool* pool = arrow::default_memory_pool());
  ~RoutedSource();
  RoutedSource(const RoutedSource&) = delete;
  RoutedSource& operator=(const RoutedSource&) = delete;

  /// Drops every row (deleting spill files) and sizes the store for `num_groups` groups.
  void Reset(size_t num_groups);

  /// Adds rows of group `g` (a batch with the store's schema).
  Status Append(size_t g, std::shared_ptr<arrow::RecordBatch> rows);
  /// Spills every group's in-memory rows to one new file when the budget is passed; called
  /// after each routed source batch, so a spill file holds whole batches' worth of rows.
  Status SpillIfOverBudget();

  /// True when group `g` received at least one row.
  bool touched(size_t g) const { return rows_[g] > 0; }
  size_t num_groups() const { return rows_.size(); }
  /// Rows routed to group `g`.
  int64_t rows(size_t g) const { return rows_[g]; }

  /// Every row of group `g`: its spilled batches (in arrival order) then the in-memory ones.
  Result<std::shared_ptr<arrow::Table>> Load(size_t g) const;

  /// Drops group `g`'s in-memory rows (its spilled rows become unreachable too).
  void Release(size_t g);

  /// Bytes of rows held in memory now, and the most ever held.
  int64_t memory_bytes() const { return memory_bytes_; }
  int64_t peak_memory_bytes() const { return peak_memory_bytes_; }
  /// Spill files written so far (since the last Reset) and the rows they hold.
  int num_spills() const { return static_cast<int>(spill_paths_.size()); }
  int64_t spilled_rows() const { return spilled_rows_; }

 private:
  struct SpilledBatch {
    int file;
    int batch;
  };
  Status Spill();
  void DeleteSpills();

  std::shared_ptr<arrow::Schema> schema_;
  int64_t budget_;
  arrow::MemoryPool* pool_;
  std::string spill_dir_;
  std::vector<std::vector<std::shared_ptr<arrow::RecordBatch>>> memory_;  // per group
  std::vector<std::vector<SpilledBatch>> spilled_;                        // per group
  std::vector<int64_t> rows_;                                             // per group
  std::vector<std::string> spill_paths_;
  int64_t memory_bytes_ = 0;
  int64_t peak_memory_bytes_ = 0;
  int64_t spilled_rows_ = 0;
};

/// Routes the rows of `conformed` (column 0: the int64 _ROW_ID, non-null; then the update
/// columns) to the groups of `index` that own them, copying each run out of the batch (a
/// slice would keep the whole batch alive), then spills `into` if it is over its budget.
/// Invalid for a table without rows (`target` names it) and for ids no group owns.
Status RouteRows(const RowIdIndex* index, const std::string& target,
                 const std::shared_ptr<arrow::RecordBatch>& conformed, RoutedSource* into,
                 arrow::MemoryPool* pool);

}  // namespace paimon_rowid
