// Scan planning: snapshot -> manifests -> live files -> file groups -> splits
// (docs/format.md §3.4, §5.3, §5.4).
//
// A file group is the unit of data-evolution reading: files of one (partition, bucket)
// whose row-id ranges overlap (inclusive, transitively; files that only touch end to end
// stay apart). Each group is read as one merged row set. A split packs whole groups of one
// partition, and may be restricted to row-id ranges: rows outside them are never returned.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/common/row_range.h"
#include "paimon_rowid/meta/manifest.h"
#include "paimon_rowid/scan/deletion_files.h"
#include "paimon_rowid/scan/predicate.h"

namespace paimon_rowid {

struct DataSplit {
  int64_t snapshot_id = 0;
  std::string partition;  // serialized BinaryRow, bytes as in the manifest
  int32_t bucket = 0;
  std::string bucket_dir;  // directory of the files (absolute)
  std::vector<FileGroup> groups;
  std::optional<std::vector<RowRange>> row_ranges;  // sorted, merged; nullopt = all rows
  /// Deletion vectors of the groups' anchors (deletion_files.h), by data file name.
  BucketDeletionFiles deletion_files;

  /// Rows the split returns before predicates (row ranges applied; deleted rows counted).
  int64_t RowCount() const;
  std::vector<std::string> FilePaths() const;
  std::string FilePath(const DataFileMeta& file) const;

  /// A self-contained byte form (for pickling and shipping to workers).
  Result<std::string> Serialize() const;
  static Result<DataSplit> Deserialize(std::string_view bytes);
};

/// The row-id range covered by a group's normal files (or all files when it has none).
RowRange GroupRange(const FileGroup& group);
/// Rows of a group: the span of its normal files.
int64_t GroupRowCount(const FileGroup& group);

struct ScanPlan {
  std::optional<int64_t> snapshot_id;
  std::vector<DataSplit> splits;
};

/// Refuses tables this engine cannot read correctly yet: dedicated vector files.
/// NotImplemented with a clear message.
Status CheckReadable(const Table& table, const Snapshot& snapshot);

/// Live ADD entries of `snapshot` in manifest order. With `row_ranges`, manifests and entries
/// whose row-id bounds miss every range are skipped (entries without row ids are kept).
Result<std::vector<ManifestEntry>> ReadLiveEntries(const Table& table, const Snapshot& snapshot,
                                                   const std::vector<RowRange>* row_ranges);

/// Groups one (partition, bucket)'s files: by overlapping row-id ranges on data-evolution
/// tables (Invalid when a file has no first_row_id), one file per group otherwise. Groups are
/// ordered by row id; members keep their input (manifest) order.
Result<std::vector<FileGroup>> GroupFiles(std::vector<DataFileMeta> files, bool data_evolution);

class ScanPlanner {
 public:
  explicit ScanPlanner(std::shared_ptr<const Table> table) : table_(std::move(table)) {}

  ScanPlanner& WithPredicate(std::shared_ptr<Predicate> predicate);
  /// Inclusive row-id ranges; sorted and merged (adjacent too). An empty list plans nothing.
  ScanPlanner& WithRowRanges(std::vector<RowRange> ranges);
  /// Target split size in bytes (source.split.target-size, default 128 MiB).
  ScanPlanner& WithSplitTargetSize(int64_t bytes);

  /// Plans the snapshot selected by the table's options.
  Result<ScanPlan> Plan() const;

 private:
  std::shared_ptr<const Table> table_;
  std::shared_ptr<Predicate> predicate_;
  std::optional<std::vector<RowRange>> row_ranges_;
  int64_t split_target_size_ = 128LL << 20;
};

}  // namespace paimon_rowid

namespace paimon_rowid {

/// Schemas by id, read once per planner/reader. Thread-safe.
class SchemaCache {
 public:
  explicit SchemaCache(std::shared_ptr<const Table> table) : table_(std::move(table)) {}
  Result<std::shared_ptr<const TableSchema>> Get(int64_t schema_id);

 private:
  std::shared_ptr<const Table> table_;
  std::mutex mu_;
  std::map<int64_t, std::shared_ptr<const TableSchema>> schemas_;
};

/// A column physically present in a data file: the field (of the file's schema) and its id.
struct WrittenField {
  int32_t field_id;
  const DataField* field;  // points into the file schema
};

/// The user columns a data file holds (docs/format.md §5.1): the file schema's fields named in
/// _WRITE_COLS (system names skipped), or all of them when _WRITE_COLS is null.
std::vector<WrittenField> WrittenFields(const DataFileMeta& file, const TableSchema& file_schema);

}  // namespace paimon_rowid
