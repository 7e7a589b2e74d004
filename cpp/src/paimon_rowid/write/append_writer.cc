#include "paimon_rowid/write/append_writer.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "arrow/array.h"
#include "arrow/builder.h"
#include "arrow/compute/api_vector.h"
#include "arrow/compute/cast.h"
#include "arrow/compute/exec.h"
#include "arrow/scalar.h"
#include "arrow/util/byte_size.h"
#include "paimon_rowid/catalog/bucket_spec.h"
#include "paimon_rowid/codec/binary_row.h"
#include "paimon_rowid/common/identifier.h"
#include "paimon_rowid/exec/compute.h"
#include "paimon_rowid/exec/executor.h"
#include "paimon_rowid/format/dictionary_choice.h"
#include "paimon_rowid/format/parquet_io.h"
#include "paimon_rowid/scan/partition.h"
#include "paimon_rowid/write/append_writer_internal.h"
#include "paimon_rowid/write/blob_writer.h"
#include "paimon_rowid/write/input_types.h"
#include "paimon_rowid/write/row_router.h"
#include "paimon_rowid/write/stats.h"

namespace paimon_rowid {
namespace {

constexpr int64_t kMaxRowGroupRows = 1 << 20;
constexpr int64_t kMaxChunkRows = 1 << 16;

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string CompressionExtension(const std::string& codec) {
  if (codec == "zstd") return "zst";
  if (codec == "gzip") return "gz";
  return codec;
}

}  // namespace

int64_t FileCreationMillis() {
  auto now = std::chrono::system_clock::now();
  int64_t millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  std::time_t secs = std::chrono::system_clock::to_time_t(now);
  std::tm local{};
  localtime_r(&secs, &local);
  return millis + static_cast<int64_t>(local.tm_gmtoff) * 1000;
}

Status AppendWriter::Impl::DeriveSchemas() {
  arrow::FieldVector input_fields, file_fields;
  stats_index.clear();
  stats_names.clear();
  stats_types.clear();
  stats_modes.clear();
  normal_index.clear();
  blob_index.clear();
  std::vector<std::string> normal_names;
  for (size_t i = 0; i < write_fields.size(); ++i) {
    const DataField& f = write_fields[i];
    input_fields.push_back(f.ToArrow()->WithMetadata(nullptr));
    if (f.type->holds_blob() && !f.type->is_blob()) {
      input_fields.back() = input_fields.back()->WithType(BlobInputType(*f.type));
    }
    if (f.type->holds_blob() && !descriptor_fields.count(f.name)) {
      blob_index.push_back(static_cast<int>(i));
      continue;
    }
    normal_index.push_back(static_cast<int>(i));
    normal_names.push_back(f.name);
    file_fields.push_back(f.type->root() == TypeRoot::kVector
                              ? VectorFieldAsList(f.ToArrowWithFieldIds())
                              : f.ToArrowWithFieldIds());
  }
  // Value stats of the Parquet file's columns, per their stats mode; `none` columns are left
  // out (Java's dense store), as are types without stats.
  ARROW_ASSIGN_OR_RAISE(auto modes, ColumnStatsModes(table->options(), normal_names));
  for (size_t k = 0; k < normal_index.size(); ++k) {
    const DataField& f = write_fields[static_cast<size_t>(normal_index[k])];
    StatsMode mode = ParquetColumnStatsMode(*f.type, modes[k]);
    if (!SupportsStats(*f.type) || mode.kind == StatsMode::Kind::kNone) continue;
    stats_index.push_back(normal_index[k]);
    stats_names.push_back(f.name);
    stats_types.push_back(input_fields[static_cast<size_t>(normal_index[k])]->type());
    stats_modes.push_back(mode);
  }
  input_schema = arrow::schema(input_fields);
  file_schema = arrow::schema(file_fields);
  if (blob_index.empty()) {
    normal_write_cols = write_cols;
  } else {
    // A table with .blob columns: the Parquet file lists its columns explicitly (§5.1).
    if (normal_index.empty()) {
      return Status::Invalid("a write of table '", table->identifier().FullName(),
                             "' must include at least one non-BLOB column");
    }
    normal_write_cols = normal_names;
  }
  return Status::OK();
}

Result<std::shared_ptr<arrow::RecordBatch>> AppendWriter::Impl::ForParquet(
    const arrow::RecordBatch& batch) const {
  return VectorsAsLists(batch, file_schema, parquet.pool);
}

std::string AppendWriter::Impl::NewFileName(const std::string& ext) {
  return prefix + uuid + "-" + std::to_string(file_counter++) + ext;
}

Result<std::shared_ptr<arrow::io::OutputStream>> AppendWriter::Impl::CreateOutput(
    const std::string& path) const {
  return job_owned_names ? io->OpenOutputReplacing(path) : io->OpenOutput(path);
}

AppendWriter::AppendWriter() : impl_(std::make_unique<Impl>()) {}
AppendWriter::~AppendWriter() = default;

namespace {

// What this writer cannot write: primary keys, other formats, vector files, and BLOB columns
// nested where the format does not allow them. (New files of a deletion-vector table have
// no deleted rows: appending needs nothing more.)
Status CheckWritable(const Table& table) {
  const TableSchema& schema = table.schema();
  const Options& opts = table.options();
  const std::string name = table.identifier().FullName();
  if (!schema.primary_keys.empty()) {
    return Status::NotImplemented("table '", name,
                                  "' has primary keys; only append tables are written");
  }
  if (Lower(opts.GetOr(options::kFileFormat, "parquet")) != "parquet") {
    return Status::NotImplemented("table '", name, "' uses file.format '",
                                  opts.GetOr(options::kFileFormat, ""),
                                  "'; paimon-rowid writes parquet only");
  }
  if (opts.Contains(options::kVectorFileFormat)) {
    return Status::NotImplemented("table '", name,
                                  "' stores VECTOR columns in dedicated files "
                                  "('vector.file.format'), which paimon-rowid cannot write yet");
  }
  ARROW_RETURN_NOT_OK(BucketSpec::Of(schema).status());
  for (const auto& f : schema.fields) {
    ARROW_RETURN_NOT_OK(CheckBlobNesting(f));
    if (f.type->holds_blob() && f.type->root() == TypeRoot::kMap &&
        !IsMapBlobKeyType(*f.type->key())) {
      return Status::Invalid("Unsupported key type for MAP<X, BLOB>: ", f.type->key()->ToString(),
                             " (column '", f.name, "')");
    }
  }
  return Status::OK();
}

// BLOB fields whose descriptors are stored inline (both spellings of the option).
std::set<std::string> DescriptorFields(const Options& opts) {
  std::set<std::string> fields;
  for (const char* key : {options::kBlobDescriptorField, "blob.stored-descriptor-fields"}) {
    for (auto& f : SplitOptionList(opts.GetOr(key, ""))) fields.insert(f);
  }
  return fields;
}

}  // namespace

Status AppendWriter::Impl::ResolveWriteType(const std::optional<std::vector<std::string>>& cols) {
  const TableSchema& schema = table->schema();
  if (!cols) {
    write_fields = schema.fields;
    return Status::OK();
  }
  if (cols->empty()) return Status::Invalid("the write type must have at least one column");
  std::set<std::string> seen;
  for (const auto& col : *cols) {
    if (system_fields::IsSystemField(col)) {
      return Status::Invalid("system field '", col, "' cannot be written");
    }
    const DataField* f = schema.FieldByName(col);
    if (f == nullptr) {
      return Status::Invalid("Column '", col, "' is not a column of table '",
                             table->identifier().FullName(), "' ", JoinNames(schema.field_names()));
    }
    if (!seen.insert(col).second) return Status::Invalid("Column '", col, "' is written twice");
    write_fields.push_back(*f);
  }
  for (const auto& key : schema.partition_keys) {
    if (!seen.count(key)) {
      return Status::Invalid("a partial-column write must include partition key '", key, "'");
    }
  }
  for (const auto& key : buckets.keys) {
    if (!seen.count(key)) {
      return Status::Invalid("a partial-column write must include bucket key '", key, "'");
    }
  }
  if (*cols != schema.field_names()) write_cols = *cols;
  return Status::OK();
}

Status AppendWriter::Impl::ApplyOptions(const Options& opts) {
  ARROW_ASSIGN_OR_RAISE(const FileWriteSettings s, ParseFileWriteSettings(opts));
  target_file_size = s.target_file_size;
  blob_target_file_size = s.blob_target_file_size;
  block_size = s.block_size;
  parquet.compression = s.compression;
  parquet.compression_level = s.zstd_level;
  prefix = s.data_file_prefix;
  if (auto stem = opts.Get(kFileStemOption)) {
    uuid = *stem;
    job_owned_names = true;
  }
  if (s.suffix_include_compression && s.compression != "none") {
    extension = "." + CompressionExtension(s.compression) + ".parquet";
  }
  default_partition_name = s.partition_default_name;
  return Status::OK();
}

Result<std::unique_ptr<AppendWriter>> AppendWriter::Make(
    std::shared_ptr<const Table> table, std::optional<std::vector<std::string>> write_cols,
    const AppendWriterOptions& options) {
  if (!table) return Status::Invalid("AppendWriter needs a table");
  ARROW_RETURN_NOT_OK(EnsureComputeInitialized());
  ARROW_RETURN_NOT_OK(CheckWritable(*table));

  std::unique_ptr<AppendWriter> out(new AppendWriter());
  Impl& impl = *out->impl_;
  impl.table = table;
  impl.io = table->file_io();
  impl.parquet.pool = options.pool;
  impl.parquet.encode_columns_in_parallel = options.parallel;
  impl.descriptor_fields = DescriptorFields(table->options());
  ARROW_ASSIGN_OR_RAISE(impl.buckets, BucketSpec::Of(table->schema()));
  ARROW_RETURN_NOT_OK(impl.ResolveWriteType(write_cols));
  ARROW_RETURN_NOT_OK(impl.DeriveSchemas());
  const TableSchema& schema = table->schema();
  ARROW_ASSIGN_OR_RAISE(impl.partition_fields, PartitionFields(schema));
  for (const auto& key : schema.partition_keys) {
    for (size_t i = 0; i < impl.write_fields.size(); ++i) {
      if (impl.write_fields[i].name == key) impl.partition_index.push_back(static_cast<int>(i));
    }
  }
  for (const auto& key : impl.buckets.keys) {
    for (size_t i = 0; i < impl.write_fields.size(); ++i) {
      if (impl.write_fields[i].name == key) impl.bucket_index.push_back(static_cast<int>(i));
    }
  }
  ARROW_RETURN_NOT_OK(impl.ApplyOptions(table->options()));
  return out;
}

std::string AppendWriter::RowIdFileStem(const std::string& stem, int64_t first_row_id) {
  return stem + "-g" + std::to_string(first_row_id);
}

Result<std::unique_ptr<AppendWriter>> AppendWriter::MakeForRowIds(
    std::shared_ptr<const Table> table, std::vector<std::string> write_cols, std::string partition,
    std::string bucket_dir, int64_t first_row_id, const AppendWriterOptions& options) {
  for (const auto& col : write_cols) {
    if (table->schema().IsPartitionKey(col)) {
      return Status::Invalid("partition column '", col, "' cannot be rewritten in place");
    }
  }
  // Validate the columns as a partial write, then drop the partition-key requirement: the
  // partition is the group's.
  std::vector<std::string> with_keys = write_cols;
  for (const auto& key : table->schema().partition_keys) with_keys.push_back(key);
  ARROW_ASSIGN_OR_RAISE(auto writer, Make(table, with_keys, options));
  Impl& impl = *writer->impl_;
  impl.write_fields.resize(write_cols.size());
  impl.write_cols = write_cols;
  ARROW_RETURN_NOT_OK(impl.DeriveSchemas());
  impl.partition_index.clear();
  impl.bucket_index.clear();
  impl.target_file_size = std::numeric_limits<int64_t>::max();
  impl.fixed = Impl::FixedTarget{std::move(partition), std::move(bucket_dir), first_row_id};
  if (table->options().Get(kFileStemOption)) impl.uuid = RowIdFileStem(impl.uuid, first_row_id);
  return writer;
}

Result<std::unique_ptr<AppendWriter>> AppendWriter::MakeForCompaction(
    std::shared_ptr<const Table> table, std::string partition, std::string bucket_dir,
    int64_t first_row_id, const AppendWriterOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto writer, Make(table, std::nullopt, options));
  Impl& impl = *writer->impl_;
  if (!impl.blob_index.empty()) {
    // Only the Parquet-bound columns; the .blob files of the group stay as they are.
    std::vector<std::string> cols;
    for (size_t i = 0; i < impl.write_fields.size(); ++i) {
      if (std::find(impl.blob_index.begin(), impl.blob_index.end(), static_cast<int>(i)) ==
          impl.blob_index.end()) {
        cols.push_back(impl.write_fields[i].name);
      }
    }
    ARROW_ASSIGN_OR_RAISE(writer, Make(table, cols, options));
  }
  Impl& target = *writer->impl_;
  target.partition_index.clear();
  target.bucket_index.clear();
  target.target_file_size = std::numeric_limits<int64_t>::max();
  target.fixed = Impl::FixedTarget{std::move(partition), std::move(bucket_dir), first_row_id};
  if (table->options().Get(kFileStemOption)) target.uuid = RowIdFileStem(target.uuid, first_row_id);
  return writer;
}

