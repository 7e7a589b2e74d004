// A Paimon table as seen at one moment: its directory, the schema in force and the options
// (schema options overlaid with dynamic options). Cheap to copy; immutable.
//
// Snapshot resolution (docs/format.md §1.5, §7):
//   * latest: the LATEST hint h when snapshot-h exists and snapshot-(h+1) does not, else the
//     max id found by listing snapshot-*; a garbage or missing hint falls back to listing;
//   * scan.snapshot-id / scan.tag-name / scan.timestamp-millis (latest snapshot with
//     timeMillis <= value) / scan.version (tag name or snapshot id) in the options select a
//     snapshot, resolved once when the handle is made; the table's fields are then the
//     travelled snapshot's schema (as Java reads), its options the effective ones. At most
//     one time-travel key may be set (Invalid); scan.timestamp and scan.watermark are
//     NotImplemented.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "paimon_rowid/catalog/snapshot_commit.h"
#include "paimon_rowid/common/identifier.h"
#include "paimon_rowid/common/options.h"
#include "paimon_rowid/fs/file_io.h"
#include "paimon_rowid/meta/snapshot.h"
#include "paimon_rowid/types/table_schema.h"

namespace paimon_rowid {

class Table {
 public:
  /// Loads the latest schema of the table at `path` and applies `dynamic_options` (which
  /// may select a snapshot or tag, switching to that snapshot's schema).
  static Result<std::shared_ptr<Table>> Open(
      std::shared_ptr<FileIO> io, Identifier identifier, std::string path,
      std::map<std::string, std::string> dynamic_options = {});

  const Identifier& identifier() const { return identifier_; }
  const std::string& path() const { return path_; }
  const std::shared_ptr<FileIO>& file_io() const { return io_; }
  const TableSchema& schema() const { return schema_; }
  /// Schema options overlaid with the dynamic options.
  const Options& options() const { return options_; }

  /// Dynamic option naming the schema id to read with, whatever snapshot time travel
  /// pins: jobs pin the snapshot they read with it set to their handle's schema, so an alter
  /// after that snapshot keeps its columns (time travel alone reads the snapshot's schema).
  static constexpr const char* kReadSchemaIdOption = "paimon-rowid.read.schema-id";

  /// Overlays options (a value of std::nullopt removes the key); a changed "bucket" is
  /// Invalid ("Cannot change bucket number"). Time-travel keys re-resolve the schema.
  Result<std::shared_ptr<Table>> Copy(
      const std::map<std::string, std::optional<std::string>>& overrides) const;

  /// How snapshots of this table are created: nullptr (the filesystem catalog: the committer
  /// writes snapshot-N itself) or a catalog server's seam (catalog/snapshot_commit.h).
  /// Copies of the handle keep it.
  const std::shared_ptr<const SnapshotCommit>& snapshot_commit() const { return snapshot_commit_; }
  /// This handle with `commit` as its snapshot commit seam.
  std::shared_ptr<Table> WithSnapshotCommit(std::shared_ptr<const SnapshotCommit> commit) const;

  // ---- schemas
  Result<TableSchema> SchemaById(int64_t schema_id) const;
  Result<std::optional<TableSchema>> LatestSchema() const;

  // ---- snapshots
  /// The latest snapshot id, or nullopt for a table without snapshots.
  Result<std::optional<int64_t>> LatestSnapshotId() const;
  /// The ids of all snapshot-N files, ascending (a directory listing).
  Result<std::vector<int64_t>> ListSnapshotIds() const;
  Result<std::optional<Snapshot>> LatestSnapshot() const;
  /// Invalid "Snapshot id 'n' doesn't exist." when absent.
  Result<Snapshot> SnapshotById(int64_t id) const;
  /// The snapshot selected by the options: scan.snapshot-id, scan.tag-name, else latest.
  /// nullopt when the table has no snapshot (and no time travel was requested).
  Result<std::optional<Snapshot>> ResolveSnapshot() const;
  /// The value of snapshot property `key` in the newest snapshot that carries it: snapshots
  /// are read newest first from the latest one, stopping at the first that has the key.
  /// nullopt when no snapshot does, or when the walk reaches snapshot 1 or a snapshot that
  /// cannot be read as one (expired: SnapshotById is Invalid) before finding the key; other
  /// errors (I/O) are returned. Cost: one snapshot file read per snapshot walked, so a
  /// property written by a recent commit is found in a few reads.
  Result<std::optional<std::string>> NewestSnapshotProperty(const std::string& key) const;

  // ---- tags
  /// Invalid "Tag 'x' doesn't exist." when absent.
  Result<Tag> TagByName(const std::string& name) const;
  Result<std::vector<std::string>> ListTags() const;
  /// Creates tag/tag-NAME for snapshot `snapshot_id` (latest when nullopt) with the
  /// no-replace primitive. Invalid: a bad name, "Snapshot with id N doesn't exist.",
  /// "No snapshot exists in this table.", "Tag 'x' already exists." (unless ignored).
  Status CreateTag(const std::string& name, std::optional<int64_t> snapshot_id,
                   bool ignore_if_exists) const;
  /// Deletes a tag; false when it did not exist.
  Result<bool> DeleteTag(const std::string& name) const;

  // ---- layout
  std::string SnapshotPath(int64_t id) const;
  std::string SchemaPath(int64_t id) const;
  std::string TagPath(const std::string& name) const;
  std::string ManifestPath(const std::string& file_name) const;
  /// An index file (deletion vectors) in the table's index/ directory.
  std::string IndexFilePath(const std::string& file_name) const;
  /// Where the partition and bucket directories of data files are: the table directory, or
  /// its subdirectory `data-file.path-directory` (Java's and pypaimon's option; a relative
  /// path that stays inside the table, checked at create_table: CheckDataFileDirectory).
  std::string DataRoot() const;
  /// Directory of data files of a partition ("" for none) in bucket `bucket`.
  std::string BucketPath(const std::string& partition_path, int32_t bucket) const;

  // ---- table properties used everywhere
  bool row_tracking_enabled() const;
  bool data_evolution_enabled() const;
  bool deletion_vectors_enabled() const;

 private:
  Table() = default;
  std::shared_ptr<FileIO> io_;
  Identifier identifier_;
  std::string path_;
  TableSchema schema_;
  Options options_;
  // The latest schema as read from disk when the handle was opened; copies overlay on it.
  TableSchema base_schema_;
  // Cumulative dynamic options; std::nullopt removes the key from the schema's options.
  std::map<std::string, std::optional<std::string>> overrides_;
  // The snapshot selected by a time-travel option, resolved when the handle was made.
  std::optional<Snapshot> travelled_;
  // Schemas read by SchemaById, shared by copies of this handle (guarded by its mutex).
  struct SchemaCache;
  std::shared_ptr<SchemaCache> schema_cache_;
  std::shared_ptr<const SnapshotCommit> snapshot_commit_;

  Status ApplyOptions(bool resolve_time_travel);
  Result<std::optional<Snapshot>> TravelToSnapshot() const;
  Result<TableSchema> ReadSchema(int64_t schema_id) const;
};

}  // namespace paimon_rowid
