#include "paimon_rowid/format/page_splice.h"

#include <algorithm>
#include <map>

#include "arrow/io/memory.h"
#include "arrow/record_batch.h"
#include "arrow/util/crc32.h"
#include "paimon_rowid/format/page_header.h"
#include "paimon_rowid/format/page_selection.h"
#include "paimon_rowid/format/parquet_internal.h"
#include "parquet/arrow/schema.h"
#include "parquet/file_reader.h"
#include "parquet/file_writer.h"
#include "parquet/metadata.h"
#include "parquet/page_index.h"
#include "parquet/size_statistics.h"
#include "parquet/statistics.h"

namespace paimon_rowid {
namespace {

using format_internal::CatchParquet;
using format_internal::PageHeaderInfo;

// One page of a column chunk: where it is (in its chunk's bytes), what its header says and,
// for data pages, its rows and page index statistics.
struct Page {
  int64_t offset = 0;        // in the chunk's bytes
  int64_t length = 0;        // header + compressed body
  int64_t uncompressed = 0;  // header + uncompressed body (Parquet's chunk total counts both)
  PageHeaderInfo header;
  int64_t first_row = 0;
  int64_t rows = 0;
  parquet::EncodedStatistics stats;
  bool changed = false;

  bool is_dictionary() const { return header.type == PageHeaderInfo::kDictionaryPage; }
};

// The pages of a chunk whose bytes are `chunk`: headers walked in order and checked against
// the chunk's offset index (`start`: the chunk's offset in its file). nullopt when they
// disagree or the chunk holds something else than one optional dictionary page followed by
// data pages.
std::optional<std::vector<Page>> WalkPages(const arrow::Buffer& chunk, int64_t start,
                                           const std::vector<parquet::PageLocation>& locations,
                                           int64_t num_rows) {
  std::vector<Page> pages;
  size_t next_location = 0;
  int64_t offset = 0;
  while (offset < chunk.size()) {
    auto parsed = format_internal::ParsePageHeader(chunk.data() + offset, chunk.size() - offset);
    if (!parsed.ok()) return std::nullopt;
    Page page;
    page.header = *parsed;
    page.offset = offset;
    page.length = page.header.header_size + page.header.compressed_size;
    page.uncompressed = page.header.header_size + page.header.uncompressed_size;
    if (page.length > chunk.size() - offset) return std::nullopt;
    if (page.is_dictionary()) {
      if (!pages.empty()) return std::nullopt;
    } else if (page.header.type == PageHeaderInfo::kDataPage ||
               page.header.type == PageHeaderInfo::kDataPageV2) {
      if (next_location >= locations.size()) return std::nullopt;
      const auto& location = locations[next_location];
      if (location.offset != start + offset || location.compressed_page_size != page.length) {
        return std::nullopt;
      }
      page.first_row = location.first_row_index;
      const int64_t end = next_location + 1 < locations.size()
                              ? locations[next_location + 1].first_row_index
                              : num_rows;
      page.rows = end - page.first_row;
      if (page.rows <= 0) return std::nullopt;
      ++next_location;
    } else {
      return std::nullopt;  // index pages: never written by any writer we know
    }
    offset += page.length;
    pages.push_back(std::move(page));
  }
  if (next_location != locations.size() || locations.empty() ||
      locations.front().first_row_index != 0) {
    return std::nullopt;
  }
  return pages;
}

// The page index statistics of data page `p` as a writer hands them to a ColumnIndexBuilder.
parquet::EncodedStatistics PageStats(const parquet::ColumnIndex& index, size_t p) {
  parquet::EncodedStatistics stats;
  if (index.null_pages()[p]) {
    stats.all_null_value = true;
  } else {
    stats.set_min(index.encoded_min_values()[p]);
    stats.set_max(index.encoded_max_values()[p]);
  }
  if (index.has_null_counts()) stats.set_null_count(index.null_counts()[p]);
  return stats;
}

// Attaches the page index entries of `column_index` to the data pages of `pages`.
bool AttachStats(const parquet::ColumnIndex& column_index, std::vector<Page>* pages) {
  size_t p = 0;
  for (auto& page : *pages) {
    if (page.is_dictionary()) continue;
    if (p >= column_index.null_pages().size()) return false;
    page.stats = PageStats(column_index, p++);
  }
  return p == column_index.null_pages().size();
}

// The chunk statistics of a column, merged page by page from the pages' encoded statistics.
class ChunkStats {
 public:
  ChunkStats(const parquet::ColumnDescriptor* descr, arrow::MemoryPool* pool)
      : descr_(descr), pool_(pool), merged_(parquet::Statistics::Make(descr, pool)) {}