const std::shared_ptr<arrow::Schema>& AppendWriter::write_schema() const {
  return impl_->input_schema;
}

std::vector<std::string> AppendWriter::written_paths() const { return impl_->paths; }

std::string AppendWriter::row_id_file_path() const {
  const Impl& impl = *impl_;
  std::string dir = impl.fixed ? impl.fixed->dir : std::string();
  return JoinPath(
      dir, impl.prefix + impl.uuid + "-" + std::to_string(impl.file_counter) + impl.extension);
}

Result<std::shared_ptr<arrow::RecordBatch>> AppendWriter::Impl::Conform(
    const arrow::RecordBatch& batch) const {
  return ConformInput(batch, write_fields, input_schema, table->identifier().FullName(),
                      parquet.pool);
}

Result<PartitionWriter*> AppendWriter::Impl::GetPartition(
    const std::vector<std::shared_ptr<arrow::Scalar>>& values, int32_t bucket) {
  std::string bytes;
  if (fixed) {
    bytes = fixed->partition;
  } else {
    ARROW_ASSIGN_OR_RAISE(bytes, EncodeBinaryRow(values));
  }
  const std::string key = bytes + "/" + std::to_string(bucket);
  auto it = partitions.find(key);
  if (it != partitions.end()) return it->second.get();
  auto pw = std::make_unique<PartitionWriter>();
  pw->partition = bytes;
  pw->bucket = bucket;
  pw->dir = fixed
                ? fixed->dir
                : table->BucketPath(
                      JavaPartitionPath(partition_fields, values, default_partition_name), bucket);
  for (int idx : blob_index) {
    pw->blobs.push_back(std::make_unique<BlobFieldWriter>(
        io, pw->dir, write_fields[idx].name, write_fields[idx].type, table->schema().id,
        blob_target_file_size, [this] { return NewFileName(".blob"); }, &paths, job_owned_names));
  }
  PartitionWriter* raw = pw.get();
  order.push_back(key);
  partitions.emplace(key, std::move(pw));
  return raw;
}

