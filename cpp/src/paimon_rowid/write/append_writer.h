// The append writer: Arrow record batches of a table's row type -> Parquet data files ->
// commit messages (docs/format.md §1.2, §1.3, §3.3, §3.6, §8).
//
// Input is matched to the write type BY NAME and cast (safe cast) to the table's Arrow
// types; column order does not matter. A missing column, a column that is not in the write
// type, a column that cannot be cast (TypeError) or a null in a NOT NULL column (Invalid)
// fails the write: every file this writer has written is deleted and the writer refuses
// further use, so a failed write leaves nothing behind.
//
// Rows are routed by the partition columns (grouped with Arrow's Grouper, never row by row)
// into `<table>/<k=v/...>/bucket-<n>/` (Java's escaped partition path; bucket 0 on
// bucket-unaware tables, the bucket of the row's bucket key on fixed-bucket tables, see
// catalog/bucket_spec.h and write/row_router.h). Each (partition, bucket) has a
// rolling Parquet file named `<data-file.prefix><uuid>-<n>.parquet`; it rolls when its size
// estimate (bytes flushed + buffered rows at the compression ratio seen so far) reaches
// `target-file-size` (256 MB). Parquet columns carry Paimon field ids; compression is
// `file.compression` (zstd) at `file.compression.zstd-level` (1).
//
// Each file's DataFileMeta carries full, untruncated value stats (min/max/null counts) for its
// atomic, non-BLOB columns, listed explicitly in _VALUE_STATS_COLS; min/max sequence numbers
// 0 so the committer stamps them; no first_row_id (assigned at commit); _WRITE_COLS null for
// a full-row write, the written columns for a partial-column write.
//
// BLOB columns (docs/format.md §6) are not part of the Parquet file: each goes to rolling `.blob`
// files (write/blob_writer.h, `blob.target-file-size`, default target-file-size) that close
// with their Parquet file and follow it in the commit message, so they inherit its row ids.
// The Parquet file then lists its columns in _WRITE_COLS; each blob file has
// _WRITE_COLS = [field], no stats, sequence numbers 0. Input BLOB values that are serialized
// BlobDescriptors are resolved and their bytes copied. BLOB descriptor fields
// (`blob-descriptor-field`, stored inline) are written like BYTES. ARRAY<BLOB> and
// MAP<K, BLOB> columns go to .blob files too, one structured payload per row
// (codec/blob_file_nested.h); their input is list<large_binary> / map<K, large_binary> (or
// anything that casts to it, e.g. list<binary>); another input type, a null element / value
// where the type says NOT NULL and a duplicate map key are Invalid, like pypaimon's
// ValueErrors. Make() refuses (Invalid) BLOB nested any other way and map key types without a
// serializer (only integers, BOOLEAN, DECIMAL, DATE, TIME, binary and string keys have one).
// VECTOR values must have the declared length (TypeError otherwise) and no null elements
// (Invalid).
//
// Thread-safety: one thread at a time. Nothing is visible to readers until the messages of
// PrepareCommit are committed.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/format/page_splice.h"
#include "paimon_rowid/meta/commit_message.h"

namespace paimon_rowid {

struct AppendWriterOptions {
  /// Every allocation of the writer: input casts, partition routing, the Parquet writer
  /// (its properties and column encoders) and the value-stats collector. Not owned; must
  /// outlive the writer.
  arrow::MemoryPool* pool = arrow::default_memory_pool();
  /// Encode a chunk's columns on parallel threads and fold its value stats meanwhile. Off for
  /// a caller that already runs one writer per core, such as an update's file groups: there
  /// the hand-offs only leave the caller's thread waiting.
  bool parallel = true;
};

/// A data file's _CREATION_TIME as Java and pypaimon record it: the local wall-clock time in
/// milliseconds, read as if it were UTC.
int64_t FileCreationMillis();

class AppendWriter {
 public:
  /// Table (dynamic) option: the stem of this writer's file names, in place of a random
  /// UUID, so that a rerun of the same write (a Ray task retried after its worker died)
  /// writes the same names over the dead attempt's files instead of leaving them behind. A
  /// row-id writer's stem is RowIdFileStem(stem, first_row_id). File names are
  /// `<data-file.prefix><stem>-<n><extension>`. The caller must make the stem unique per job.
  static constexpr const char* kFileStemOption = "paimon-rowid.write.file-stem";
  static std::string RowIdFileStem(const std::string& stem, int64_t first_row_id);

