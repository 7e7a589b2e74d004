// The partitions of a table's latest snapshot with their statistics (the catalog's
// list_partitions_paged; pypaimon's list_partitions_from_file_system, Java's
// CatalogUtils.listPartitionsFromFileSystem). One pass over the live manifest entries.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/meta/manifest.h"

namespace paimon_rowid {

struct PartitionStats {
  /// Partition keys and values in key order; values rendered as Java renders them (dates
  /// "2024-01-31", booleans "true"), null as `partition.default-name`.
  std::vector<std::pair<std::string, std::string>> spec;
  /// Rows of the partition: on a data-evolution table each row-id range counted once (the
  /// partial-column files of updates add no rows); otherwise the files' row counts summed.
  /// Rows deleted through deletion vectors are not subtracted (as in Java).
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  int64_t file_count = 0;
  /// The newest file's creation time, epoch ms (0 when no file records one).
  int64_t last_file_creation_time = 0;
  int32_t total_buckets = 0;  // distinct buckets holding files
};

/// Partitions of the latest snapshot, sorted by their "k1=v1,k2=v2" name; empty for a table
/// without snapshots. An unpartitioned table has one partition with an empty spec.
Result<std::vector<PartitionStats>> ListPartitionStats(const Table& table);

/// What a commit's entries change per partition (Java's PartitionEntry.fromManifestEntry
/// merged, as pypaimon's _generate_partition_statistics): an ADD counts its file's rows,
/// bytes and 1 file, a DELETE minus those; the newest creation time of the partition's
/// files; total_buckets the entries' (the table's bucket count). The statistics a commit
/// sends to a REST catalog server, which keeps them as its partitions.
Result<std::vector<PartitionStats>> DeltaPartitionStats(const Table& table,
                                                        const std::vector<ManifestEntry>& entries);

/// `stats` as the REST protocol's PartitionStatistics JSON array ("spec", "recordCount",
/// "fileSizeInBytes", "fileCount", "lastFileCreationTime", "totalBuckets").
std::string PartitionStatsJson(const std::vector<PartitionStats>& stats);

}  // namespace paimon_rowid