Status AppendWriter::Impl::Route(const std::shared_ptr<arrow::RecordBatch>& batch) {
  if (batch->num_rows() == 0) return Status::OK();
  if (fixed) {
    ARROW_ASSIGN_OR_RAISE(auto pw, GetPartition({}, 0));
    return WritePartition(pw, batch);
  }
  ARROW_ASSIGN_OR_RAISE(auto pieces, SplitByPartition(batch, partition_index, parquet.pool));
  for (auto& piece : pieces) {
    ARROW_ASSIGN_OR_RAISE(auto by_bucket,
                          SplitByBucket(piece.rows, bucket_index, buckets, parquet.pool));
    for (auto& part : by_bucket) {
      ARROW_ASSIGN_OR_RAISE(auto pw, GetPartition(piece.values, part.bucket));
      ARROW_RETURN_NOT_OK(WritePartition(pw, part.rows));
    }
  }
  return Status::OK();
}

Status AppendWriter::Impl::OpenNewFile(PartitionWriter* pw, double raw_per_row,
                                       const arrow::RecordBatch& first) {
  auto file = std::make_unique<OpenFile>();
  file->name = NewFileName(extension);
  file->path = JoinPath(pw->dir, file->name);
  ParquetWriteOptions opts = parquet;
  opts.plain_columns = NearlyDistinctColumns(first);
  file->row_group_rows = std::clamp<int64_t>(
      static_cast<int64_t>(static_cast<double>(block_size) / std::max(1.0, raw_per_row)), 1,
      kMaxRowGroupRows);
  opts.row_group_size_rows = file->row_group_rows;
  ARROW_ASSIGN_OR_RAISE(auto sink, CreateOutput(file->path));
  paths.push_back(file->path);
  ARROW_ASSIGN_OR_RAISE(file->writer, ParquetFileWriter::Open(sink, file_schema, opts));
  file->stats = std::make_unique<StatsCollector>(stats_types, stats_modes, parquet.pool);
  pw->current = std::move(file);
  return Status::OK();
}

