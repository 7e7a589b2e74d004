// RowIdIndex: where every row id of a pinned snapshot lives.
//
// Built once per call from the live files of one snapshot (one manifest read), it holds
// every data-evolution file group in row-id order with its partition, bucket directory and
// files. Routing a batch of ids is vectorized: ids are range-checked and mapped to their
// group by binary search over the sorted group starts — no per-row interpreter work and no
// scan of, or join against, the data. It is compact and serializable, so a driver builds it
// once and ships it to workers (docs/architecture.md, "The row-id jobs").
//
// Valid ids are those inside the union of the normal (non-blob) files' ranges; an id in a
// hole (a dropped partition, ids beyond nextRowId, negative ids) is rejected with the same
// message pypaimon uses.
//
// Thread-safety: immutable after Build; share freely.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/array.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/common/row_range.h"
#include "paimon_rowid/scan/plan.h"

namespace paimon_rowid {

/// What Route's errors say of ids no group owns (and of null ids): where valid ids come from.
/// (pypaimon blames a "stale planner snapshot", which sends a user with a wrong id astray.)
inline constexpr const char* kStaleRowIdContext =
    "row ids must name rows of this table at the planned snapshot: take them from its "
    "_ROW_ID column (ids of another table, of rows an overwrite dropped, or past the last "
    "row name no row).";

/// OK when a column of row ids named `column` has an integer type (any width, signed or not:
/// values are then cast safely to int64) or the null type (no values); else TypeError naming
/// the column and its type.
/// Strings, floats, booleans and decimals are refused rather than cast (pypaimon casts them,
/// so "3" and 1.5 addressed rows 3 and 1).
Status CheckRowIdType(const arrow::DataType& type, const std::string& column);

class RowIdIndex {
 public:
  struct Group {
    RowRange range;  // the row ids of the group's normal files
    std::string partition;
    int32_t bucket = 0;
    std::string bucket_dir;
    FileGroup files;
    /// The anchor's deletion vector, if it has one (empty or one entry).
    BucketDeletionFiles deletion_files;
  };

  /// Indexes `snapshot` of `table` (typically the latest, pinned by the caller). Refuses tables
  /// the read path refuses (vector files). Deleted rows stay routable (their group's
  /// deletion vector hides them on read).
  static Result<std::shared_ptr<RowIdIndex>> Build(std::shared_ptr<const Table> table,
                                                   const Snapshot& snapshot);

  int64_t snapshot_id() const { return snapshot_id_; }
  /// This index with no group's deletion vector: for reading rows of an expired snapshot whose
  /// deletion-vector files may be gone (rowid_internal::ReaderAt).
  std::shared_ptr<const RowIdIndex> WithoutDeletionVectors() const;
  const std::vector<Group>& groups() const { return groups_; }
  /// Sorted union of the normal files' ranges, adjacent ranges merged.
  const std::vector<RowRange>& valid_ranges() const { return valid_ranges_; }
  int64_t total_rows() const;

  /// The group owning each id (index into groups()). Invalid for a null id
  /// ("_ROW_ID is null; ...") or an id outside every valid range ("_ROW_ID {id} does not
  /// belong to any valid range [...]; ..."); `context` ends both messages.
  Result<std::vector<int32_t>> Route(const arrow::Int64Array& ids,
                                     const std::string& context) const;

  /// A DataSplit holding just group `g` (row ranges optional), for TableRead::ReadGroup.
  DataSplit SplitOf(size_t g, std::optional<std::vector<RowRange>> row_ranges = std::nullopt) const;

  /// What a job touching `columns` of the rows routed to `owners` (Route's output, one
  /// entry per row) costs in file bytes, for choosing where it runs: per touched group, the
  /// share of each Parquet file's size its columns hold (a read or an update decodes the
  /// whole column of a group), and for each .blob file holding one of them its size times
  /// the group's routed rows over the group's rows (payloads are read per row). Files
  /// without write_cols hold every field of `table`'s schema of their kind. An estimate:
  /// column sizes are not known per file, every column counts the same.
  int64_t EstimateBytes(const Table& table, const std::vector<int32_t>& owners,
                        const std::vector<std::string>& columns) const;

  /// Python-list style rendering of the valid ranges, e.g. "['[0, 5]', '[8, 9]']".
  std::string ValidRangesString() const;

  Result<std::string> Serialize() const;
  static Result<std::shared_ptr<RowIdIndex>> Deserialize(std::string_view bytes);

 private:
  RowIdIndex() = default;
  int64_t snapshot_id_ = 0;
  std::vector<Group> groups_;
  std::vector<int64_t> starts_;  // groups_[i].range.from, for binary search
  std::vector<RowRange> valid_ranges_;
};

}  // namespace paimon_rowid