  /// `write_cols`: the columns of a partial-column append (they must include the partition
  /// keys); nullopt (or every column in table order) writes full rows.
  static Result<std::unique_ptr<AppendWriter>> Make(
      std::shared_ptr<const Table> table,
      std::optional<std::vector<std::string>> write_cols = std::nullopt,
      const AppendWriterOptions& options = {});
  /// A writer of one partial-column file for existing rows [first_row_id, first_row_id + n):
  /// an update of `write_cols` (no partition keys needed) written into `bucket_dir` (the
  /// directory of the group's files) for `partition`, never rolled, with first_row_id preset
  /// so the committer leaves the row ids alone.
  static Result<std::unique_ptr<AppendWriter>> MakeForRowIds(
      std::shared_ptr<const Table> table, std::vector<std::string> write_cols,
      std::string partition, std::string bucket_dir, int64_t first_row_id,
      const AppendWriterOptions& options = {});

  /// A writer of one compacted file for existing rows [first_row_id, first_row_id + n) of
  /// `partition` (maint/compact.h): every column the table keeps in Parquet files (partition
  /// keys included; not the .blob-stored ones), so _WRITE_COLS is null unless the table has
  /// .blob columns. Written into `bucket_dir`, never rolled, first_row_id preset; file names
  /// follow kFileStemOption as for MakeForRowIds.
  static Result<std::unique_ptr<AppendWriter>> MakeForCompaction(
      std::shared_ptr<const Table> table, std::string partition, std::string bucket_dir,
      int64_t first_row_id, const AppendWriterOptions& options = {});

  /// Does not delete files: call Abort() to drop uncommitted output.
  ~AppendWriter();

  /// The Arrow schema input is cast to (the write columns, table types, no field ids).
  const std::shared_ptr<arrow::Schema>& write_schema() const;

  /// Appends rows. On error all files of this writer are deleted and the writer is failed.
  Status Write(const std::shared_ptr<arrow::RecordBatch>& batch);
  /// Appends every batch of `reader` (same error contract as Write).
  Status WriteAll(arrow::RecordBatchReader* reader);

  /// A MakeForRowIds writer whose columns are all kept in Parquet: plans its one file as the
  /// files holding the columns' current values with only the pages of changed rows re-encoded
  /// (format/page_splice.h), one source column per write column, in order. nullptr when the
  /// file must be written whole, with Write.
  Result<std::unique_ptr<ParquetPageSplice>> PlanSplice(
      std::vector<ParquetPageSplice::Column> columns) const;
  /// Writes the file `splice` (from PlanSplice) plans, instead of Write: `values` as
  /// ParquetPageSplice::Write takes them. The file's value stats fold the copied pages'
  /// bounds and the new values. Same error contract as Write; once per writer.
  Status WriteSplice(ParquetPageSplice* splice,
                     const std::vector<std::vector<std::shared_ptr<arrow::Array>>>& values);

  /// Closes all files and returns one message per partition (first-seen order). Only once.
  Result<std::vector<CommitMessage>> PrepareCommit();

  /// Deletes every file this writer wrote (also after PrepareCommit, for messages that are
  /// not going to be committed). Idempotent.
  Status Abort();

  /// A MakeForRowIds writer: the path of the one file it writes (known before it is written).
  std::string row_id_file_path() const;

  /// Paths of all files written so far (for tests and diagnostics).
  std::vector<std::string> written_paths() const;

 private:
  AppendWriter();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace paimon_rowid
