// The deletion vectors of a snapshot (docs/format.md §7, §5.3).
//
// A snapshot's index manifest lists its DELETION_VECTORS index files; each maps data file
// names to the byte range of their vector. On a data-evolution table a vector belongs to a
// file group and is keyed by the group's anchor: its oldest normal file (smallest
// (max_sequence_number, file_name); .blob files never anchor). Positions count from the
// anchor's first_row_id, so a deleted row keeps its _ROW_ID and every other row keeps its
// position: a delete rewrites no data file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/codec/deletion_vector.h"
#include "paimon_rowid/meta/manifest.h"
#include "paimon_rowid/meta/snapshot.h"

namespace paimon_rowid {

using FileGroup = std::vector<DataFileMeta>;

/// Where the vector of one data file lives.
struct DeletionFile {
  std::string data_file;  // the anchor it belongs to (for messages)
  std::string path;       // the index file
  int64_t file_size = 0;  // of the index file
  int64_t offset = 0;     // of the vector's size field
  int64_t length = 0;     // of the vector's bytes
  std::optional<int64_t> cardinality;

  friend bool operator==(const DeletionFile&, const DeletionFile&) = default;
};

/// Data file name -> its deletion file, for one (partition, bucket).
using BucketDeletionFiles = std::map<std::string, DeletionFile>;
/// (partition bytes, bucket) -> its deletion files.
using DeletionFileMap = std::map<std::pair<std::string, int32_t>, BucketDeletionFiles>;

/// The live entries of `snapshot`'s index manifest (every index type; ADD entries net of
/// DELETE entries with the same file name); empty without an index manifest.
Result<std::vector<IndexManifestEntry>> ReadLiveIndexEntries(const Table& table,
                                                             const Snapshot& snapshot);

/// The path of an index file of `table`.
std::string IndexEntryPath(const Table& table, const IndexManifestEntry& entry);

/// The DELETION_VECTORS index files of `entries` as a map by (partition, bucket) and data
/// file. Invalid when one data file has two vectors.
Result<DeletionFileMap> DeletionFilesOf(const Table& table,
                                        const std::vector<IndexManifestEntry>& entries);

/// ReadLiveIndexEntries + DeletionFilesOf.
Result<DeletionFileMap> LoadDeletionFiles(const Table& table, const Snapshot& snapshot);

/// The group's anchor: its oldest normal file, nullptr when it has none.
const DataFileMeta* DeletionAnchor(const FileGroup& group);

/// Reads the vector at `file` (one ranged read of the index file).
Result<DeletionVector> ReadDeletionVector(const FileIO& io, const DeletionFile& file);

/// Every vector of one bucket's DELETION_VECTORS index files `files` (each read whole, once),
/// by data file name. Vectors of data files not in `live_data_files` hide nothing and are left
/// out; two vectors of one data file (a foreign writer's) are merged.
Result<std::map<std::string, DeletionVector>> ReadBucketVectors(
    const Table& table, const std::vector<const IndexManifestEntry*>& files,
    const std::set<std::string>& live_data_files);

/// Writes `vectors` as one new index file of `table` (a fresh "index-<uuid>-1" name, as
/// pypaimon names them) and returns its index manifest entry for (`partition`, `bucket`).
/// The path written is appended to `written` before the write starts (for cleanup).
Result<IndexManifestEntry> WriteBucketVectors(const Table& table, const std::string& partition,
                                              int32_t bucket,
                                              const std::map<std::string, DeletionVector>& vectors,
                                              std::vector<std::string>* written);

}  // namespace paimon_rowid
