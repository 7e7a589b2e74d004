// Table and catalog options: string keys to string values, as Paimon stores them in schema
// JSON. Typed getters parse on demand and report malformed values as Invalid.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

/// Option keys used by the engine (Paimon's names; docs/format.md §9).
namespace options {
inline constexpr const char* kRowTrackingEnabled = "row-tracking.enabled";
inline constexpr const char* kDataEvolutionEnabled = "data-evolution.enabled";
inline constexpr const char* kDeletionVectorsEnabled = "deletion-vectors.enabled";
inline constexpr const char* kBucket = "bucket";
inline constexpr const char* kFileFormat = "file.format";
inline constexpr const char* kFileCompression = "file.compression";
inline constexpr const char* kZstdLevel = "file.compression.zstd-level";
inline constexpr const char* kManifestCompression = "manifest.compression";
inline constexpr const char* kMetadataStatsMode = "metadata.stats-mode";
inline constexpr const char* kStatsKeepFirstNColumns = "metadata.stats-keep-first-n-columns";
inline constexpr const char* kTargetFileSize = "target-file-size";
inline constexpr const char* kBlobTargetFileSize = "blob.target-file-size";
inline constexpr const char* kVectorFileFormat = "vector.file.format";
inline constexpr const char* kBlobField = "blob-field";
inline constexpr const char* kBlobDescriptorField = "blob-descriptor-field";
inline constexpr const char* kBlobAsDescriptor = "blob-as-descriptor";
inline constexpr const char* kPartitionDefaultName = "partition.default-name";
inline constexpr const char* kDataFilePrefix = "data-file.prefix";
inline constexpr const char* kDataFilePathDirectory = "data-file.path-directory";
inline constexpr const char* kCommitMaxRetries = "commit.max-retries";
inline constexpr const char* kCommitMinRetryWait = "commit.min-retry-wait";
inline constexpr const char* kCommitMaxRetryWait = "commit.max-retry-wait";
inline constexpr const char* kScanSnapshotId = "scan.snapshot-id";
inline constexpr const char* kScanTagName = "scan.tag-name";
inline constexpr const char* kScanTimestampMillis = "scan.timestamp-millis";
inline constexpr const char* kScanTimestamp = "scan.timestamp";
inline constexpr const char* kScanWatermark = "scan.watermark";
inline constexpr const char* kScanVersion = "scan.version";
}  // namespace options

/// Splits a comma-separated option value ("a, b,c") into trimmed, non-empty items.
std::vector<std::string> SplitOptionList(const std::string& value);

class Options {
 public:
  Options() = default;
  explicit Options(std::map<std::string, std::string> values) : values_(std::move(values)) {}

  const std::map<std::string, std::string>& values() const { return values_; }
  bool Contains(const std::string& key) const { return values_.count(key) > 0; }
  std::optional<std::string> Get(const std::string& key) const;
  std::string GetOr(const std::string& key, const std::string& fallback) const;
  /// "true"/"false" (case-insensitive); anything else is Invalid.
  Result<bool> GetBool(const std::string& key, bool fallback) const;
  Result<int64_t> GetInt(const std::string& key, int64_t fallback) const;
  /// Memory sizes such as "256 mb", "8MB", "1024" (bytes), as Paimon's MemorySize parses them.
  Result<int64_t> GetMemorySize(const std::string& key, int64_t fallback) const;
  /// Durations such as "10 ms", "10s", "1 min" in milliseconds.
  Result<int64_t> GetDurationMillis(const std::string& key, int64_t fallback) const;

  void Set(const std::string& key, std::string value) { values_[key] = std::move(value); }
  void Remove(const std::string& key) { values_.erase(key); }
  /// This options overlaid with `overrides`.
  Options With(const std::map<std::string, std::string>& overrides) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace paimon_rowid
