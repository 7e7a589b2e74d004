// The data-evolution merge reader (docs/format.md §5.3).
//
// A file group is read as one row set. Its normal files all cover the same row-id range;
// for every requested column the newest normal file (highest max sequence number) that
// holds the column supplies it; a column no file holds reads as NULL. Partition columns come
// from the split's partition values, never from files. `_ROW_ID` is the group's first row id
// plus the row position; `_SEQUENCE_NUMBER` is the max sequence number of the group's newest
// normal file, independent of the projection.
//
// Only the rows inside the split's row ranges are read: row groups without selected rows
// are never decoded. With a predicate (not on a BLOB column) a group is read in two phases
// (read/stats_filter.h): the rows are first narrowed by the Parquet statistics (row groups,
// and pages where the page index exists) of the files supplying the predicate's columns;
// then only the predicate's columns are read and the predicate runs exactly on them; the
// other columns are read for the surviving rows only ("late materialization", when at most
// half of the rows survive; else for all rows, then filtered). A group whose rows all fail
// reads no other column.
//
// BLOB columns stored in `.blob` files (docs/format.md §5.3 step 6, read/blob_reader.h) are
// fetched last, by byte range, for the rows that survive: row ranges, the predicate (unless
// it references a BLOB column, in which case payloads of all selected rows are fetched
// first) and the limit. With option `blob-as-descriptor` = true they are BlobDescriptor
// bytes pointing into the .blob files and no payload byte is read. ARRAY<BLOB> and
// MAP<K, BLOB> columns are read the same way (list / map of payloads or descriptors).
// `blob-descriptor-field` columns (descriptor bytes stored inline) are dereferenced after
// filtering -- the referenced byte ranges replace the stored bytes -- unless
// `blob-as-descriptor` = true, as pypaimon does; predicates see the stored bytes.
//
// Thread-safety: a TableRead is immutable; Read/ReadGroup may run concurrently.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/read/group_plan.h"
#include "paimon_rowid/read/stats_filter.h"
#include "paimon_rowid/scan/plan.h"
#include "paimon_rowid/scan/predicate.h"

namespace paimon_rowid {

struct ReadOptions {
  /// Output columns in order: table fields and `_ROW_ID` / `_SEQUENCE_NUMBER`.
  std::vector<std::string> fields;
  std::shared_ptr<Predicate> predicate;
  std::optional<int64_t> limit;
  /// Groups Read() reads at once without a limit, on the shared executor and at most twice
  /// this many ahead of the consumer (so as many group batches are buffered); 0 = one per
  /// core.
  /// The default, 1, reads every group on the consumer's thread when it is pulled: streaming
  /// consumers (a backfill, a Ray block) hold one group at a time. Callers that materialize
  /// the whole result anyway (Python's to_arrow) ask for 0. With a limit groups are read one
  /// at a time.
  int threads = 1;
  /// Every allocation of the read: Parquet decoding and the page-selective read, casts,
  /// assembly (concatenation, constant and NULL columns), the predicate's compute and the
  /// BLOB columns, and the buffers the data files are read into. Not owned; must outlive
  /// the TableRead and its readers.
  arrow::MemoryPool* pool = arrow::default_memory_pool();
};

class TableRead {
 public:
  /// Invalid for unknown fields, or system fields on a table without row tracking.
  static Result<std::shared_ptr<TableRead>> Make(std::shared_ptr<const Table> table,
                                                 ReadOptions options);

  const std::shared_ptr<arrow::Schema>& output_schema() const { return output_schema_; }

  /// Streams the rows of `splits`, one batch per non-empty file group, in split order,
  /// stopping after `limit` rows; groups are read `threads` at a time (ReadOptions). Errors
  /// surface from ReadNext. The reader is pulled from one thread at a time.
  Result<std::shared_ptr<arrow::RecordBatchReader>> Read(std::vector<DataSplit> splits) const;

