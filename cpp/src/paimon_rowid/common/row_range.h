// Inclusive integer ranges: row-id ranges of files and scans, and row positions inside a file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

struct RowRange {
  int64_t from = 0;
  int64_t to = 0;  // inclusive
  int64_t count() const { return to - from + 1; }
  bool Contains(int64_t v) const { return from <= v && v <= to; }
  bool Overlaps(int64_t lo, int64_t hi) const { return from <= hi && lo <= to; }
  bool operator==(const RowRange& o) const { return from == o.from && to == o.to; }
};

/// Sorts by `from` and merges overlapping ranges (and adjacent ones when `merge_adjacent`).
std::vector<RowRange> SortAndMerge(std::vector<RowRange> ranges, bool merge_adjacent = true);

/// The parts of sorted, merged `ranges` that fall inside [lo, hi].
std::vector<RowRange> IntersectRanges(const std::vector<RowRange>& ranges, int64_t lo, int64_t hi);

/// True when any of the sorted, merged `ranges` overlaps [lo, hi] (binary search).
bool AnyOverlap(const std::vector<RowRange>& ranges, int64_t lo, int64_t hi);

/// Sorted, merged `ranges` without the values in sorted, distinct `removed`.
std::vector<RowRange> SubtractValues(const std::vector<RowRange>& ranges,
                                     const std::vector<int64_t>& removed);

/// Parses the JSON text of inclusive ranges, "[[from, to], ...]" (the form the Python API
/// records backfill progress in), in the given order. Invalid when the text is not such an
/// array of integer pairs or a pair has from > to.
Result<std::vector<RowRange>> ParseRowRangesJson(std::string_view text);

}  // namespace paimon_rowid
