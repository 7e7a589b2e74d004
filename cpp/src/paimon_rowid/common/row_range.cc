#include "paimon_rowid/common/row_range.h"

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace paimon_rowid {

std::vector<RowRange> SortAndMerge(std::vector<RowRange> ranges, bool merge_adjacent) {
  auto before = [](const RowRange& a, const RowRange& b) {
    return a.from < b.from || (a.from == b.from && a.to < b.to);
  };
  // Callers often pass ranges in order already (ids of a sorted source, merged lists).
  if (!std::is_sorted(ranges.begin(), ranges.end(), before)) {
    std::sort(ranges.begin(), ranges.end(), before);
  }
  std::vector<RowRange> out;
  out.reserve(ranges.size());
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

std::vector<RowRange> IntersectRanges(const std::vector<RowRange>& ranges, int64_t lo, int64_t hi) {
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

Result<std::vector<RowRange>> ParseRowRangesJson(std::string_view text) {
  const auto value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto malformed = [&] {
    return Status::Invalid("row ranges must be a JSON array of [from, to] integer pairs, got '",
                           text, "'");
  };
  if (!value.is_array()) return malformed();
  std::vector<RowRange> out;
  out.reserve(value.size());
  for (const auto& pair : value) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() ||
        !pair[1].is_number_integer()) {
      return malformed();
    }
    for (const auto& bound : pair) {
      if (bound.is_number_unsigned() && bound.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
        return malformed();
      }
    }
    RowRange range{pair[0].get<int64_t>(), pair[1].get<int64_t>()};
    if (range.from > range.to) {
      return Status::Invalid("Invalid range: from (", range.from, ") > to (", range.to, ")");
    }
    out.push_back(range);
  }
  return out;
}

std::vector<RowRange> SubtractValues(const std::vector<RowRange>& ranges,
                                     const std::vector<int64_t>& removed) {
  std::vector<RowRange> out;
  auto it = removed.begin();
  for (const RowRange& r : ranges) {
    it = std::lower_bound(it, removed.end(), r.from);
    int64_t from = r.from;
    for (; it != removed.end() && *it <= r.to; ++it) {
      if (*it > from) out.push_back({from, *it - 1});
      from = *it + 1;
    }
    if (from <= r.to) out.push_back({from, r.to});
  }
  return out;
}

}  // namespace paimon_rowid
