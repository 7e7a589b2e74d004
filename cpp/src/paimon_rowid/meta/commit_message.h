// Commit messages: what a writer hands to the committer (docs/format.md §1.8, §4.3).
//
// A message holds the new data files of one (partition, bucket). Files are complete on disk
// but invisible until a snapshot references them. Files of plain appends carry no
// first_row_id and minSeq = maxSeq = 0: the committer stamps both. Files that rewrite
// columns of existing rows (updates) carry their first_row_id and the snapshot they were
// planned on (check_from_snapshot), which turns on data-evolution conflict detection.
// A compaction's message also names the files its new files replace (deleted_files): the
// committer writes DELETE entries for them, and refuses the commit when one of them is no
// longer live.
//
// Messages are plain values; Serialize gives a self-contained byte form for pickling and for
// shipping from workers to the committing process.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "paimon_rowid/common/status.h"
#include "paimon_rowid/meta/manifest.h"

namespace paimon_rowid {

struct CommitMessage {
  std::string partition;  // serialized BinaryRow of the partition values
  int32_t bucket = 0;
  int32_t total_buckets = -1;  // the table's `bucket` option
  std::vector<DataFileMeta> new_files;
  /// Live files of this (partition, bucket) the new files replace (a compaction's inputs).
  std::vector<DataFileMeta> deleted_files;
  /// The snapshot an update was planned on; nullopt for plain appends.
  std::optional<int64_t> check_from_snapshot;
  /// The location of the table the files were written for (Table::path()); a committer of
  /// another table refuses the message. Empty in messages of older versions (not checked).
  std::string table_path;
  /// Index files (deletion vectors) this message adds, and the live ones of its (partition,
  /// bucket) they replace. Their partition and bucket are the message's.
  std::vector<IndexManifestEntry> new_index_files;
  std::vector<IndexManifestEntry> deleted_index_files;

  bool empty() const {
    return new_files.empty() && deleted_files.empty() && new_index_files.empty() &&
           deleted_index_files.empty();
  }

  /// A versioned byte form (header + the files as an uncompressed Avro manifest).
  Result<std::string> Serialize() const;
  /// Invalid for truncated or malformed input.
  static Result<CommitMessage> Deserialize(std::string_view bytes);
};

}  // namespace paimon_rowid
