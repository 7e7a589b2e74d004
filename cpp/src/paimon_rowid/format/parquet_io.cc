#include "paimon_rowid/format/parquet_io.h"

#include <exception>

#include "arrow/io/interfaces.h"
#include "arrow/memory_pool.h"
#include "arrow/table.h"
#include "paimon_rowid/format/column_task_writer.h"
#include "paimon_rowid/format/object_store_input.h"
#include "paimon_rowid/format/page_selection.h"
#include "paimon_rowid/format/parquet_internal.h"
#include "paimon_rowid/fs/file_io.h"
#include "parquet/arrow/reader.h"
#include "parquet/arrow/schema.h"
#include "parquet/arrow/writer.h"
#include "parquet/exception.h"
#include "parquet/file_reader.h"
#include "parquet/file_writer.h"
#include "parquet/metadata.h"
#include "parquet/page_index.h"
#include "parquet/properties.h"
#include "parquet/schema.h"
#include "parquet/statistics.h"
#include "parquet/types.h"

namespace paimon_rowid {
using format_internal::CatchParquet;
using format_internal::CompressionFromName;

namespace {

// A failure while decoding the pages of a file we validated the request for is damaged data
// (a CRC mismatch, or e.g. a dictionary index out of bounds after a flip in a page header,
// which the CRC does not cover): IOError naming the file, whatever status Arrow chose.
Status AsDataError(const std::string& path, Status st) {
  if (st.ok() || st.IsOutOfMemory()) return st;
  if (st.IsIOError() && st.message().find(path) != std::string::npos) return st;
  return Status::IOError("cannot read Parquet file '", path, "': ", st.message());
}

void CollectLeaves(const parquet::arrow::SchemaField& field, std::vector<int>* out) {
  if (field.is_leaf()) {
    out->push_back(field.column_index);
    return;
  }
  for (const auto& child : field.children) CollectLeaves(child, out);
}

// Java Paimon writes TIMESTAMP(p > 6), with or without local time zone, as INT96 (docs/format.md
// §8), and Java 1.4.2 misreads INT64 TIMESTAMP(NANOS): it takes the values for milliseconds.
// Arrow's `enable_deprecated_int96_timestamps` would turn every timestamp column of the file
// into INT96, but TIMESTAMP(0..6) must stay INT64 MILLIS/MICROS like Java's. So the converted
// Parquet schema is rewritten leaf by leaf: each nanosecond timestamp leaf (our Arrow type for
// precision 7..9, also inside ROW/ARRAY/MAP) becomes a plain INT96 node with the same name,
// repetition and field id. Arrow's column writer serializes any timestamp array into an INT96
// column (Impala layout: nanos of day, Julian day), whatever the Parquet schema was built from.
bool IsNanosTimestamp(const parquet::schema::Node& node) {
  const auto& logical = node.logical_type();
  if (logical == nullptr || !logical->is_timestamp()) return false;
  const auto& ts = static_cast<const parquet::TimestampLogicalType&>(*logical);
  return ts.time_unit() == parquet::LogicalType::TimeUnit::NANOS;
}

parquet::schema::NodePtr WithInt96Timestamps(const parquet::schema::NodePtr& node) {
  using parquet::schema::GroupNode;
  using parquet::schema::PrimitiveNode;
  if (node->is_primitive()) {
    if (!IsNanosTimestamp(*node)) return node;
    return PrimitiveNode::Make(node->name(), node->repetition(), parquet::Type::INT96,
                               parquet::ConvertedType::NONE, /*length=*/-1, /*precision=*/-1,
                               /*scale=*/-1, node->field_id());
  }
  const auto& group = static_cast<const GroupNode&>(*node);
  parquet::schema::NodeVector children;
  bool changed = false;
  for (int i = 0; i < group.field_count(); ++i) {
    children.push_back(WithInt96Timestamps(group.field(i)));
    changed = changed || children.back() != group.field(i);
  }
  if (!changed) return node;
  const auto& logical = group.logical_type();
  if (logical == nullptr || logical->is_none()) {  // a ROW: GroupNode rejects "None"
    return GroupNode::Make(group.name(), group.repetition(), children, parquet::ConvertedType::NONE,
                           group.field_id());
  }
  return GroupNode::Make(group.name(), group.repetition(), children, logical, group.field_id());
}

// On an object store: fetches the column chunks of `leaves` in the row groups `positions`
// touch (all without `positions`) in a few concurrent requests (object_store_input.h).
Status PrefetchChunks(arrow::io::RandomAccessFile* file, const parquet::FileMetaData& metadata,
                      const std::vector<int64_t>& row_group_starts, const std::vector<int>& leaves,
                      const std::vector<RowRange>* positions) {
  // Only an object-store input acts on it; computing the ranges costs no I/O.
  if (!format_internal::IsPrefetching(file)) return Status::OK();
  std::vector<arrow::io::ReadRange> ranges;
  size_t next = 0;
  for (int rg = 0; rg + 1 < static_cast<int>(row_group_starts.size()); ++rg) {
    const int64_t lo = row_group_starts[rg];
    const int64_t hi = row_group_starts[rg + 1] - 1;
    if (positions != nullptr) {
      while (next < positions->size() && (*positions)[next].to < lo) ++next;
      if (next == positions->size() || (*positions)[next].from > hi) continue;
    }
    auto group = metadata.RowGroup(rg);
    for (int leaf : leaves) {
      auto chunk = group->ColumnChunk(leaf);
      const int64_t start = format_internal::ChunkStart(*chunk);
      const int64_t length = chunk->total_compressed_size();
      // A wide chunk is left to page selection, which fetches only the pages it needs.
      if (start < 0 || length <= 0 || length > format_internal::kPrefetchChunkBytes) continue;
      ranges.push_back({start, length});
    }
  }
  if (ranges.size() < 2) return Status::OK();  // nothing to merge or overlap
  return format_internal::Prefetch(file, ranges);
}

}  // namespace

ParquetFileReader::ParquetFileReader() : impl_(std::make_unique<Impl>()) {}
ParquetFileReader::~ParquetFileReader() = default;

Result<std::unique_ptr<ParquetFileReader>> ParquetFileReader::Open(
    std::shared_ptr<arrow::io::RandomAccessFile> file, std::string path, int64_t expected_size,
    const ParquetReadOptions& options) {
  std::unique_ptr<ParquetFileReader> out(new ParquetFileReader());
  Impl* impl = out->impl_.get();
  impl->path = std::move(path);
  impl->file = file;
  impl->pool = options.pool;
  ARROW_ASSIGN_OR_RAISE(int64_t size, file->GetSize());
  ARROW_RETURN_NOT_OK(CheckFileSize(impl->path, size, expected_size));
  ARROW_RETURN_NOT_OK(CatchParquet(impl->path, [&]() -> Status {
    parquet::arrow::FileReaderBuilder builder;
    Status opened =
        builder.Open(std::move(file), format_internal::VerifyingReaderProperties(impl->pool));
    // The pre-buffered reads of whole row groups go through the I/O context's pool.
    parquet::ArrowReaderProperties arrow_props;
    arrow_props.set_io_context(arrow::io::IOContext(impl->pool));
    if (opened.ok()) {
      opened = builder.memory_pool(impl->pool)->properties(arrow_props)->Build(&impl->reader);
    }
    if (!opened.ok()) {
      return Status::IOError("cannot open Parquet file '", impl->path, "': ", opened.message());
    }
    impl->reader->set_use_threads(false);
    ARROW_RETURN_NOT_OK(impl->reader->GetSchema(&impl->schema));
    auto metadata = impl->reader->parquet_reader()->metadata();
    int64_t start = 0;
    for (int i = 0; i < metadata->num_row_groups(); ++i) {
      impl->row_group_starts.push_back(start);
      int64_t n = metadata->RowGroup(i)->num_rows();
      if (n < 0) return Status::IOError("corrupt row count in '", impl->path, "'");
      start += n;
    }
    impl->row_group_starts.push_back(start);
    if (start != metadata->num_rows()) {
      return Status::IOError("row groups of '", impl->path, "' do not add up to its row count");
    }
    return Status::OK();
  }));
  return out;
}

int64_t ParquetFileReader::num_rows() const { return impl_->row_group_starts.back(); }
int ParquetFileReader::num_row_groups() const {
  return static_cast<int>(impl_->row_group_starts.size()) - 1;
}
const std::shared_ptr<arrow::Schema>& ParquetFileReader::schema() const { return impl_->schema; }
const std::string& ParquetFileReader::path() const { return impl_->path; }

Result<std::optional<std::vector<ParquetFileReader::MinMax>>> ParquetFileReader::ColumnMinMax(
    const std::string& name) const {
  const int field_index = impl_->schema->GetFieldIndex(name);
  if (field_index < 0) return std::nullopt;
  const auto& type = impl_->schema->field(field_index)->type();
  if (type->num_fields() > 0) return std::nullopt;
  std::optional<std::vector<MinMax>> out;
  ARROW_RETURN_NOT_OK(CatchParquet(impl_->path, [&]() -> Status {
    const auto& manifest = impl_->reader->manifest();
    if (static_cast<size_t>(field_index) >= manifest.schema_fields.size() ||
        !manifest.schema_fields[field_index].is_leaf()) {
      return Status::OK();
    }
    const int column = manifest.schema_fields[field_index].column_index;
    auto metadata = impl_->reader->parquet_reader()->metadata();
    std::vector<MinMax> chunks;
    for (int rg = 0; rg < metadata->num_row_groups(); ++rg) {
      auto stats = metadata->RowGroup(rg)->ColumnChunk(column)->statistics();
      if (stats == nullptr || !stats->HasMinMax()) return Status::OK();
      MinMax bounds;
      if (!parquet::arrow::StatisticsAsScalars(*stats, &bounds.min, &bounds.max).ok() ||
          bounds.min == nullptr || bounds.max == nullptr) {
        return Status::OK();
      }
      if (!bounds.min->type->Equals(*type)) {  // e.g. utf8 statistics of a large_utf8 column
        auto lo = bounds.min->CastTo(type);
        auto hi = bounds.max->CastTo(type);
        if (!lo.ok() || !hi.ok()) return Status::OK();
        bounds = {*lo, *hi};
      }
      chunks.push_back(std::move(bounds));
    }
    out = std::move(chunks);
    return Status::OK();
  }));
  return out;
}

namespace {

// Min/max of one column chunk or page as scalars of `type` (the column's type in the reader's
// Arrow schema); both null when the statistics cannot be converted.
void SetBounds(const parquet::Statistics& stats, const arrow::DataType& type,
               ParquetFileReader::Segment* out) {
  std::shared_ptr<arrow::Scalar> lo, hi;
  if (!stats.HasMinMax() || !parquet::arrow::StatisticsAsScalars(stats, &lo, &hi).ok() ||
      lo == nullptr || hi == nullptr) {
    return;
  }
  if (!lo->type->Equals(type)) {  // e.g. utf8 statistics of a large_utf8 column
    auto cast_lo = lo->CastTo(type.GetSharedPtr());
    auto cast_hi = hi->CastTo(type.GetSharedPtr());
    if (!cast_lo.ok() || !cast_hi.ok()) return;
    lo = *cast_lo;
    hi = *cast_hi;
  }
  out->min = std::move(lo);
  out->max = std::move(hi);
}

}  // namespace

bool format_internal::AppendPageSegments(parquet::RowGroupPageIndexReader* index, int column,
                                         const parquet::ColumnDescriptor* descr,
                                         const arrow::DataType& type, int64_t first_row,
                                         int64_t rows, arrow::MemoryPool* pool,
                                         std::vector<ParquetFileReader::Segment>* out) {
  if (index == nullptr) return false;
  auto column_index = index->GetColumnIndex(column);
  auto offset_index = index->GetOffsetIndex(column);
  if (column_index == nullptr || offset_index == nullptr) return false;
  const auto& pages = offset_index->page_locations();
  const auto& null_pages = column_index->null_pages();
  const auto& mins = column_index->encoded_min_values();
  const auto& maxs = column_index->encoded_max_values();
  const bool has_nulls = column_index->has_null_counts();
  if (pages.empty() || pages.size() != null_pages.size() || pages.size() != mins.size() ||
      pages.size() != maxs.size() ||
      (has_nulls && column_index->null_counts().size() != pages.size()) ||
      pages.front().first_row_index != 0) {
    return false;
  }
  std::vector<ParquetFileReader::Segment> segments;
  for (size_t p = 0; p < pages.size(); ++p) {
    const int64_t end = p + 1 < pages.size() ? pages[p + 1].first_row_index : rows;
    if (end <= pages[p].first_row_index || end > rows) return false;
    ParquetFileReader::Segment segment;
    segment.rows = {first_row + pages[p].first_row_index, first_row + end - 1};
    const int64_t count = segment.rows.count();
    if (null_pages[p]) {
      segment.null_count = count;  // flat column: one value per row, all of them null
    } else {
      if (has_nulls) segment.null_count = column_index->null_counts()[p];
      auto stats = parquet::Statistics::Make(
          descr, mins[p], maxs[p], count, segment.null_count.value_or(0),
          /*distinct_count=*/0, /*has_min_max=*/true, /*has_null_count=*/has_nulls,
          /*has_distinct_count=*/false, pool);
      SetBounds(*stats, type, &segment);
    }
    segments.push_back(std::move(segment));
  }
  out->insert(out->end(), segments.begin(), segments.end());
  return true;
}

Result<std::optional<std::vector<ParquetFileReader::Segment>>> ParquetFileReader::ColumnSegments(
    const std::string& name, const std::vector<RowRange>* positions) const {
  const int field_index = impl_->schema->GetFieldIndex(name);
  if (field_index < 0) return std::nullopt;
  const auto& type = impl_->schema->field(field_index)->type();
  if (type->num_fields() > 0) return std::nullopt;
  std::optional<std::vector<Segment>> out;
  ARROW_RETURN_NOT_OK(CatchParquet(impl_->path, [&]() -> Status {
    const auto& manifest = impl_->reader->manifest();
    if (static_cast<size_t>(field_index) >= manifest.schema_fields.size() ||
        !manifest.schema_fields[field_index].is_leaf()) {
      return Status::OK();
    }
    const int column = manifest.schema_fields[field_index].column_index;
    auto metadata = impl_->reader->parquet_reader()->metadata();
    const parquet::ColumnDescriptor* descr = metadata->schema()->Column(column);
    if (descr->max_repetition_level() > 0) return Status::OK();
    const auto& starts = impl_->row_group_starts;
    std::vector<int32_t> groups;
    for (int rg = 0; rg < num_row_groups(); ++rg) {
      if (starts[rg + 1] == starts[rg]) continue;
      if (positions != nullptr && !AnyOverlap(*positions, starts[rg], starts[rg + 1] - 1)) {
        continue;
      }
      groups.push_back(rg);
    }
    // The page index of the touched chunks, one request per row group; a reader of our own
    // so that the selective read's reader keeps its own WillNeed.
    std::shared_ptr<parquet::PageIndexReader> page_index;
    bool indexed = false;
    for (int32_t rg : groups) {
      auto chunk = metadata->RowGroup(rg)->ColumnChunk(column);
      indexed |= chunk->GetColumnIndexLocation().has_value() &&
                 chunk->GetOffsetIndexLocation().has_value() && chunk->crypto_metadata() == nullptr;
    }
    if (indexed) {
      page_index = parquet::PageIndexReader::Make(
          impl_->file.get(), metadata, format_internal::VerifyingReaderProperties(impl_->pool));
      if (page_index != nullptr) {
        parquet::PageIndexSelection selection;
        selection.column_index = true;
        selection.offset_index = true;
        page_index->WillNeed(groups, {column}, selection);
      }
    }
    std::vector<Segment> segments;
    for (int32_t rg : groups) {
      const int64_t rows = starts[rg + 1] - starts[rg];
      auto chunk = metadata->RowGroup(rg)->ColumnChunk(column);
      if (page_index != nullptr && chunk->GetColumnIndexLocation().has_value() &&
          format_internal::AppendPageSegments(page_index->RowGroup(rg).get(), column, descr, *type,
                                              starts[rg], rows, impl_->pool, &segments)) {
        continue;
      }
      Segment segment;
      segment.rows = {starts[rg], starts[rg + 1] - 1};
      auto stats = chunk->statistics();
      if (stats != nullptr) {
        if (stats->HasNullCount()) segment.null_count = stats->null_count();
        SetBounds(*stats, *type, &segment);
      }
      segments.push_back(std::move(segment));
    }
    out = std::move(segments);
    return Status::OK();
  }));
  return out;
}

Result<std::shared_ptr<arrow::Table>> ParquetFileReader::Read(
    const std::vector<std::string>& columns, const std::vector<RowRange>* positions,
    ParquetReadStats* stats) const {
  const auto& manifest = impl_->reader->manifest();
  std::vector<int> leaves;
  std::vector<int> field_indices;
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (const auto& name : columns) {
    int index = impl_->schema->GetFieldIndex(name);
    if (index < 0) {
      return Status::KeyError("column '", name, "' is not in Parquet file '", impl_->path, "'");
    }
    CollectLeaves(manifest.schema_fields[index], &leaves);
    field_indices.push_back(index);
    fields.push_back(impl_->schema->field(index));
  }
  auto out_schema = arrow::schema(fields);
  const int64_t total = num_rows();
  if (positions != nullptr) {
    int64_t previous_to = -1;
    for (const auto& r : *positions) {
      if (r.from < 0 || r.to >= total || r.from > r.to) {
        return Status::Invalid("row selection [", r.from, ", ", r.to, "] is outside file '",
                               impl_->path, "' of ", total, " rows");
      }
      if (r.from <= previous_to) {
        return Status::Invalid("row selection of file '", impl_->path,
                               "' is not sorted or overlaps at [", r.from, ", ", r.to, "]");
      }
      previous_to = r.to;
    }
  }
  if (columns.empty()) {
    // No physical column: only the row count matters.
    int64_t n = 0;
    if (positions == nullptr) {
      n = total;
    } else {
      for (const auto& r : *positions) n += r.count();
    }
    return arrow::Table::Make(out_schema, std::vector<std::shared_ptr<arrow::ChunkedArray>>{}, n);
  }
  ARROW_RETURN_NOT_OK(PrefetchChunks(impl_->file.get(),
                                     *impl_->reader->parquet_reader()->metadata(),
                                     impl_->row_group_starts, leaves, positions));
  if (positions == nullptr) {
    std::vector<int> groups(num_row_groups());
    for (int g = 0; g < num_row_groups(); ++g) groups[g] = g;
    std::shared_ptr<arrow::Table> table;
    ARROW_RETURN_NOT_OK(AsDataError(impl_->path, CatchParquet(impl_->path, [&]() -> Status {
                                      return impl_->reader->ReadRowGroups(groups, leaves, &table);
                                    })));
    return table->ReplaceSchemaMetadata(nullptr);
  }
  format_internal::SelectionRead in;
  in.file = impl_->file;
  in.parquet = impl_->reader->parquet_reader();
  in.manifest = &manifest;
  in.fields = field_indices;
  in.row_group_starts = impl_->row_group_starts;
  in.positions = positions;
  in.path = impl_->path;
  in.pool = impl_->pool;
  std::vector<std::shared_ptr<arrow::ChunkedArray>> arrays;
  ARROW_RETURN_NOT_OK(AsDataError(impl_->path, CatchParquet(impl_->path, [&]() -> Status {
                                    ARROW_ASSIGN_OR_RAISE(
                                        arrays, format_internal::ReadSelectedRows(in, stats));
                                    return Status::OK();
                                  })));
  int64_t n = 0;
  for (const auto& r : *positions) n += r.count();
  return arrow::Table::Make(out_schema, std::move(arrays), n);
}

struct ParquetFileWriter::Impl {
  // One of the two: our column tasks (flat schemas, columns in parallel) or Arrow's writer.
  std::unique_ptr<format_internal::ColumnTaskWriter> tasks;
  std::unique_ptr<parquet::arrow::FileWriter> writer;
  std::shared_ptr<arrow::io::OutputStream> sink;
  int64_t rows = 0;
  bool closed = false;
};

ParquetFileWriter::ParquetFileWriter() : impl_(std::make_unique<Impl>()) {}
ParquetFileWriter::~ParquetFileWriter() = default;

Result<format_internal::WriterSetup> format_internal::MakeWriterSetup(
    const std::shared_ptr<arrow::Schema>& schema, const ParquetWriteOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto codec, CompressionFromName(options.compression));
  parquet::WriterProperties::Builder builder;
  builder.memory_pool(options.pool)
      ->compression(codec)
      ->max_row_group_length(options.row_group_size_rows)
      ->data_pagesize(options.data_page_size_bytes)
      ->write_batch_size(options.write_batch_size);
  if (codec == arrow::Compression::ZSTD || codec == arrow::Compression::GZIP) {
    builder.compression_level(options.compression_level);
  }
  // Explicit both ways: Arrow's default (on since 16) is not ours to rely on.
  if (options.write_page_index) {
    builder.enable_write_page_index();
  } else {
    builder.disable_write_page_index();
  }
  if (options.write_page_checksum) builder.enable_page_checksum();
  // No SizeStatistics (level histograms, unencoded byte-array sizes: on by default since Arrow
  // 20): no Paimon reader uses them, and keeping the histograms costs a pass over every
  // level of every list element.
  builder.set_size_statistics_level(parquet::SizeStatisticsLevel::None);
  for (const auto& name : options.plain_columns) builder.disable_dictionary(name);
  // Dictionaries of floating-point columns almost always overflow and fall back to plain
  // encoding after the work is done (about a fifth of an update's CPU time): skip them.
  for (const auto& field : schema->fields()) {
    auto id = field->type()->id();
    if (id == arrow::Type::FLOAT || id == arrow::Type::DOUBLE || id == arrow::Type::HALF_FLOAT) {
      builder.disable_dictionary(field->name());
    }
    // VECTOR / ARRAY of floating point (embeddings): the leaf of the 3-level list.
    if (id == arrow::Type::LIST || id == arrow::Type::FIXED_SIZE_LIST ||
        id == arrow::Type::LARGE_LIST) {
      auto value_id = field->type()->field(0)->type()->id();
      if (value_id == arrow::Type::FLOAT || value_id == arrow::Type::DOUBLE) {
        builder.disable_dictionary(field->name() + ".list.element");
      }
    }
  }
  // No ARROW:schema in the footer, like Java: Arrow's reader restores fixed_size_list from it
  // and then rejects null VECTOR rows (GH: "Expected all lists to be of size=n"); readers map
  // Parquet types to the table's types themselves.
  parquet::ArrowWriterProperties::Builder arrow_builder;
  // Each buffered row group's columns are encoded on Arrow's CPU pool, one column per task
  // (Arrow's FileWriter in buffered mode); our own executor is a separate pool, so a write
  // running on it never waits on itself.
  arrow_builder.set_use_threads(options.encode_columns_in_parallel);
  WriterSetup setup;
  setup.arrow_properties = arrow_builder.build();
  ARROW_RETURN_NOT_OK(CatchParquet("<new file>", [&]() -> Status {
    // Java names the message type "paimon_schema"; Arrow's converter names it "schema".
    // Convert, switch nanosecond timestamps to INT96, then re-root the columns under Java's
    // name.
    setup.properties = builder.build();
    std::shared_ptr<parquet::SchemaDescriptor> converted;
    ARROW_RETURN_NOT_OK(parquet::arrow::ToParquetSchema(schema.get(), *setup.properties,
                                                        *setup.arrow_properties, &converted));
    const auto* root = converted->group_node();
    parquet::schema::NodeVector columns;
    for (int i = 0; i < root->field_count(); ++i) {
      columns.push_back(WithInt96Timestamps(root->field(i)));
    }
    setup.root = std::static_pointer_cast<parquet::schema::GroupNode>(
        parquet::schema::GroupNode::Make("paimon_schema", parquet::Repetition::REQUIRED, columns));
    return Status::OK();
  }));
  return setup;
}