  /// The rows of one group of `split` (output schema), or nullptr when none is selected.
  Result<std::shared_ptr<arrow::RecordBatch>> ReadGroup(const DataSplit& split,
                                                        const FileGroup& group) const;
  /// As above, keeping at most `max_rows` rows (after the predicate); BLOB payloads of rows
  /// beyond it are never fetched.
  Result<std::shared_ptr<arrow::RecordBatch>> ReadGroup(const DataSplit& split,
                                                        const FileGroup& group,
                                                        std::optional<int64_t> max_rows) const;

  /// As ReadGroup(split, group), through `files`: readers the caller opened for `split`
  /// (GroupFileReaders of the same split and group), so that a file the caller already
  /// looked into (e.g. an update planning a page splice) is not opened twice.
  Result<std::shared_ptr<arrow::RecordBatch>> ReadGroup(const DataSplit& split,
                                                        const FileGroup& group,
                                                        GroupFileReaders* files) const;

  /// The Arrow schema of the given output fields of `table` (pypaimon's types).
  static Result<std::shared_ptr<arrow::Schema>> OutputSchema(
      const Table& table, const std::vector<std::string>& fields);

 private:
  TableRead() = default;

  Result<std::shared_ptr<arrow::RecordBatch>> ReadGroupWith(const DataSplit& split,
                                                            const FileGroup& group,
                                                            std::optional<int64_t> max_rows,
                                                            GroupFileReaders* files) const;
  // The phases of ReadGroup after planning (PlanGroupRead, read/group_plan.h):
  // drop the rows the group anchor's deletion vector deletes from the selection;
  Status ApplyDeletionVector(const DataSplit& split, const FileGroup& group,
                             GroupReadPlan* plan) const;
  using ColumnMap = std::map<std::string, std::shared_ptr<arrow::ChunkedArray>>;
  // read each supplying file's columns (those in `only`, all without it) for the rows of
  // `selection` (group positions), cast to the table's types;
  Result<ColumnMap> ReadSupplies(const GroupReadPlan& plan, const std::set<std::string>* only,
                                 const std::vector<RowRange>& selection,
                                 GroupFileReaders* files) const;
  // with a predicate: prune `plan`'s selection by file statistics, read the predicate's
  // columns, filter exactly, narrow the selection to the surviving rows and read the other
  // needed columns for them (table_read_filter.cc). nullopt when no row survives.
  Result<std::optional<ColumnMap>> ReadFiltered(const DataSplit& split, const FileGroup& group,
                                                GroupReadPlan* plan, GroupFileReaders* files) const;
  // lay out the columns of `schema` (read, derived system columns, partition constants, NULL
  // for columns no file holds);
  Result<std::shared_ptr<arrow::RecordBatch>> Assemble(const DataSplit& split,
                                                       const FileGroup& group,
                                                       const GroupReadPlan& plan,
                                                       const std::shared_ptr<arrow::Schema>& schema,
                                                       ColumnMap* columns) const;
  // filter by the predicate (unless ReadFiltered did), apply max_rows, fetch BLOB payloads
  // for the surviving rows, dereference stored descriptors and drop the predicate-only
  // columns.
  Result<std::shared_ptr<arrow::RecordBatch>> FilterAndFetchBlobs(
      const DataSplit& split, const GroupReadPlan& plan, std::shared_ptr<arrow::RecordBatch> batch,
      std::optional<int64_t> max_rows, bool predicate_applied) const;

  std::shared_ptr<const Table> table_;
  ReadOptions options_;
  std::shared_ptr<arrow::Schema> output_schema_;
  std::vector<std::string> needed_fields_;  // output fields plus predicate fields
  std::shared_ptr<arrow::Schema> needed_schema_;
  std::vector<DataField> partition_fields_;
  std::shared_ptr<SchemaCache> schemas_;
  bool blob_as_descriptor_ = false;
  bool predicate_reads_blob_ = false;  // the predicate references a BLOB column
  // The predicate's fields, their schema and the predicate bound to it (two-phase reads).
  std::set<std::string> predicate_fields_;
  std::shared_ptr<arrow::Schema> predicate_schema_;
  arrow::compute::Expression predicate_expr_;
  // Output `blob-descriptor-field` columns whose stored descriptors are resolved to payloads.
  std::vector<std::string> dereference_fields_;
};

}  // namespace paimon_rowid