  void Add(const parquet::EncodedStatistics& page, int64_t rows) {
    const int64_t nulls = page.has_null_count ? page.null_count : 0;
    auto stats = parquet::Statistics::Make(descr_, &page, rows - nulls, pool_);
    switch (descr_->physical_type()) {
      case parquet::Type::BOOLEAN:
        return MergeAs<parquet::BooleanType>(*stats);
      case parquet::Type::INT32:
        return MergeAs<parquet::Int32Type>(*stats);
      case parquet::Type::INT64:
        return MergeAs<parquet::Int64Type>(*stats);
      case parquet::Type::FLOAT:
        return MergeAs<parquet::FloatType>(*stats);
      case parquet::Type::DOUBLE:
        return MergeAs<parquet::DoubleType>(*stats);
      default:
        return;  // not spliced (ParquetPageSplice::Plan)
    }
  }
  parquet::EncodedStatistics Encode() const { return merged_->Encode(); }

 private:
  template <typename DType>
  void MergeAs(const parquet::Statistics& page) {
    static_cast<parquet::TypedStatistics<DType>&>(*merged_).Merge(
        static_cast<const parquet::TypedStatistics<DType>&>(page));
  }
  const parquet::ColumnDescriptor* descr_;
  arrow::MemoryPool* pool_;
  std::shared_ptr<parquet::Statistics> merged_;
};

bool SplicedPhysicalType(parquet::Type::type type) {
  switch (type) {
    case parquet::Type::BOOLEAN:
    case parquet::Type::INT32:
    case parquet::Type::INT64:
    case parquet::Type::FLOAT:
    case parquet::Type::DOUBLE:
      return true;
    default:
      // Byte arrays: page index bounds may be truncated, so the file's bounds could not be
      // rebuilt exactly. INT96: no statistics at all.
      return false;
  }
}

}  // namespace

struct ParquetPageSplice::Impl {
  std::shared_ptr<arrow::Schema> schema;
  ParquetWriteOptions options;
  format_internal::WriterSetup setup;
  parquet::SchemaDescriptor parquet_schema;
  int64_t num_rows = -1;
  struct ColumnPlan {
    bool whole = false;  // every row re-encoded: nothing of the source is copied
    std::shared_ptr<arrow::Buffer> chunk;
    std::vector<Page> pages;
    std::vector<RowRange> rewritten;
    std::vector<ParquetFileReader::Segment> copied;
  };
  std::vector<ColumnPlan> columns;

