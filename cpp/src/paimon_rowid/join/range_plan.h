// Range-join planning (docs/range-join.md): cut the key space of the first join key into
// half-open ranges so that each range can be joined alone, reading only the splits whose key
// bounds overlap it. pypaimon 2.1.0's `range_join` contract (reference memo §4.3-§4.4).
//
// Planning is two steps:
//   1. PlanRangeSide, once per table: the live splits of the latest snapshot, one per file
//      group (not packed to source.split.target-size, so small tables still fan out), each
//      with the (lo, hi) bounds of the range key over its files. Bounds come from the file's
//      value stats, else its Parquet footer, else the split is "unknown" (may hold any key).
//   2. PlanRangeTasks over both sides' extents: row-weighted cut points, the re-read budget
//      (halve the range count while the bytes read exceed twice the bytes of both sides),
//      and per range the overlapping splits of each side; ranges one side cannot feed are
//      dropped (the join is inner).
//
// Bounds are arrow::Scalars of the key's Arrow type. Supported range-key types: signed
// integers, strings, binaries, date, timestamp (without time zone) and decimals. Callers
// reject FLOAT/DOUBLE/TIMESTAMP_LTZ before planning (pypaimon's validation); any other type
// gives Invalid when two bounds must be compared.
//
// Cost: PlanRangeSide reads the snapshot's manifests once, plus one Parquet footer per file
// whose stats do not bound the key (pypaimon writes no value stats, so its tables pay one
// footer read per file; up to 16 footers are read at once on the process executor).
// PlanRangeTasks is O(splits · ranges · log) and does no I/O. All functions are
// thread-compatible: no shared state.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/scalar.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/scan/plan.h"
#include "paimon_rowid/scan/predicate.h"

namespace paimon_rowid {

/// pypaimon's caps: at most 512 ranges; at most 2 full reads of both sides' bytes.
constexpr int64_t kMaxRangeJoinRanges = 512;
constexpr int64_t kRangeJoinRereadBudget = 2;

/// The bounds of a split's range key: both set (inclusive), or both null (unknown: the split
/// may hold any key and overlaps every range).
struct KeyBounds {
  std::shared_ptr<arrow::Scalar> lo;
  std::shared_ptr<arrow::Scalar> hi;
  bool known() const { return lo != nullptr && hi != nullptr; }
};

/// What range cutting needs of one split (no DataSplit, so cutting is testable alone).
struct SplitExtent {
  KeyBounds bounds;
  int64_t rows = 0;   // Σ row_count of the split's files (partial and blob files included)
  int64_t bytes = 0;  // Σ file_size of the split's files
};

/// A split of one side with its extent.
struct RangedSplit {
  DataSplit split;
  SplitExtent extent;
};

/// A half-open key range [lo, hi); a null end is unbounded.
struct KeyRange {
  std::shared_ptr<arrow::Scalar> lo;
  std::shared_ptr<arrow::Scalar> hi;
};

/// One range to join and the indices (into each side's splits) of the splits it reads.
struct RangeTask {
  KeyRange range;
  std::vector<int32_t> left;
  std::vector<int32_t> right;
};

/// Three-way comparison of two non-null scalars of the same type (<0, 0, >0). Strings and
/// binaries compare bytewise (UTF-8 byte order is code-point order). Invalid for other types
/// or differing types.
Result<int> CompareKeys(const arrow::Scalar& a, const arrow::Scalar& b);

/// Whether a split with `bounds` may hold keys of `range` (always, when unknown).
Result<bool> Overlaps(const KeyBounds& bounds, const KeyRange& range);

/// pypaimon's `_cut_points`: every known split puts weight rows/2 at lo and at hi; sorted by
/// value (stable), the running weight takes cut k once it reaches total·k/num_ranges, if the
/// value is strictly greater than the previous cut; at most num_ranges − 1 cuts. Unknown
/// splits contribute nothing.
Result<std::vector<std::shared_ptr<arrow::Scalar>>> CutPoints(const std::vector<SplitExtent>& left,
                                                              const std::vector<SplitExtent>& right,
                                                              int64_t num_ranges);

/// [−∞, c0), [c0, c1), ..., [c_last, +∞): cuts.size() + 1 ranges.
std::vector<KeyRange> RangesFromCuts(const std::vector<std::shared_ptr<arrow::Scalar>>& cuts);

/// pypaimon's `_bounded_ranges`: cut into num_ranges ranges; while num_ranges > 1 and the
/// bytes read (Σ split bytes × ranges it overlaps, both sides) exceed
/// kRangeJoinRereadBudget × max(1, total bytes), halve num_ranges and cut again.
Result<std::vector<KeyRange>> BoundedRanges(const std::vector<SplitExtent>& left,
                                            const std::vector<SplitExtent>& right,
                                            int64_t num_ranges);

/// The default range count: max(#left, #right) splits.
int64_t DefaultNumRanges(size_t left_splits, size_t right_splits);

/// The whole cut: num_ranges clamped to [1, kMaxRangeJoinRanges], BoundedRanges, then per
/// range the overlapping splits of each side, dropping ranges where a side has none. No tasks
/// when a side is empty. REQUIRES: num_ranges was validated by the caller (>= 1).
Result<std::vector<RangeTask>> PlanRangeTasks(const std::vector<SplitExtent>& left,
                                              const std::vector<SplitExtent>& right,
                                              int64_t num_ranges);

/// Plans one side: the splits of the table's selected snapshot (callers pin the latest by
/// dropping time-travel options), one per file group, restricted by `partition_filter` (may
/// be null), each with its range-key bounds. `range_column` names a field of the table's
/// schema; the key is tracked by its field id, so files of older schemas resolve their own
/// name for it. A file's bounds are unknown when it lacks the key column (blob files,
/// partial-column files of data-evolution groups), when neither its value stats (same field
/// id and type) nor its Parquet footer (same Arrow type, min/max in every row group) bound the
/// key, or when every key of it is NULL; one unknown file makes its whole split unknown. On a
/// table with primary keys every split is unknown unless the key is a primary key (merges
/// can rewrite values beyond the stored bounds). A footer that cannot be read is unknown,
/// not an error. No snapshot gives no splits. Errors: KeyError for an unknown column; what
/// planning the table raises.
Result<std::vector<RangedSplit>> PlanRangeSide(std::shared_ptr<const Table> table,
                                               const std::string& range_column,
                                               std::shared_ptr<Predicate> partition_filter);

}  // namespace paimon_rowid
