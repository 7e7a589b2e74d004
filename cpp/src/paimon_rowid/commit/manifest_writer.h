// Writing manifest files for a commit, and merging the small manifests a table accumulates.
//
// Every commit adds one manifest and lists all earlier ones in its base manifest list, so
// without merging a table of n commits is planned by reading n manifests. Like Java's
// ManifestFileMerger (docs/format.md §3.4: `manifest.merge-min-count` 30,
// `manifest.target-file-size` 8 MB), once the trailing run of small manifests (each below
// the target size) reaches the minimum count, their entries are folded (an ADD and a later
// DELETE of the same file cancel) and rewritten as manifests of about the target size.
// Only a contiguous trailing run is merged, in place, so the relative order of every
// surviving entry is kept and the live file set of the snapshot is unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/meta/manifest.h"

namespace paimon_rowid {

struct ManifestWriteOptions {
  std::string codec = "zstandard";  // Avro codec name
  int zstd_level = 1;
  int64_t target_file_size = int64_t{8} << 20;
  int merge_min_count = 30;

  /// From the table's options (`manifest.compression`, `file.compression.zstd-level`,
  /// `manifest.target-file-size`, `manifest.merge-min-count`).
  static Result<ManifestWriteOptions> FromTable(const Table& table);
};

/// Encodes `entries` into manifest files of about the target size each (one file when they
/// fit), writes them into the table's manifest directory and returns their metadata. Paths
/// written are appended to `written` as soon as they exist (for cleanup by the caller).
Result<std::vector<ManifestFileMeta>> WriteManifests(const Table& table,
                                                     const std::vector<ManifestEntry>& entries,
                                                     const ManifestWriteOptions& options,
                                                     std::vector<std::string>* written);

/// `metas` with its trailing run of small manifests merged when the run is at least
/// `merge_min_count` long; otherwise `metas` unchanged. New manifests are written as in
/// WriteManifests; the merged ones are not deleted (older snapshots still list them).
Result<std::vector<ManifestFileMeta>> MergeSmallManifests(const Table& table,
                                                          std::vector<ManifestFileMeta> metas,
                                                          const ManifestWriteOptions& options,
                                                          std::vector<std::string>* written);

}  // namespace paimon_rowid