  // Plans copying one column's unchanged pages; false when its chunk cannot be copied or
  // copying would not pay (then it may still be re-encoded whole, see Plan).
  Result<bool> PlanColumn(size_t c, const Column& column, ColumnPlan* plan);
  // The pages of `values` (the new rows `rows` of column c) encoded by our writer, with their
  // bytes in `*bytes`; first rows are file positions.
  Result<std::vector<Page>> Encode(size_t c, const RowRange& rows,
                                   const std::shared_ptr<arrow::Array>& values,
                                   std::shared_ptr<arrow::Buffer>* bytes) const;
};

ParquetPageSplice::ParquetPageSplice() : impl_(std::make_unique<Impl>()) {}
ParquetPageSplice::~ParquetPageSplice() = default;

int64_t ParquetPageSplice::num_rows() const { return impl_->num_rows; }

const std::vector<RowRange>& ParquetPageSplice::rewritten_rows(size_t c) const {
  return impl_->columns[c].rewritten;
}

const std::vector<ParquetFileReader::Segment>& ParquetPageSplice::copied_pages(size_t c) const {
  return impl_->columns[c].copied;
}

Result<std::unique_ptr<ParquetPageSplice>> ParquetPageSplice::Plan(
    std::shared_ptr<arrow::Schema> schema, const ParquetWriteOptions& options,
    std::vector<Column> columns) {
  if (columns.empty() || static_cast<size_t>(schema->num_fields()) != columns.size()) {
    return Status::Invalid("a spliced file needs one source column per field");
  }
  std::unique_ptr<ParquetPageSplice> out(new ParquetPageSplice());
  Impl* impl = out->impl_.get();
  impl->schema = std::move(schema);
  impl->options = options;
  ARROW_ASSIGN_OR_RAISE(impl->setup, format_internal::MakeWriterSetup(impl->schema, options));
  ARROW_RETURN_NOT_OK(CatchParquet("<new file>", [&]() -> Status {
    impl->parquet_schema.Init(impl->setup.root);
    return Status::OK();
  }));
  // Flat columns only: one leaf per field.
  if (impl->parquet_schema.num_columns() != impl->schema->num_fields()) return nullptr;
  impl->columns.resize(columns.size());
  bool copies = false;
  for (size_t c = 0; c < columns.size(); ++c) {
    Impl::ColumnPlan& plan = impl->columns[c];
    ARROW_ASSIGN_OR_RAISE(bool copied, impl->PlanColumn(c, columns[c], &plan));
    copies = copies || copied;
    if (copied) continue;
    // A column whose pages cannot be copied is re-encoded whole, if the file's statistics
    // can still be merged from its new pages' (fixed-width values).
    plan = Impl::ColumnPlan();
    plan.whole = true;
    if (!SplicedPhysicalType(impl->parquet_schema.Column(static_cast<int>(c))->physical_type())) {
      return nullptr;
    }
    const int64_t rows = columns[c].source->num_rows();
    if (impl->num_rows >= 0 && rows != impl->num_rows) return nullptr;
    impl->num_rows = rows;
    plan.rewritten.push_back({0, rows - 1});
  }
  // Nothing copied: the whole write is as good.
  if (!copies || impl->num_rows <= 0) return nullptr;
  return out;
}

Result<bool> ParquetPageSplice::Impl::PlanColumn(size_t c, const Column& column, ColumnPlan* plan) {
  const ParquetFileReader::Impl* source = column.source->impl_.get();
  bool spliced = false;
  ARROW_RETURN_NOT_OK(CatchParquet(source->path, [&]() -> Status {
    auto metadata = source->reader->parquet_reader()->metadata();
    if (metadata->num_row_groups() != 1) return Status::OK();
    const int64_t rows = metadata->num_rows();
    if (num_rows >= 0 && rows != num_rows) return Status::OK();
    num_rows = rows;
    const int field = source->schema->GetFieldIndex(column.name);
    if (field < 0 || !source->schema->field(field)->type()->Equals(*schema->field(c)->type())) {
      return Status::OK();
    }
    const auto& manifest = source->reader->manifest();
    if (static_cast<size_t>(field) >= manifest.schema_fields.size() ||
        !manifest.schema_fields[field].is_leaf()) {
      return Status::OK();
    }
    const int leaf = manifest.schema_fields[field].column_index;
    const parquet::ColumnDescriptor* in = metadata->schema()->Column(leaf);
    const parquet::ColumnDescriptor* out = parquet_schema.Column(static_cast<int>(c));
    if (!SplicedPhysicalType(in->physical_type()) || in->physical_type() != out->physical_type() ||
        in->max_repetition_level() != 0 || out->max_repetition_level() != 0 ||
        in->max_definition_level() != out->max_definition_level() ||
        !in->logical_type()->Equals(*out->logical_type())) {
      return Status::OK();
    }
    auto chunk = metadata->RowGroup(0)->ColumnChunk(leaf);
    if (chunk->crypto_metadata() != nullptr ||
        chunk->compression() != setup.properties->compression(out->path()) ||
        !chunk->GetColumnIndexLocation().has_value() ||
        !chunk->GetOffsetIndexLocation().has_value()) {
      return Status::OK();
    }
    auto page_index = parquet::PageIndexReader::Make(
        source->file.get(), metadata, format_internal::VerifyingReaderProperties(source->pool));
    if (page_index == nullptr) return Status::OK();
    auto group_index = page_index->RowGroup(0);
    if (group_index == nullptr) return Status::OK();
    auto column_index = group_index->GetColumnIndex(leaf);
    auto offset_index = group_index->GetOffsetIndex(leaf);
    if (column_index == nullptr || offset_index == nullptr || !column_index->has_null_counts()) {
      return Status::OK();
    }
    const auto& locations = offset_index->page_locations();
    if (locations.size() < 2) return Status::OK();
    // Which pages hold a changed row; splicing pays while at most half of them do.
    std::vector<bool> changed(locations.size(), false);
    size_t changed_pages = 0;
    for (int64_t position : column.positions) {
      if (position < 0 || position >= rows) {
        return Status::Invalid("row ", position, " is outside the file's ", rows, " rows");
      }
      auto it = std::upper_bound(
          locations.begin(), locations.end(), position,
          [](int64_t row, const parquet::PageLocation& l) { return row < l.first_row_index; });
      const size_t p = static_cast<size_t>(it - locations.begin()) - 1;
      if (!changed[p]) ++changed_pages;
      changed[p] = true;
    }
    if (changed_pages == 0 || changed_pages * 2 > locations.size()) return Status::OK();

    // Each data page's rows, bounds and null counts, from the index read above; checked before
    // the chunk is read, so that a chunk that cannot be spliced costs no I/O.
    std::vector<ParquetFileReader::Segment> bounds;
    if (!format_internal::AppendPageSegments(group_index.get(), leaf, in, *schema->field(c)->type(),
                                             0, rows, source->pool, &bounds) ||
        bounds.size() != locations.size()) {
      return Status::OK();
    }
    const int64_t start = format_internal::ChunkStart(*chunk);
    ARROW_ASSIGN_OR_RAISE(plan->chunk, source->file->ReadAt(start, chunk->total_compressed_size()));
    if (plan->chunk->size() != chunk->total_compressed_size()) return Status::OK();
    auto pages = WalkPages(*plan->chunk, start, locations, rows);
    if (!pages || !AttachStats(*column_index, &*pages)) return Status::OK();
    plan->pages = std::move(*pages);

    // Copied pages are not decoded, so their CRCs (where the writer left one) are checked
    // here: damage the whole write would have met while decoding must not be copied along.
    size_t data_page = 0;
    for (const Page& page : plan->pages) {
      bool copied = true;
      if (!page.is_dictionary()) copied = !changed[data_page++];
      if (!copied || !page.header.has_crc) continue;
      const uint8_t* body = plan->chunk->data() + page.offset + page.header.header_size;
      if (arrow::internal::crc32(0, body, page.header.compressed_size) != page.header.crc) {
        return Status::IOError("cannot read Parquet file '", source->path,
                               "': CRC checksum verification failed for the page at offset ",
                               start + page.offset);
      }
    }
    size_t p = 0;
    for (auto& page : plan->pages) {
      if (page.is_dictionary()) continue;
      const auto& segment = bounds[p];
      if (segment.rows.from != page.first_row || segment.rows.count() != page.rows) {
        return Status::OK();
      }
      page.changed = changed[p++];
      if (page.changed) {
        const RowRange rows_of_page{page.first_row, page.first_row + page.rows - 1};
        if (!plan->rewritten.empty() && plan->rewritten.back().to + 1 == page.first_row) {
          plan->rewritten.back().to = rows_of_page.to;
        } else {
          plan->rewritten.push_back(rows_of_page);
        }
        continue;
      }
      const bool all_null = segment.null_count && *segment.null_count == page.rows;
      if (!segment.null_count || (!all_null && (!segment.min || !segment.max))) {
        return Status::OK();  // bounds the new file's statistics could not be built from
      }
      plan->copied.push_back(segment);
    }
    spliced = true;
    return Status::OK();
  }));
  return spliced;
}

Result<std::vector<Page>> ParquetPageSplice::Impl::Encode(
    size_t c, const RowRange& rows, const std::shared_ptr<arrow::Array>& values,
    std::shared_ptr<arrow::Buffer>* bytes) const {
  if (values->length() != rows.count() || !values->type()->Equals(*schema->field(c)->type())) {
    return Status::Invalid("the new values of rows [", rows.from, ", ", rows.to, "] of column '",
                           schema->field(c)->name(), "' are ", values->length(), " values of ",
                           values->type()->ToString());
  }
  // One row group. PLAIN pages among copied ones (a dictionary page of their own could not
  // join the chunk's); a column re-encoded whole is written as any new file's.
  ParquetWriteOptions options_one = options;
  if (!columns[c].whole) options_one.plain_columns = {schema->field(c)->name()};
  options_one.row_group_size_rows = std::max<int64_t>(1, rows.count());
  options_one.write_page_index = true;
  options_one.encode_columns_in_parallel = false;
  auto one_schema = arrow::schema({schema->field(c)});
  ARROW_ASSIGN_OR_RAISE(auto stream, arrow::io::BufferOutputStream::Create(1 << 16, options.pool));
  ARROW_ASSIGN_OR_RAISE(auto writer, ParquetFileWriter::Open(stream, one_schema, options_one));
  ARROW_RETURN_NOT_OK(writer->Write(*arrow::RecordBatch::Make(one_schema, rows.count(), {values})));
  ARROW_RETURN_NOT_OK(writer->Close());
  ARROW_ASSIGN_OR_RAISE(auto file, stream->Finish());
  std::vector<Page> pages;
  ARROW_RETURN_NOT_OK(CatchParquet("<new file>", [&]() -> Status {
    auto reader = parquet::ParquetFileReader::Open(std::make_shared<arrow::io::BufferReader>(file));
    auto metadata = reader->metadata();
    auto chunk = metadata->RowGroup(0)->ColumnChunk(0);
    auto index = reader->GetPageIndexReader();
    auto group_index = index ? index->RowGroup(0) : nullptr;
    auto column_index = group_index ? group_index->GetColumnIndex(0) : nullptr;
    auto offset_index = group_index ? group_index->GetOffsetIndex(0) : nullptr;
    if (metadata->num_row_groups() != 1 || (chunk->has_dictionary_page() && !columns[c].whole) ||
        !column_index || !offset_index) {
      return Status::Invalid("internal: re-encoded pages without their page index");
    }
    const int64_t start = format_internal::ChunkStart(*chunk);
    *bytes = arrow::SliceBuffer(file, start, chunk->total_compressed_size());
    auto walked = WalkPages(**bytes, start, offset_index->page_locations(), rows.count());
    if (!walked || !AttachStats(*column_index, &*walked)) {
      return Status::Invalid("internal: re-encoded pages disagree with their page index");
    }
    pages = std::move(*walked);
    return Status::OK();
  }));
  for (auto& page : pages) page.first_row += rows.from;
  return pages;
}

Status ParquetPageSplice::Write(
    const std::shared_ptr<arrow::io::OutputStream>& sink,
    const std::vector<std::vector<std::shared_ptr<arrow::Array>>>& values) {
  Impl* impl = impl_.get();
  if (values.size() != impl->columns.size()) {
    return Status::Invalid("new values for ", values.size(), " columns of a spliced file of ",
                           impl->columns.size());
  }
  for (size_t c = 0; c < values.size(); ++c) {
    if (values[c].size() != impl->columns[c].rewritten.size()) {
      return Status::Invalid("new values for ", values[c].size(), " runs of rows of column '",
                             impl->schema->field(static_cast<int>(c))->name(), "', which has ",
                             impl->columns[c].rewritten.size());
    }
  }
  // The re-encoded pages first: a failure leaves the sink untouched.
  std::vector<std::vector<std::vector<Page>>> encoded(values.size());
  std::vector<std::vector<std::shared_ptr<arrow::Buffer>>> encoded_bytes(values.size());
  for (size_t c = 0; c < values.size(); ++c) {
    for (size_t k = 0; k < values[c].size(); ++k) {
      std::shared_ptr<arrow::Buffer> bytes;
      ARROW_ASSIGN_OR_RAISE(auto pages,
                            impl->Encode(c, impl->columns[c].rewritten[k], values[c][k], &bytes));
      encoded[c].push_back(std::move(pages));
      encoded_bytes[c].push_back(std::move(bytes));
    }
  }
  return CatchParquet("<new file>", [&]() -> Status {
    ARROW_RETURN_NOT_OK(sink->Write("PAR1", 4));
    auto file_builder =
        parquet::FileMetaDataBuilder::Make(&impl->parquet_schema, impl->setup.properties);
    auto* group_builder = file_builder->AppendRowGroup();
    std::unique_ptr<parquet::PageIndexBuilder> page_index;
    if (impl->options.write_page_index) {
      page_index = parquet::PageIndexBuilder::Make(&impl->parquet_schema);
      page_index->AppendRowGroup();
    }
    int64_t group_bytes = 0;
    for (size_t c = 0; c < impl->columns.size(); ++c) {
      const auto& plan = impl->columns[c];
      auto* chunk_builder = group_builder->NextColumnChunk();
      const parquet::ColumnDescriptor* descr = chunk_builder->descr();
      ChunkStats chunk_stats(descr, impl->options.pool);
      std::map<parquet::Encoding::type, int32_t> dict_encodings, data_encodings;
      int64_t dictionary_offset = 0, data_offset = -1, compressed = 0, uncompressed = 0;
      int64_t num_values = 0;
      // Appends one page (its bytes at `data`) to the chunk.
      auto append = [&](const Page& page, const uint8_t* data) -> Status {
        ARROW_ASSIGN_OR_RAISE(int64_t position, sink->Tell());
        ARROW_RETURN_NOT_OK(sink->Write(data, page.length));
        compressed += page.length;
        uncompressed += page.uncompressed;
        const auto encoding = static_cast<parquet::Encoding::type>(page.header.encoding);
        if (page.is_dictionary()) {
          dictionary_offset = position;
          ++dict_encodings[encoding];
          return Status::OK();
        }
        if (data_offset < 0) data_offset = position;
        ++data_encodings[encoding];
        num_values += page.header.num_values;
        chunk_stats.Add(page.stats, page.rows);
        if (page_index) {
          page_index->GetOffsetIndexBuilder(static_cast<int32_t>(c))
              ->AddPage(position, static_cast<int32_t>(page.length), page.first_row);
          page_index->GetColumnIndexBuilder(static_cast<int32_t>(c))
              ->AddPage(page.stats, parquet::SizeStatistics{});
        }
        return Status::OK();
      };
      if (plan.whole) {
        for (const Page& fresh : encoded[c][0]) {
          ARROW_RETURN_NOT_OK(append(fresh, encoded_bytes[c][0]->data() + fresh.offset));
        }
      }
      size_t run = 0;
      for (const Page& page : plan.pages) {
        if (!page.changed) {
          ARROW_RETURN_NOT_OK(append(page, plan.chunk->data() + page.offset));
          continue;
        }
        // The first changed page of a run brings the run's new pages; the others none.
        if (run < plan.rewritten.size() && plan.rewritten[run].from == page.first_row) {
          for (const Page& fresh : encoded[c][run]) {
            ARROW_RETURN_NOT_OK(append(fresh, encoded_bytes[c][run]->data() + fresh.offset));
          }
          ++run;
        }
      }
      if (page_index) {
        page_index->GetOffsetIndexBuilder(static_cast<int32_t>(c))->Finish(0);
        page_index->GetColumnIndexBuilder(static_cast<int32_t>(c))->Finish();
      }
      const bool has_dictionary = !dict_encodings.empty();
      const bool fallback = has_dictionary && data_encodings.count(parquet::Encoding::PLAIN) > 0;
      chunk_builder->SetStatistics(chunk_stats.Encode());
      chunk_builder->Finish(num_values, dictionary_offset, /*index_page_offset=*/-1, data_offset,
                            compressed, uncompressed, has_dictionary, fallback, dict_encodings,
                            data_encodings);
      group_bytes += uncompressed;
    }
    group_builder->set_num_rows(impl->num_rows);
    group_builder->Finish(group_bytes, /*row_group_ordinal=*/0);
    if (page_index) {
      page_index->Finish();
      const auto locations = page_index->WriteTo(sink.get());
      file_builder->SetIndexLocations(parquet::IndexKind::kColumnIndex,
                                      locations.column_index_locations);
      file_builder->SetIndexLocations(parquet::IndexKind::kOffsetIndex,
                                      locations.offset_index_locations);
    }
    auto metadata = file_builder->Finish();
    parquet::WriteFileMetaData(*metadata, sink.get());
    return sink->Close();
  });
}

}  // namespace paimon_rowid
