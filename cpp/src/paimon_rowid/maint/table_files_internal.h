// The files a snapshot names, for expiration and orphan cleaning (internal to maint/; not
// installed).
//
// A snapshot names manifest lists (base, delta, changelog), the manifests they list, an index
// manifest and the index files it lists, and a statistics file (docs/format.md §2, §3); its data
// files are the entries of those manifests. Paths here are absolute, as FileIO takes them.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/meta/manifest.h"
#include "paimon_rowid/meta/snapshot.h"

namespace paimon_rowid {

struct SnapshotMetaFiles {
  std::vector<std::string> manifest_lists;    // names in manifest/
  std::vector<std::string> manifests;         // names in manifest/
  std::optional<std::string> index_manifest;  // name in manifest/
  std::vector<std::string> index_files;       // names in index/
  std::optional<std::string> statistics;      // name in statistics/ (ANALYZE results)
};

/// Reads the lists and the index manifest of `snapshot`. With `tolerate_missing` a list or
/// index manifest that no longer exists counts as empty (an interrupted expiration removed
/// it); otherwise it is an IOError.
Result<SnapshotMetaFiles> ReadSnapshotMetaFiles(const Table& table, const Snapshot& snapshot,
                                                bool tolerate_missing);

/// Adds the absolute paths of ReadSnapshotMetaFiles(...) to `out`.
Status CollectMetaFiles(const Table& table, const Snapshot& snapshot, bool tolerate_missing,
                        std::set<std::string>* out);

/// Adds the path of `entry`'s data file and of its extra files to `out`.
Status AddDataPaths(const Table& table, const ManifestEntry& entry, std::set<std::string>* out);

/// The manifest list / manifest `name` (in manifest/); empty when the file does not exist.
Result<std::vector<ManifestFileMeta>> ReadManifestListIfExists(const Table& table,
                                                               const std::string& name);
Result<std::vector<ManifestEntry>> ReadManifestIfExists(const Table& table,
                                                        const std::string& name);

/// The directories of index files and of statistics files.
std::string IndexDir(const Table& table);
std::string StatisticsDir(const Table& table);

/// The earliest snapshot id: the EARLIEST hint when snapshot-h exists and snapshot-(h-1) does
/// not, else the smallest listed id (`latest` when the listing is empty).
Result<int64_t> EarliestSnapshotId(const Table& table, int64_t latest);

}  // namespace paimon_rowid
