#include "paimon_rowid/common/row_range.h"

#include <algorithm>

namespace paimon_rowid {

std::vector<RowRange> SortAndMerge(std::vector<RowRange> ranges, bool merge_adjacent) {
  std::sort(ranges.begin(), ranges.end(), [](const RowRange& a, const RowRange& b) {
    return a.from < b.from || (a.from == b.from && a.to < b.to);
  });
  std::vector<RowRange> out;
  for (const auto& r : ranges) {
    if (!out.empty()) {
      RowRange& last = out.back();
      bool touches = merge_adjacent ? r.from <= last.to + 1 : r.from <= last.to;
      if (touches) {
        last.to = std::max(last.to, r.to);
        continue;
      }
    }
    out.push_back(r);
  }
  return out;
}

namespace {
// First range whose `to` is >= lo.
std::vector<RowRange>::const_iterator FirstEndingAtOrAfter(const std::vector<RowRange>& ranges,
                                                           int64_t lo) {
  return std::lower_bound(ranges.begin(), ranges.end(), lo,
                          [](const RowRange& r, int64_t v) { return r.to < v; });
}
}  // namespace

std::vector<RowRange> IntersectRanges(const std::vector<RowRange>& ranges, int64_t lo,
                                      int64_t hi) {
  std::vector<RowRange> out;
  for (auto it = FirstEndingAtOrAfter(ranges, lo); it != ranges.end() && it->from <= hi; ++it) {
    out.push_back({std::max(lo, it->from), std::min(hi, it->to)});
  }
  return out;
}

bool AnyOverlap(const std::vector<RowRange>& ranges, int64_t lo, int64_t hi) {
  auto it = FirstEndingAtOrAfter(ranges, lo);
  return it != ranges.end() && it->from <= hi;
}

}  // namespace paimon_rowid