Result<std::unique_ptr<ParquetFileWriter>> ParquetFileWriter::Open(
    std::shared_ptr<arrow::io::OutputStream> sink, std::shared_ptr<arrow::Schema> schema,
    const ParquetWriteOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto setup, format_internal::MakeWriterSetup(schema, options));
  std::unique_ptr<ParquetFileWriter> out(new ParquetFileWriter());
  out->impl_->sink = sink;
  ARROW_RETURN_NOT_OK(CatchParquet("<new file>", [&]() -> Status {
    auto file_writer = parquet::ParquetFileWriter::Open(sink, setup.root, setup.properties);
    // Columns encoded in parallel, longest first (column_task_writer.h), where the schema
    // is flat; else Arrow's writer, which starts them in schema order.
    if (options.encode_columns_in_parallel && format_internal::ColumnTasksSupported(*schema)) {
      out->impl_->tasks = std::make_unique<format_internal::ColumnTaskWriter>(
          std::move(file_writer), schema, setup.arrow_properties, options.row_group_size_rows,
          options.pool);
      return Status::OK();
    }
    return parquet::arrow::FileWriter::Make(options.pool, std::move(file_writer), schema,
                                            setup.arrow_properties, &out->impl_->writer);
  }));
  return out;
}

Status ParquetFileWriter::Write(const arrow::RecordBatch& batch) {
  if (impl_->tasks) {
    ARROW_RETURN_NOT_OK(impl_->tasks->Write(batch));
    impl_->rows += batch.num_rows();
    return Status::OK();
  }
  return CatchParquet("<new file>", [&]() -> Status {
    ARROW_RETURN_NOT_OK(impl_->writer->WriteRecordBatch(batch));
    impl_->rows += batch.num_rows();
    return Status::OK();
  });
}

int64_t ParquetFileWriter::bytes_written() const {
  auto pos = impl_->sink->Tell();
  return pos.ok() ? *pos : 0;
}

int64_t ParquetFileWriter::rows_written() const { return impl_->rows; }

Status ParquetFileWriter::Close() {
  if (impl_->closed) return Status::OK();
  impl_->closed = true;
  return CatchParquet("<new file>", [&]() -> Status {
    ARROW_RETURN_NOT_OK(impl_->tasks ? impl_->tasks->Close() : impl_->writer->Close());
    return impl_->sink->Close();
  });
}

}  // namespace paimon_rowid
