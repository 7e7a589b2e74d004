#include "paimon_rowid/scan/partition_stats.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <set>

#include "arrow/scalar.h"
#include "paimon_rowid/common/options.h"
#include "paimon_rowid/scan/partition.h"
#include "paimon_rowid/scan/plan.h"

namespace paimon_rowid {
namespace {

// DataFileMeta's creation time is the writer's local wall clock encoded as if UTC; Java's
// creationTimeEpochMillis reads it in the host's zone.
int64_t EpochMillis(int64_t local_as_utc_millis) {
  std::time_t secs = static_cast<std::time_t>(local_as_utc_millis / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  tm.tm_isdst = -1;
  return static_cast<int64_t>(mktime(&tm)) * 1000 + local_as_utc_millis % 1000;
}

struct Acc {
  PartitionStats stats;
  std::set<int32_t> buckets;
  std::vector<std::pair<int64_t, int64_t>> ranges;  // [first, last] row ids of normal files
};

}  // namespace

Result<std::vector<PartitionStats>> ListPartitionStats(const Table& table) {
  std::vector<PartitionStats> out;
  ARROW_ASSIGN_OR_RAISE(auto snapshot, table.LatestSnapshot());
  if (!snapshot) return out;
  ARROW_ASSIGN_OR_RAISE(auto fields, PartitionFields(table.schema()));
  const std::string default_name =
      table.options().Get(options::kPartitionDefaultName).value_or("__DEFAULT_PARTITION__");
  const bool data_evolution = table.data_evolution_enabled();
  ARROW_ASSIGN_OR_RAISE(auto entries, ReadLiveEntries(table, *snapshot, nullptr));
  std::map<std::string, Acc> by_partition;  // serialized partition -> stats
  for (const auto& e : entries) {
    auto [it, inserted] = by_partition.try_emplace(e.partition);
    Acc& acc = it->second;
    if (inserted) {
      ARROW_ASSIGN_OR_RAISE(auto values, DecodePartition(e.partition, fields));
      for (size_t i = 0; i < fields.size(); ++i) {
        const auto& v = values[i];
        acc.stats.spec.emplace_back(fields[i].name,
                                    !v || !v->is_valid ? default_name : v->ToString());
      }
    }
    const DataFileMeta& f = e.file;
    acc.stats.file_size_in_bytes += f.file_size;
    acc.stats.file_count += 1;
    acc.buckets.insert(e.bucket);
    if (f.creation_time_millis) {
      acc.stats.last_file_creation_time =
          std::max(acc.stats.last_file_creation_time, EpochMillis(*f.creation_time_millis));
    }
    if (data_evolution && f.first_row_id) {
      if (f.is_normal_file() && f.row_count > 0) {
        acc.ranges.emplace_back(*f.first_row_id, f.last_row_id());
      }
    } else {
      acc.stats.record_count += f.row_count;
    }
  }
  for (auto& [_, acc] : by_partition) {
    // Rows of the merged row-id ranges: each row once, however many files hold its columns.
    std::sort(acc.ranges.begin(), acc.ranges.end());
    int64_t end = -1;
    for (const auto& [lo, hi] : acc.ranges) {
      int64_t from = std::max(lo, end + 1);
      if (hi >= from) acc.stats.record_count += hi - from + 1;
      end = std::max(end, hi);
    }
    acc.stats.total_buckets = static_cast<int32_t>(acc.buckets.size());
    out.push_back(std::move(acc.stats));
  }
  auto name = [](const PartitionStats& p) {
    std::vector<std::pair<std::string, std::string>> sorted = p.spec;
    std::sort(sorted.begin(), sorted.end());
    std::string s;
    for (const auto& [k, v] : sorted) s += (s.empty() ? "" : ",") + k + "=" + v;
    return s;
  };
  std::sort(out.begin(), out.end(),
            [&](const PartitionStats& a, const PartitionStats& b) { return name(a) < name(b); });
  return out;
}

}  // namespace paimon_rowid