Status AppendWriter::Impl::CloseFile(PartitionWriter* pw) {
  std::unique_ptr<OpenFile> file = std::move(pw->current);
  if (!file) return Status::OK();
  if (file->writer) ARROW_RETURN_NOT_OK(file->writer->Close());  // a spliced file is complete
  DataFileMeta meta;
  meta.file_name = file->name;
  ARROW_ASSIGN_OR_RAISE(meta.file_size, io->FileSize(file->path));
  meta.row_count = file->rows;
  meta.min_key = EmptySerializedBinaryRow();
  meta.max_key = EmptySerializedBinaryRow();
  meta.key_stats = SimpleStats::Empty();
  ARROW_ASSIGN_OR_RAISE(meta.value_stats, file->stats->Finish());
  meta.value_stats_cols = stats_names;
  meta.min_sequence_number = 0;
  meta.max_sequence_number = 0;
  meta.schema_id = table->schema().id;
  meta.level = 0;
  meta.creation_time_millis = FileCreationMillis();
  meta.delete_row_count = 0;
  meta.file_source = static_cast<int32_t>(FileSource::kAppend);
  meta.write_cols = normal_write_cols;
  if (fixed) meta.first_row_id = fixed->first_row_id;
  const int64_t normal_rows = meta.row_count;
  const auto creation_time = meta.creation_time_millis;
  pw->done.push_back(std::move(meta));
  // The blob files of this normal file follow it, field by field (docs/format.md §4.3).
  for (auto& blob : pw->blobs) {
    std::vector<DataFileMeta> metas;
    ARROW_RETURN_NOT_OK(blob->Flush(&metas));
    int64_t rows = 0;
    for (auto& m : metas) {
      rows += m.row_count;
      m.creation_time_millis = creation_time;
      pw->done.push_back(std::move(m));
    }
    if (rows != normal_rows) {
      return Status::Invalid("internal: blob files hold ", rows, " rows for a data file of ",
                             normal_rows);
    }
  }
  return Status::OK();
}

