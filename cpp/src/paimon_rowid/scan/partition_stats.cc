#include "paimon_rowid/scan/partition_stats.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
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

Result<std::vector<PartitionStats>> DeltaPartitionStats(const Table& table,
                                                        const std::vector<ManifestEntry>& entries) {
  std::vector<PartitionStats> out;
  ARROW_ASSIGN_OR_RAISE(auto fields, PartitionFields(table.schema()));
  const std::string default_name =
      table.options().Get(options::kPartitionDefaultName).value_or("__DEFAULT_PARTITION__");
  std::map<std::string, size_t> index;  // serialized partition -> position in out
  for (const auto& e : entries) {
    auto [it, inserted] = index.try_emplace(e.partition, out.size());
    if (inserted) {
      out.emplace_back();
      ARROW_ASSIGN_OR_RAISE(auto values, DecodePartition(e.partition, fields));
      for (size_t i = 0; i < fields.size(); ++i) {
        const auto& v = values[i];
        out.back().spec.emplace_back(fields[i].name,
                                     !v || !v->is_valid ? default_name : v->ToString());
      }
    }
    PartitionStats& stats = out[it->second];
    const int64_t sign = e.kind == FileKind::kAdd ? 1 : -1;
    stats.record_count += sign * e.file.row_count;
    stats.file_size_in_bytes += sign * e.file.file_size;
    stats.file_count += sign;
    stats.total_buckets = e.total_buckets;
    if (e.file.creation_time_millis) {
      stats.last_file_creation_time =
          std::max(stats.last_file_creation_time, EpochMillis(*e.file.creation_time_millis));
    }
  }
  return out;
}

std::string PartitionStatsJson(const std::vector<PartitionStats>& stats) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : stats) {
    nlohmann::json spec = nlohmann::json::object();
    for (const auto& [k, v] : p.spec) spec[k] = v;
    out.push_back({{"spec", spec},
                   {"recordCount", p.record_count},
                   {"fileSizeInBytes", p.file_size_in_bytes},
                   {"fileCount", p.file_count},
                   {"lastFileCreationTime", p.last_file_creation_time},
                   {"totalBuckets", p.total_buckets}});
  }
  return out.dump();
}

}  // namespace paimon_rowid
