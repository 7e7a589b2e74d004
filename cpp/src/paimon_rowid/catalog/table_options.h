// The table options the engine reads, each parsed by one function here (Java keeps them in
// CoreOptions, below every reader). The writers, the committer, compaction, expiration and the
// row-id jobs read their settings through these functions, and create_table (and an alter that
// sets an option) runs all of them through ValidateTableOptions first: a value the engine
// would refuse at the first write is refused before the table exists, as a ValueError naming
// the option and the value. Unknown keys stay allowed (Java and pypaimon allow them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "paimon_rowid/common/options.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

/// How data files are written: `file.format`, `file.compression` (or `parquet.compression`),
/// `file.compression.zstd-level`, `target-file-size`, `blob.target-file-size`,
/// `file.block-size`, `data-file.prefix`, `file.suffix.include.compression`,
/// `partition.default-name`.
struct FileWriteSettings {
  static constexpr int64_t kDefaultTargetFileSize = 256LL << 20;
  static constexpr int64_t kDefaultBlockSize = 128LL << 20;

  std::string compression = "zstd";  // zstd, snappy, gzip, lz4 or none
  int zstd_level = 1;
  int64_t target_file_size = kDefaultTargetFileSize;
  int64_t blob_target_file_size = kDefaultTargetFileSize;
  int64_t block_size = kDefaultBlockSize;  // at most target_file_size
  std::string data_file_prefix = "data-";
  bool suffix_include_compression = false;
  std::string partition_default_name = "__DEFAULT_PARTITION__";
};
Result<FileWriteSettings> ParseFileWriteSettings(const Options& options);

/// How manifests are written and merged: `manifest.compression`,
/// `file.compression.zstd-level`, `manifest.target-file-size`, `manifest.merge-min-count`.
struct ManifestSettings {
  std::string avro_codec = "zstandard";  // the Avro codec of `manifest.compression`
  int zstd_level = 1;
  int64_t target_file_size = 8LL << 20;
  int64_t merge_min_count = 30;
};
Result<ManifestSettings> ParseManifestSettings(const Options& options);

/// How commits retry and verify: `commit.max-retries`, `commit.min-retry-wait`,
/// `commit.max-retry-wait`, `commit.verify-delay`, `row-tracking.partition-group-on-commit`.
struct CommitRetrySettings {
  int64_t max_retries = 10;
  int64_t min_wait_ms = 10;
  int64_t max_wait_ms = 10000;
  int64_t verify_delay_ms = 50;  // after creating snapshot-N, the check for a replaced one
  bool group_on_commit = true;
};
Result<CommitRetrySettings> ParseCommitRetrySettings(const Options& options);

/// Snapshot retention (Java's defaults): `snapshot.num-retained.min` (10),
/// `snapshot.num-retained.max` (INT32_MAX), `snapshot.expire.limit` (50),
/// `snapshot.time-retained` (1 h).
struct RetentionSettings {
  int64_t retain_min = 10;
  int64_t retain_max = 2147483647;
  int64_t expire_limit = 50;
  int64_t time_retained_ms = 60LL * 60 * 1000;
};
Result<RetentionSettings> ParseRetentionSettings(const Options& options);

/// Data-evolution compaction: `compaction.min.file-num` (5), `blob-compaction.enabled`.
struct CompactionSettings {
  int64_t min_file_num = 5;
  bool blob_compaction = false;
};
Result<CompactionSettings> ParseCompactionSettings(const Options& options);

/// The row-id update's memory: `paimon-rowid.update.memory-budget` (256 MiB; 0 never spills)
/// and `paimon-rowid.update.spill-dir` (the system temp directory when empty).
struct UpdateSettings {
  static constexpr const char* kMemoryBudgetOption = "paimon-rowid.update.memory-budget";
  static constexpr const char* kSpillDirOption = "paimon-rowid.update.spill-dir";
  static constexpr int64_t kDefaultMemoryBudget = 256LL << 20;
  int64_t memory_budget = kDefaultMemoryBudget;
  std::string spill_dir;
};
Result<UpdateSettings> ParseUpdateSettings(const Options& options);

/// What is kept of one column (Java's SimpleColStatsCollector kinds): `none` nothing (the
/// column is left out of the stats, Java's dense store), `counts` the null count,
/// `truncate(N)` the null count and bounds with strings cut to N code points (the max rounded
/// up), `full` the null count and exact bounds.
struct StatsMode {
  enum class Kind { kNone, kCounts, kTruncate, kFull };
  Kind kind = Kind::kFull;
  int32_t length = 0;  // kTruncate only: code points kept

  static StatsMode None() { return {Kind::kNone, 0}; }
  static StatsMode Counts() { return {Kind::kCounts, 0}; }
  static StatsMode Truncate(int32_t n) { return {Kind::kTruncate, n}; }
  static StatsMode Full() { return {Kind::kFull, 0}; }

  /// Parses an option value the way Java does: case-insensitive `none`, `counts`, `full` or
  /// `truncate(N)` with 0 < N <= INT32_MAX and nothing else (no blanks). Invalid otherwise.
  static Result<StatsMode> Parse(const std::string& text);
  std::string ToString() const;
  bool operator==(const StatsMode& o) const { return kind == o.kind && length == o.length; }
};

/// The stats mode of each column of a data file written with `columns` (write order), as
/// Java's StatsCollectorFactories assigns them: `fields.<name>.stats-mode` first; else `none`
/// once `metadata.stats-keep-first-n-columns` (default -1: no limit) columns are counted
/// (columns with their own mode count too); else `metadata.stats-mode` (`truncate(16)`).
Result<std::vector<StatsMode>> ColumnStatsModes(const Options& options,
                                                const std::vector<std::string>& columns);

/// `data-file.path-directory`: empty, or a relative path that stays inside the table directory
/// (no absolute path, no scheme, no `..` segment). Java's `data-file.external-paths` family
/// (data files outside the table) is refused: this engine reads such files (their manifest
/// entries carry the path) but writes every data file under the table.
Status CheckDataFileLocation(const Options& options);

/// Every check above, on the options of a table about to be created (or altered) with these
/// `columns` (for `fields.<name>.stats-mode`). Invalid (ValueError) naming the option and the
/// value; NotImplemented for a valid Paimon option this engine cannot honour (a file format
/// other than Parquet, external data paths).
Status ValidateTableOptions(const Options& options, const std::vector<std::string>& columns);

}  // namespace paimon_rowid