Status AppendWriter::Impl::WritePartition(PartitionWriter* pw,
                                          const std::shared_ptr<arrow::RecordBatch>& batch) {
  // The Parquet part of the rows; .blob columns go to their own writers.
  std::shared_ptr<arrow::RecordBatch> normal = batch;
  if (!blob_index.empty()) {
    ARROW_ASSIGN_OR_RAISE(normal, batch->SelectColumns(normal_index));
  }
  ARROW_ASSIGN_OR_RAISE(int64_t batch_bytes, arrow::util::ReferencedBufferSize(*normal));
  double raw_per_row = static_cast<double>(batch_bytes) / static_cast<double>(batch->num_rows());
  // Slices small enough that a file overshoots its target by at most ~1/8.
  int64_t chunk_rows =
      std::clamp<int64_t>(static_cast<int64_t>(static_cast<double>(target_file_size) / 8.0 /
                                               std::max(1.0, raw_per_row)),
                          1, kMaxChunkRows);
  for (int64_t offset = 0; offset < batch->num_rows(); offset += chunk_rows) {
    const int64_t length = std::min(chunk_rows, batch->num_rows() - offset);
    auto chunk = batch->Slice(offset, length);
    ARROW_ASSIGN_OR_RAISE(auto parquet_batch, ForParquet(*normal->Slice(offset, length)));
    if (!pw->current) ARROW_RETURN_NOT_OK(OpenNewFile(pw, raw_per_row, *parquet_batch));
    OpenFile& file = *pw->current;
    std::vector<std::shared_ptr<arrow::Array>> stats_columns;
    for (int idx : stats_index) stats_columns.push_back(chunk->column(idx));
    // While the chunk's columns are encoded (one task each: ColumnTaskWriter on our executor
    // for flat schemas, else Arrow's CPU pool) the value stats of the same rows are folded
    // on another thread. Neither task touches the other's state. A writer that is not
    // parallel (one group per core already) does both on this thread.
    ARROW_RETURN_NOT_OK(Executor::Default()->ParallelFor(
        2, parquet.encode_columns_in_parallel ? 2 : 1, [&](int64_t task) -> Status {
          if (task == 0) return file.writer->Write(*parquet_batch);
          return file.stats->Update(stats_columns);
        }));
    for (size_t k = 0; k < blob_index.size(); ++k) {
      ARROW_RETURN_NOT_OK(pw->blobs[k]->Append(*chunk->column(blob_index[k])));
    }
    file.rows += chunk->num_rows();
    file.raw_bytes += static_cast<int64_t>(raw_per_row * static_cast<double>(chunk->num_rows()));
    if (file.EstimatedSize() >= target_file_size) ARROW_RETURN_NOT_OK(CloseFile(pw));
  }
  return Status::OK();
}

