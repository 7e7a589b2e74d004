#include "paimon_rowid/catalog/table_options.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <string_view>

#include "paimon_rowid/meta/manifest.h"

namespace paimon_rowid {
namespace {

constexpr const char* kParquetCompression = "parquet.compression";
constexpr const char* kFileBlockSize = "file.block-size";
constexpr const char* kSuffixIncludeCompression = "file.suffix.include.compression";
constexpr const char* kManifestTargetFileSize = "manifest.target-file-size";
constexpr const char* kManifestMergeMinCount = "manifest.merge-min-count";
constexpr const char* kCommitVerifyDelay = "commit.verify-delay";
constexpr const char* kPartitionGroupOnCommit = "row-tracking.partition-group-on-commit";
constexpr const char* kRetainMin = "snapshot.num-retained.min";
constexpr const char* kRetainMax = "snapshot.num-retained.max";
constexpr const char* kExpireLimit = "snapshot.expire.limit";
constexpr const char* kTimeRetained = "snapshot.time-retained";
constexpr const char* kCompactionMinFileNum = "compaction.min.file-num";
constexpr const char* kBlobCompactionEnabled = "blob-compaction.enabled";
constexpr const char* kDefaultStatsMode = "truncate(16)";
constexpr std::string_view kExternalPathsPrefix = "data-file.external-paths";

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Invalid naming the option, its value and what is wrong with it.
Status Bad(const std::string& key, const std::string& value, std::string_view why) {
  return Status::Invalid("option '", key, "' has an invalid value '", value, "': ", why);
}

// The typed value of `key` (`fallback` when absent); a value that does not parse is Bad.
template <typename T, typename Getter>
Result<T> Read(const Options& options, const std::string& key, T fallback, Getter get) {
  auto value = (options.*get)(key, fallback);
  if (!value.ok()) return Bad(key, options.GetOr(key, ""), value.status().message());
  return *value;
}

Result<int64_t> Int(const Options& o, const std::string& key, int64_t fallback, int64_t min,
                    int64_t max = std::numeric_limits<int64_t>::max()) {
  ARROW_ASSIGN_OR_RAISE(int64_t v, Read<int64_t>(o, key, fallback, &Options::GetInt));
  if (v < min || v > max) {
    return Bad(key, o.GetOr(key, ""),
               max == std::numeric_limits<int64_t>::max()
                   ? "must be at least " + std::to_string(min)
                   : "must be between " + std::to_string(min) + " and " + std::to_string(max));
  }
  return v;
}

Result<int64_t> Size(const Options& o, const std::string& key, int64_t fallback) {
  ARROW_ASSIGN_OR_RAISE(int64_t v, Read<int64_t>(o, key, fallback, &Options::GetMemorySize));
  if (v <= 0) return Bad(key, o.GetOr(key, ""), "must be a positive size (e.g. 128 mb)");
  return v;
}

Result<int64_t> Millis(const Options& o, const std::string& key, int64_t fallback) {
  ARROW_ASSIGN_OR_RAISE(int64_t v, Read<int64_t>(o, key, fallback, &Options::GetDurationMillis));
  if (v < 0) return Bad(key, o.GetOr(key, ""), "must not be negative");
  return v;
}

Result<bool> Bool(const Options& o, const std::string& key, bool fallback) {
  return Read<bool>(o, key, fallback, &Options::GetBool);
}

bool IsSegmentUnsafe(std::string_view segment) { return segment == ".."; }

}  // namespace

Result<FileWriteSettings> ParseFileWriteSettings(const Options& o) {
  FileWriteSettings s;
  const std::string format = o.GetOr(options::kFileFormat, "parquet");
  if (Lower(format) != "parquet") {
    return Bad(options::kFileFormat, format, "paimon-rowid reads and writes parquet only");
  }
  const char* codec_key =
      o.Contains(kParquetCompression) ? kParquetCompression : options::kFileCompression;
  const std::string codec_value = o.GetOr(codec_key, "zstd");
  std::string codec = Lower(codec_value);
  if (codec == "uncompressed") codec = "none";
  if (codec != "zstd" && codec != "snappy" && codec != "gzip" && codec != "lz4" &&
      codec != "none") {
    return Bad(codec_key, codec_value, "expected zstd, snappy, gzip, lz4, none or uncompressed");
  }
  s.compression = codec;
  ARROW_ASSIGN_OR_RAISE(int64_t level, Int(o, options::kZstdLevel, 1, -131072, 22));
  s.zstd_level = static_cast<int>(level);
  ARROW_ASSIGN_OR_RAISE(s.target_file_size, Size(o, options::kTargetFileSize,
                                                 FileWriteSettings::kDefaultTargetFileSize));
  ARROW_ASSIGN_OR_RAISE(s.blob_target_file_size,
                        Size(o, options::kBlobTargetFileSize, s.target_file_size));
  ARROW_ASSIGN_OR_RAISE(s.block_size,
                        Size(o, kFileBlockSize, FileWriteSettings::kDefaultBlockSize));
  s.block_size = std::min(s.block_size, s.target_file_size);
  s.data_file_prefix = o.GetOr(options::kDataFilePrefix, "data-");
  if (s.data_file_prefix.find('/') != std::string::npos ||
      s.data_file_prefix.find('\\') != std::string::npos) {
    return Bad(options::kDataFilePrefix, s.data_file_prefix,
               "a file name prefix must not contain '/' or '\\'");
  }
  ARROW_ASSIGN_OR_RAISE(s.suffix_include_compression, Bool(o, kSuffixIncludeCompression, false));
  s.partition_default_name = o.GetOr(options::kPartitionDefaultName, "__DEFAULT_PARTITION__");
  if (s.partition_default_name.empty() || s.partition_default_name.find('/') != std::string::npos) {
    return Bad(options::kPartitionDefaultName, s.partition_default_name,
               "must be a non-empty name without '/'");
  }
  return s;
}

Result<ManifestSettings> ParseManifestSettings(const Options& o) {
  ManifestSettings s;
  const std::string compression = o.GetOr(options::kManifestCompression, "zstd");
  auto codec = AvroCodecForCompression(compression);
  if (!codec.ok()) {
    return Bad(options::kManifestCompression, compression,
               "expected zstd, snappy, deflate or none");
  }
  s.avro_codec = *codec;
  ARROW_ASSIGN_OR_RAISE(int64_t level, Int(o, options::kZstdLevel, 1, -131072, 22));
  s.zstd_level = static_cast<int>(level);
  ARROW_ASSIGN_OR_RAISE(s.target_file_size, Size(o, kManifestTargetFileSize, s.target_file_size));
  ARROW_ASSIGN_OR_RAISE(s.merge_min_count,
                        Int(o, kManifestMergeMinCount, s.merge_min_count, 1, 1 << 30));
  return s;
}

Result<CommitRetrySettings> ParseCommitRetrySettings(const Options& o) {
  CommitRetrySettings s;
  ARROW_ASSIGN_OR_RAISE(s.max_retries, Int(o, options::kCommitMaxRetries, s.max_retries, 0));
  ARROW_ASSIGN_OR_RAISE(s.min_wait_ms, Millis(o, options::kCommitMinRetryWait, s.min_wait_ms));
  ARROW_ASSIGN_OR_RAISE(s.max_wait_ms, Millis(o, options::kCommitMaxRetryWait, s.max_wait_ms));
  ARROW_ASSIGN_OR_RAISE(s.verify_delay_ms, Millis(o, kCommitVerifyDelay, s.verify_delay_ms));
  ARROW_ASSIGN_OR_RAISE(s.group_on_commit, Bool(o, kPartitionGroupOnCommit, true));
  return s;
}

Result<RetentionSettings> ParseRetentionSettings(const Options& o) {
  RetentionSettings s;
  ARROW_ASSIGN_OR_RAISE(s.retain_min, Int(o, kRetainMin, s.retain_min, 1));
  ARROW_ASSIGN_OR_RAISE(s.retain_max, Int(o, kRetainMax, s.retain_max, 1));
  if (s.retain_max < s.retain_min) {
    return Bad(kRetainMax, o.GetOr(kRetainMax, std::to_string(s.retain_max)),
               "must not be less than " + std::string(kRetainMin) + " (" +
                   std::to_string(s.retain_min) + ")");
  }
  ARROW_ASSIGN_OR_RAISE(s.expire_limit, Int(o, kExpireLimit, s.expire_limit, 1));
  ARROW_ASSIGN_OR_RAISE(s.time_retained_ms, Millis(o, kTimeRetained, s.time_retained_ms));
  return s;
}

Result<CompactionSettings> ParseCompactionSettings(const Options& o) {
  CompactionSettings s;
  ARROW_ASSIGN_OR_RAISE(s.min_file_num, Int(o, kCompactionMinFileNum, s.min_file_num, 2));
  ARROW_ASSIGN_OR_RAISE(s.blob_compaction, Bool(o, kBlobCompactionEnabled, false));
  return s;
}

Result<UpdateSettings> ParseUpdateSettings(const Options& o) {
  UpdateSettings s;
  const std::string key = UpdateSettings::kMemoryBudgetOption;
  ARROW_ASSIGN_OR_RAISE(s.memory_budget,
                        Read<int64_t>(o, key, s.memory_budget, &Options::GetMemorySize));
  if (s.memory_budget < 0) return Bad(key, o.GetOr(key, ""), "must not be negative");
  s.spill_dir = o.GetOr(UpdateSettings::kSpillDirOption, "");
  return s;
}

// ------------------------------------------------------------------------------ StatsMode

Result<StatsMode> StatsMode::Parse(const std::string& text) {
  // Java upper-cases the value and then wants an exact keyword, or TRUNCATE\((\d+)\).
  std::string upper = text;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (upper == "NONE") return None();
  if (upper == "COUNTS") return Counts();
  if (upper == "FULL") return Full();
  constexpr std::string_view kOpen = "TRUNCATE(";
  if (upper.size() > kOpen.size() + 1 && upper.compare(0, kOpen.size(), kOpen) == 0 &&
      upper.back() == ')') {
    std::string_view digits(upper.data() + kOpen.size(), upper.size() - kOpen.size() - 1);
    if (std::all_of(digits.begin(), digits.end(),
                    [](unsigned char c) { return c >= '0' && c <= '9'; })) {
      int64_t n = 0;
      for (char c : digits) {
        n = n * 10 + (c - '0');
        if (n > std::numeric_limits<int32_t>::max()) {
          return Status::Invalid("the truncate length does not fit an int");
        }
      }
      if (n == 0) return Status::Invalid("the truncate length must be larger than zero");
      return Truncate(static_cast<int32_t>(n));
    }
  }
  return Status::Invalid("expected none, counts, full or truncate(N)");
}

std::string StatsMode::ToString() const {
  switch (kind) {
    case Kind::kNone:
      return "none";
    case Kind::kCounts:
      return "counts";
    case Kind::kTruncate:
      return "truncate(" + std::to_string(length) + ")";
    case Kind::kFull:
      return "full";
  }
  return "?";
}

namespace {

Result<StatsMode> ParseStatsOption(const std::string& key, const std::string& value) {
  auto mode = StatsMode::Parse(value);
  if (!mode.ok()) return Bad(key, value, mode.status().message());
  return mode;
}

}  // namespace

Result<std::vector<StatsMode>> ColumnStatsModes(const Options& options,
                                                const std::vector<std::string>& columns) {
  const std::string table_value = options.GetOr(options::kMetadataStatsMode, kDefaultStatsMode);
  ARROW_ASSIGN_OR_RAISE(StatsMode table_mode,
                        ParseStatsOption(options::kMetadataStatsMode, table_value));
  ARROW_ASSIGN_OR_RAISE(int64_t keep_first, Int(options, options::kStatsKeepFirstNColumns, -1,
                                                std::numeric_limits<int64_t>::min()));
  // Java gives system columns truncate(128) without counting them; a write never holds one.
  std::vector<StatsMode> modes;
  int64_t counted = 0;
  for (const auto& name : columns) {
    const std::string key = "fields." + name + ".stats-mode";
    if (auto own = options.Get(key)) {
      ARROW_ASSIGN_OR_RAISE(StatsMode mode, ParseStatsOption(key, *own));
      modes.push_back(mode);
    } else if (keep_first >= 0 && counted >= keep_first) {
      modes.push_back(StatsMode::None());
    } else {
      modes.push_back(table_mode);
    }
    ++counted;
  }
  return modes;
}

Status CheckDataFileLocation(const Options& options) {
  for (const auto& [key, value] : options.values()) {
    if (std::string_view(key).substr(0, kExternalPathsPrefix.size()) == kExternalPathsPrefix &&
        !value.empty()) {
      return Status::NotImplemented(
          "option '", key, "' = '", value,
          "' puts data files outside the table, which paimon-rowid does not write (it reads "
          "such files); unset it, or use 'data-file.path-directory' for a subdirectory of the "
          "table");
    }
  }
  const std::string dir = options.GetOr(options::kDataFilePathDirectory, "");
  if (dir.empty()) return Status::OK();
  if (dir.front() == '/' || dir.front() == '\\' || dir.find(':') != std::string::npos) {
    return Bad(options::kDataFilePathDirectory, dir,
               "must be a path relative to the table directory (no absolute path or scheme)");
  }
  size_t start = 0;
  while (start <= dir.size()) {
    size_t end = dir.find_first_of("/\\", start);
    if (end == std::string::npos) end = dir.size();
    if (IsSegmentUnsafe(std::string_view(dir).substr(start, end - start))) {
      return Bad(options::kDataFilePathDirectory, dir,
                 "must stay inside the table directory (no '..' segment)");
    }
    start = end + 1;
  }
  return Status::OK();
}

Status ValidateTableOptions(const Options& options, const std::vector<std::string>& columns) {
  ARROW_RETURN_NOT_OK(ParseFileWriteSettings(options).status());
  ARROW_RETURN_NOT_OK(ParseManifestSettings(options).status());
  ARROW_RETURN_NOT_OK(ParseCommitRetrySettings(options).status());
  ARROW_RETURN_NOT_OK(ParseRetentionSettings(options).status());
  ARROW_RETURN_NOT_OK(ParseCompactionSettings(options).status());
  ARROW_RETURN_NOT_OK(ParseUpdateSettings(options).status());
  ARROW_RETURN_NOT_OK(ColumnStatsModes(options, columns).status());
  ARROW_RETURN_NOT_OK(Bool(options, options::kBlobAsDescriptor, false).status());
  return CheckDataFileLocation(options);
}

}  // namespace paimon_rowid
