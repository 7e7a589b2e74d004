// INSERT OVERWRITE (docs/python-api.md, "Overwrite and truncate"): which partitions an
// overwrite commit replaces, and the entries that replace them. The committer recomputes the
// replaced files on every attempt from the snapshot it builds on, so files committed to the
// partitions meanwhile are replaced too (Java's and pypaimon's rule).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/commit/commit_delta.h"
#include "paimon_rowid/meta/manifest.h"
#include "paimon_rowid/scan/partition_filter.h"
#include "paimon_rowid/scan/predicate.h"

namespace paimon_rowid {

/// What an overwrite replaces (CommitOptions::overwrite).
struct OverwriteSpec {
  /// The partitions to replace, as a predicate on partition keys (a static partition:
  /// equal / is_null per given key); nullptr: every partition (the whole table).
  std::shared_ptr<const Predicate> partitions;
  /// Replace only the partitions the new files are written to (Java's
  /// dynamic-partition-overwrite, its default for partitioned tables); `partitions` must be
  /// nullptr then, and with no new file nothing is committed.
  bool dynamic = false;
  /// No snapshot when the attempt finds nothing to add or delete (truncate_table,
  /// truncate_partitions); a static overwrite otherwise always commits, as in Java.
  bool skip_if_unchanged = false;
  /// How the caller wrote the partitions (e.g. "{'dt': '2024-01-01'}"), for errors.
  std::string description;
};

/// The partitions one overwrite commit replaces.
class OverwriteScope {
 public:
  /// The scope of `spec` for the commit of `delta`. The delta must hold newly written files
  /// only: an update, a delete or a compaction mixed into an overwrite would survive it or
  /// point at the files it deletes (Invalid). A new file outside the static partitions is
  /// refused (ExecutionError, RuntimeError in Python as in pypaimon): the caller's spec and
  /// data disagree.
  static Result<std::unique_ptr<OverwriteScope>> Make(const Table& table, const OverwriteSpec& spec,
                                                      const CommitDelta& delta);

  /// A dynamic overwrite with no new file: it replaces no partition and commits nothing.
  bool replaces_nothing() const { return dynamic_ && written_.empty(); }

  /// Appends a DELETE entry to `entries` for every file of `live` (the latest snapshot's live
  /// entries) in a replaced partition, and removes those partitions' entries from
  /// `live_index`. Returns whether an index entry was removed.
  Result<bool> Apply(std::vector<ManifestEntry> live, std::vector<IndexManifestEntry>* live_index,
                     std::vector<ManifestEntry>* entries);

 private:
  OverwriteScope() = default;
  Result<bool> Replaces(const std::string& partition);
  // The partition's values re-encoded as we encode them: writers differ in the bytes of
  // some null values (pypaimon's null TIMESTAMP(p>3) / DECIMAL(p>18) has no variable part).
  Result<std::string> Canonical(const std::string& partition);

  bool dynamic_ = false;
  std::vector<DataField> fields_;
  std::set<std::string> written_;            // dynamic: the new files' partitions, canonical
  std::map<std::string, bool> replaced_;     // dynamic: decided per partition bytes
  std::unique_ptr<PartitionFilter> filter_;  // static
};

}  // namespace paimon_rowid