Status AppendWriter::Impl::DeleteAll() {
  for (auto& [key, pw] : partitions) {
    if (pw->current) {
      if (pw->current->writer) (void)pw->current->writer->Close();
      pw->current.reset();
    }
    for (auto& blob : pw->blobs) blob->Discard();
    pw->done.clear();
  }
  Status first;
  for (const auto& p : paths) {
    Status st = io->DeleteFile(p);
    if (!st.ok() && first.ok()) first = st;
  }
  paths.clear();
  return first;
}

Status AppendWriter::Write(const std::shared_ptr<arrow::RecordBatch>& batch) {
  Impl& impl = *impl_;
  if (impl.failed) return Status::Invalid("the writer failed earlier and was aborted");
  if (impl.prepared) return Status::Invalid("the writer was already prepared for commit");
  if (!batch) return Status::Invalid("null record batch");
  Status st = [&]() -> Status {
    ARROW_ASSIGN_OR_RAISE(auto conformed, impl.Conform(*batch));
    return impl.Route(conformed);
  }();
  if (!st.ok()) {
    impl.failed = true;
    (void)impl.DeleteAll();
  }
  return st;
}

Status AppendWriter::WriteAll(arrow::RecordBatchReader* reader) {
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    Status st = reader->ReadNext(&batch);
    if (!st.ok()) {
      impl_->failed = true;
      (void)impl_->DeleteAll();
      return st;
    }
    if (!batch) return Status::OK();
    ARROW_RETURN_NOT_OK(Write(batch));
  }
}

Result<std::vector<CommitMessage>> AppendWriter::PrepareCommit() {
  Impl& impl = *impl_;
  if (impl.failed) return Status::Invalid("the writer failed earlier and was aborted");
  if (impl.prepared) return Status::Invalid("the writer was already prepared for commit");
  impl.prepared = true;
  std::vector<CommitMessage> out;
  for (const auto& key : impl.order) {
    PartitionWriter* pw = impl.partitions[key].get();
    Status st = impl.CloseFile(pw);
    if (!st.ok()) {
      impl.failed = true;
      (void)impl.DeleteAll();
      return st;
    }
    if (pw->done.empty()) continue;
    CommitMessage msg;
    msg.partition = pw->partition;
    msg.bucket = pw->bucket;
    msg.total_buckets = impl.buckets.fixed() ? impl.buckets.num_buckets : -1;
    msg.new_files = pw->done;
    msg.table_path = impl.table->path();
    out.push_back(std::move(msg));
  }
  return out;
}

Status AppendWriter::Abort() { return impl_->DeleteAll(); }

}  // namespace paimon_rowid
