// AppendWriter's state, shared by its source files (append_writer.cc, append_writer_splice.cc).
// Included by write/ only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "arrow/scalar.h"
#include "paimon_rowid/catalog/bucket_spec.h"
#include "paimon_rowid/catalog/table_options.h"
#include "paimon_rowid/common/identifier.h"
#include "paimon_rowid/format/parquet_io.h"
#include "paimon_rowid/write/append_writer.h"
#include "paimon_rowid/write/blob_writer.h"
#include "paimon_rowid/write/stats.h"

namespace paimon_rowid {

inline constexpr int64_t kDefaultTargetFileSize = FileWriteSettings::kDefaultTargetFileSize;
inline constexpr int64_t kDefaultBlockSize = FileWriteSettings::kDefaultBlockSize;

// One open data file of a partition.
struct OpenFile {
  std::string name;
  std::string path;
  std::unique_ptr<ParquetFileWriter> writer;
  std::unique_ptr<StatsCollector> stats;
  int64_t rows = 0;
  int64_t raw_bytes = 0;
  int64_t row_group_rows = 1;

  // Bytes flushed plus the buffered rows at the compression ratio of the flushed row groups
  // (1.0 before the first row group is flushed).
  int64_t EstimatedSize() const {
    int64_t flushed = writer->bytes_written();
    if (rows == 0) return flushed;
    double raw_per_row = static_cast<double>(raw_bytes) / static_cast<double>(rows);
    // The Parquet writer closes a full row group only when the next row arrives.
    int64_t flushed_rows = ((rows - 1) / row_group_rows) * row_group_rows;
    int64_t pending_rows = rows - flushed_rows;
    double ratio = 1.0;
    if (flushed_rows > 0 && flushed > 0 && raw_per_row > 0) {
      ratio = static_cast<double>(flushed) / (static_cast<double>(flushed_rows) * raw_per_row);
    }
    return flushed + static_cast<int64_t>(static_cast<double>(pending_rows) * raw_per_row * ratio);
  }
};

// The open files of one (partition, bucket).
struct PartitionWriter {
  std::string partition;  // serialized BinaryRow
  int32_t bucket = 0;
  std::string dir;  // bucket directory
  std::unique_ptr<OpenFile> current;
  // One per .blob-stored field (Impl::blob_index order); flushed when `current` closes.
  std::vector<std::unique_ptr<BlobFieldWriter>> blobs;
  std::vector<DataFileMeta> done;
};

struct AppendWriter::Impl {
  std::shared_ptr<const Table> table;
  std::shared_ptr<FileIO> io;
  std::vector<DataField> write_fields;
  std::optional<std::vector<std::string>> write_cols;  // nullopt = full row
  std::shared_ptr<arrow::Schema> input_schema;         // table types, no ids
  std::shared_ptr<arrow::Schema> file_schema;          // with "PARQUET:field_id"
  std::vector<int> partition_index;                    // into write_fields, key order
  BucketSpec buckets;                                  // the table's bucket layout
  std::vector<int> bucket_index;                       // into write_fields, bucket-key order
  std::vector<DataField> partition_fields;
  std::vector<int> stats_index;                               // into write_fields
  std::set<std::string> descriptor_fields;                    // BLOB fields stored inline
  std::vector<int> normal_index;                              // into write_fields: Parquet columns
  std::vector<int> blob_index;                                // into write_fields: .blob columns
  std::optional<std::vector<std::string>> normal_write_cols;  // _WRITE_COLS of Parquet files
  std::vector<std::string> stats_names;
  std::vector<std::shared_ptr<arrow::DataType>> stats_types;
  std::vector<StatsMode> stats_modes;

  int64_t target_file_size = kDefaultTargetFileSize;
  int64_t blob_target_file_size = kDefaultTargetFileSize;
  int64_t block_size = kDefaultBlockSize;
  ParquetWriteOptions parquet;  // parquet.pool: the writer's pool
  std::string prefix = "data-";
  std::string extension = ".parquet";
  std::string default_partition_name = "__DEFAULT_PARTITION__";

  // Set for MakeForRowIds: every row goes to this partition/directory, one file, row ids preset.
  struct FixedTarget {
    std::string partition;
    std::string dir;
    int64_t first_row_id;
  };
  std::optional<FixedTarget> fixed;

  std::string uuid = RandomUuid();
  // The names carry a job's stem (kFileStemOption): a retried task of that job replaces its
  // earlier attempt's file; every other file is created only where none exists.
  bool job_owned_names = false;
  int64_t file_counter = 0;
  std::vector<std::string> order;  // (partition, bucket) keys, first-seen
  std::map<std::string, std::unique_ptr<PartitionWriter>> partitions;
  std::vector<std::string> paths;  // every file created
  bool failed = false;
  bool prepared = false;

  Result<std::shared_ptr<arrow::RecordBatch>> Conform(const arrow::RecordBatch& batch) const;
  Status Route(const std::shared_ptr<arrow::RecordBatch>& batch);
  Result<PartitionWriter*> GetPartition(const std::vector<std::shared_ptr<arrow::Scalar>>& values,
                                        int32_t bucket);
  Status WritePartition(PartitionWriter* pw, const std::shared_ptr<arrow::RecordBatch>& batch);
  /// Opens the partition's next file; `first`, the batch it starts with, chooses the
  /// columns written without a dictionary (format/dictionary_choice.h).
  Status OpenNewFile(PartitionWriter* pw, double raw_per_row, const arrow::RecordBatch& first);
  Status CloseFile(PartitionWriter* pw);
  Status DeleteAll();
  // The written fields (all, or `cols` in order; checked against the schema); sets write_cols
  // when they differ from the full row.
  Status ResolveWriteType(const std::optional<std::vector<std::string>>& cols);
  // Input/file schemas, the stats columns and the Parquet/.blob split, from write_fields.
  Status DeriveSchemas();
  // File sizes, compression and naming from the table's options.
  Status ApplyOptions(const Options& opts);
  std::string NewFileName(const std::string& extension);
  /// Opens a new data or `.blob` file at `path` (see job_owned_names).
  Result<std::shared_ptr<arrow::io::OutputStream>> CreateOutput(const std::string& path) const;
  // The Parquet-bound columns of `batch` in the file schema's types (VECTOR as LIST).
  Result<std::shared_ptr<arrow::RecordBatch>> ForParquet(const arrow::RecordBatch& batch) const;
};

}  // namespace paimon_rowid
