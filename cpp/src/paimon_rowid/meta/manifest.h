// Manifest lists, manifest files and index manifests (docs/format.md §3): records and their
// Avro encoding. Decoding resolves fields by name from the file's writer schema, so files
// from Java (all fields) and pypaimon (fewer optional fields) both read. Encoding writes
// Java's full writer schemas (manifest entry fields 0..20, list fields 0..12) because
// pypaimon requires the keys and Java requires _VERSION = 2.
//
// Byte fields (partition, keys, stats rows) stay serialized BinaryRows here: meta/ knows
// bytes, not tables. Callers decode them with codec/binary_row.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "arrow/buffer.h"
#include "paimon_rowid/codec/deletion_vector.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

struct SimpleStats {
  std::string min_values;  // serialized BinaryRow
  std::string max_values;  // serialized BinaryRow
  std::optional<std::vector<std::optional<int64_t>>> null_counts;

  /// Empty stats: arity-0 rows and an empty null-count list.
  static SimpleStats Empty();

  friend bool operator==(const SimpleStats&, const SimpleStats&) = default;
};

enum class FileSource : int32_t { kAppend = 0, kCompact = 1 };

struct DataFileMeta {
  std::string file_name;
  int64_t file_size = 0;
  int64_t row_count = 0;
  std::string min_key;  // serialized BinaryRow
  std::string max_key;
  SimpleStats key_stats;
  SimpleStats value_stats;
  int64_t min_sequence_number = 0;
  int64_t max_sequence_number = 0;
  int64_t schema_id = 0;
  int32_t level = 0;
  std::vector<std::string> extra_files;
  std::optional<int64_t> creation_time_millis;  // local wall clock encoded as if UTC
  std::optional<int64_t> delete_row_count;
  std::optional<std::string> embedded_file_index;
  std::optional<int32_t> file_source;
  std::optional<std::vector<std::string>> value_stats_cols;
  std::optional<std::string> external_path;
  std::optional<int64_t> first_row_id;
  std::optional<std::vector<std::string>> write_cols;
  std::optional<std::vector<int64_t>> write_cols_sequences;

  bool is_blob_file() const;    // name ends with ".blob"
  bool is_vector_file() const;  // name contains ".vector."
  /// A normal data file (Parquet rows): neither a .blob nor a vector file. Only normal files
  /// define a file group's row-id range and supply non-BLOB columns.
  bool is_normal_file() const { return !is_blob_file() && !is_vector_file(); }
  /// Inclusive last row id; requires first_row_id.
  int64_t last_row_id() const { return *first_row_id + row_count - 1; }

  friend bool operator==(const DataFileMeta&, const DataFileMeta&) = default;
};

enum class FileKind : int32_t { kAdd = 0, kDelete = 1 };

struct ManifestEntry {
  FileKind kind = FileKind::kAdd;
  std::string partition;  // serialized BinaryRow
  int32_t bucket = 0;
  int32_t total_buckets = -1;
  DataFileMeta file;

  friend bool operator==(const ManifestEntry&, const ManifestEntry&) = default;
};

/// The key folding matches ADD and DELETE entries by (docs/format.md §3.4): partition bytes,
/// bucket, level, file name, extra files, embedded index and external path.
std::string FileIdentifier(const ManifestEntry& e);

struct ManifestFileMeta {
  std::string file_name;
  int64_t file_size = 0;
  int64_t num_added_files = 0;
  int64_t num_deleted_files = 0;
  SimpleStats partition_stats;
  int64_t schema_id = 0;
  std::optional<int32_t> min_bucket, max_bucket, min_level, max_level;
  std::optional<int64_t> min_row_id, max_row_id;

  friend bool operator==(const ManifestFileMeta&, const ManifestFileMeta&) = default;
};

inline constexpr const char* kDeletionVectorsIndex = "DELETION_VECTORS";

/// The `_GLOBAL_INDEX` record of a global-index entry (docs/global-index.md §"Manifest"):
/// which column it indexes and which row ids it covers. Row ids inside the index file are
/// relative to `row_range_start`; the range is inclusive at both ends.
struct GlobalIndexMeta {
  int64_t row_range_start = 0;
  int64_t row_range_end = 0;  // inclusive
  int32_t index_field_id = 0;
  std::optional<std::vector<int64_t>> extra_field_ids;  // composite keys (we write none)
  std::optional<std::string> index_meta;                // btree/bitmap: SortedIndexFileMeta bytes
  std::optional<std::string> source_meta;               // primary-key sorted indexes only

  friend bool operator==(const GlobalIndexMeta&, const GlobalIndexMeta&) = default;
};

/// One entry of an index manifest (docs/format.md §3.7). Index files live in the table's
/// index/ directory unless `external_path` is set.
struct IndexManifestEntry {
  FileKind kind = FileKind::kAdd;
  std::string partition;
  int32_t bucket = 0;
  std::string index_type;  // DELETION_VECTORS, HASH, or a global-index type
  std::string file_name;
  int64_t file_size = 0;
  int64_t row_count = 0;  // for DELETION_VECTORS: the deleted positions in the file
  /// DELETION_VECTORS: where each data file's vector lies in the file.
  std::optional<std::vector<DeletionVectorRange>> dv_ranges;
  std::optional<std::string> external_path;
  /// Set for a global index (btree, bitmap, vector, full-text), unset otherwise.
  std::optional<GlobalIndexMeta> global_index;

  friend bool operator==(const IndexManifestEntry&, const IndexManifestEntry&) = default;
};

/// Avro codec names for a `manifest.compression` value (zstd -> zstandard, none -> null).
Result<std::string> AvroCodecForCompression(const std::string& compression);

Result<std::vector<ManifestFileMeta>> DecodeManifestList(std::shared_ptr<arrow::Buffer> data);
Result<std::shared_ptr<arrow::Buffer>> EncodeManifestList(
    const std::vector<ManifestFileMeta>& metas, const std::string& avro_codec, int level = 1);

Result<std::vector<ManifestEntry>> DecodeManifest(std::shared_ptr<arrow::Buffer> data);
Result<std::shared_ptr<arrow::Buffer>> EncodeManifest(const std::vector<ManifestEntry>& entries,
                                                      const std::string& avro_codec, int level = 1);

Result<std::vector<IndexManifestEntry>> DecodeIndexManifest(std::shared_ptr<arrow::Buffer> data);
/// Java's and pypaimon's writer schema.
Result<std::shared_ptr<arrow::Buffer>> EncodeIndexManifest(
    const std::vector<IndexManifestEntry>& entries, const std::string& avro_codec, int level = 1);

}  // namespace paimon_rowid
