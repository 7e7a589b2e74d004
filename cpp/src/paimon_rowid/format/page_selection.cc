#include "paimon_rowid/format/page_selection.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <utility>

#include "arrow/array/builder_primitive.h"
#include "arrow/buffer.h"
#include "arrow/compute/api_vector.h"
#include "arrow/compute/exec.h"
#include "arrow/datum.h"
#include "arrow/io/memory.h"
#include "arrow/memory_pool.h"
#include "paimon_rowid/exec/compute.h"
#include "paimon_rowid/format/parquet_internal.h"
#include "paimon_rowid/format/pruned_file.h"
#include "paimon_rowid/format/sparse_byte_array.h"
#include "paimon_rowid/format/sparse_pages.h"
#include "parquet/arrow/reader.h"
#include "parquet/arrow/schema.h"
#include "parquet/column_reader.h"
#include "parquet/exception.h"
#include "parquet/file_reader.h"
#include "parquet/metadata.h"
#include "parquet/page_index.h"
#include "parquet/properties.h"

namespace paimon_rowid::format_internal {
namespace {

// A flat string/binary column is gathered value by value (sparse_byte_array.h) when at most
// one decoded row in this many is wanted.
constexpr int64_t kSparseRatio = 8;
// A flat column sparse_pages.h reads is gathered from its pages when at most one row in this
// many is wanted: up to half the rows it beats decoding them all and taking the wanted ones
// (1M-row table, 10 files, random rows, interleaved runs: 20% 47-63 -> 37-47 ms, 35%
// 66-81 -> 57-73 ms, 50% no slower).
constexpr int64_t kPageGatherRatio = 2;

// Values per batch when a list of fixed-width values (a VECTOR column) is decoded (8 MiB of
// floats). Decoded in one call, Arrow's record reader grows its value and level buffers by
// doubling to the whole chunk, each step in memory new to the process, which the kernel must
// zero first: 100,000 x 768 floats (3 row groups) cost 1.8-3.7 CPU-seconds read whole, 0.8
// in batches of 4,096 rows, whose buffers the decoder reuses (pyarrow, the same decoder).
constexpr int64_t kListBatchValues = int64_t{2} << 20;

// Whether `type` is a list of fixed-width values (LIST, LARGE_LIST or FIXED_SIZE_LIST).
bool IsFixedWidthList(const arrow::DataType& type) {
  if (type.id() != arrow::Type::LIST && type.id() != arrow::Type::LARGE_LIST &&
      type.id() != arrow::Type::FIXED_SIZE_LIST) {
    return false;
  }
  const auto& value_type = *static_cast<const arrow::BaseListType&>(type).value_type();
  return arrow::is_fixed_width(value_type.id()) && value_type.byte_width() > 0;
}

// Field `field` (one leaf, `leaf`) of row group `row_group`, decoded in batches of about
// kListBatchValues values: one chunk per batch.
Result<std::shared_ptr<arrow::ChunkedArray>> ReadListInBatches(
    parquet::arrow::FileReader* reader, const parquet::FileMetaData& md, int row_group, int leaf,
    const std::shared_ptr<arrow::DataType>& type) {
  const auto chunk = md.RowGroup(row_group)->ColumnChunk(leaf);
  const int64_t rows = md.RowGroup(row_group)->num_rows();
  const int64_t values_per_row = rows > 0 ? std::max<int64_t>(1, chunk->num_values() / rows) : 1;
  reader->set_batch_size(std::max<int64_t>(1, kListBatchValues / values_per_row));
  ARROW_ASSIGN_OR_RAISE(auto batches, reader->GetRecordBatchReader({row_group}, {leaf}));
  arrow::ArrayVector chunks;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(batches->ReadNext(&batch));
    if (batch == nullptr) break;
    if (batch->num_columns() != 1) {
      return Status::IOError("row group ", row_group, " leaf ", leaf, " read as ",
                             batch->num_columns(), " columns");
    }
    chunks.push_back(batch->column(0));
  }
  return arrow::ChunkedArray::Make(std::move(chunks), type);
}

std::vector<int64_t> FirstRows(const std::vector<parquet::PageLocation>& locations) {
  std::vector<int64_t> out;
  out.reserve(locations.size());
  for (const auto& l : locations) out.push_back(l.first_row_index);
  return out;
}

// The rows covered by the given pages, merged.
std::vector<RowRange> PageRows(const std::vector<int64_t>& first_rows, int64_t rows,
                               const std::vector<int>& pages) {
  std::vector<RowRange> out;
  for (int p : pages) {
    int64_t last =
        static_cast<size_t>(p + 1) < first_rows.size() ? first_rows[p + 1] - 1 : rows - 1;
    AppendRows(&out, first_rows[p], last);
  }
  return out;
}

std::vector<RowRange> UnionRows(const std::vector<RowRange>& a, const std::vector<RowRange>& b) {
  // Both are sorted: one linear merge, which SortAndMerge then finds in order.
  std::vector<RowRange> all(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), all.begin(),
             [](const RowRange& x, const RowRange& y) {
               return x.from < y.from || (x.from == y.from && x.to < y.to);
             });
  return SortAndMerge(std::move(all));
}

// An offset index we can rely on: pages in file order inside the chunk, rows ascending from
// 0 inside the row group.
bool UsableLocations(const std::vector<parquet::PageLocation>& locations,
                     const parquet::ColumnChunkMetaData& col, int64_t rows) {
  if (locations.empty() || locations.front().first_row_index != 0) return false;
  const int64_t start = ChunkStart(col);
  const int64_t end = start + col.total_compressed_size();
  int64_t previous_end = start;
  int64_t previous_row = -1;
  for (const auto& l : locations) {
    if (l.offset < previous_end || l.compressed_page_size <= 0 ||
        l.offset + l.compressed_page_size > end || l.first_row_index <= previous_row ||
        l.first_row_index >= rows) {
      return false;
    }
    previous_end = l.offset + l.compressed_page_size;
    previous_row = l.first_row_index;
  }
  return true;
}

// Writers known to start every page on a row boundary when they write an offset index (the
// spec requires it; Arrow C++ enforces it since 12.0, before which it wrote no index).
bool TrustsRowBoundaries(const parquet::FileMetaData& md) {
  const std::string& app = md.writer_version().application_;
  return app == "parquet-cpp-arrow" || app == "parquet-mr" || app == "parquet-java" ||
         app == "parquet-rs";
}

void CollectLeaves(const parquet::arrow::SchemaField& field, std::vector<int>* out) {
  if (field.is_leaf()) {
    out->push_back(field.column_index);
    return;
  }
  for (const auto& child : field.children) CollectLeaves(child, out);
}

// Plans how each leaf of one field is read in one row group.
void PlanField(const parquet::FileMetaData& md, int row_group, const std::vector<int>& leaves,
               const std::vector<RowRange>& wanted,
               const std::shared_ptr<parquet::PageIndexReader>& page_index, LeafPlans* plans) {
  auto rg = md.RowGroup(row_group);
  const int64_t rows = rg->num_rows();
  auto whole = [&]() {
    for (int leaf : leaves) {
      LeafPlan plan;
      plan.rows = rows;
      plan.kept = {{0, rows - 1}};
      (*plans)[{row_group, leaf}] = std::move(plan);
    }
  };
  if (CountRows(wanted) == rows) return whole();
  bool repeated = false;
  bool indexed = page_index != nullptr;
  for (int leaf : leaves) {
    auto col = rg->ColumnChunk(leaf);
    if (col->crypto_metadata() != nullptr) return whole();
    repeated |= md.schema()->Column(leaf)->max_repetition_level() > 0;
    indexed &= col->GetOffsetIndexLocation().has_value();
  }
  std::shared_ptr<parquet::RowGroupPageIndexReader> rg_index;
  if (indexed && (!repeated || TrustsRowBoundaries(md))) rg_index = page_index->RowGroup(row_group);
  if (rg_index != nullptr) {
    std::vector<LeafPlan> leaf_plans;
    for (int leaf : leaves) {
      auto offset_index = rg_index->GetOffsetIndex(leaf);
      if (offset_index == nullptr ||
          !UsableLocations(offset_index->page_locations(), *rg->ColumnChunk(leaf), rows)) {
        leaf_plans.clear();
        break;
      }
      LeafPlan plan;
      plan.mode = LeafMode::kPages;
      plan.rows = rows;
      plan.locations = offset_index->page_locations();
      leaf_plans.push_back(std::move(plan));
    }
    if (!leaf_plans.empty()) {
      // Grow the kept rows until every leaf's kept pages cover exactly the same rows.
      std::vector<RowRange> target = wanted;
      while (true) {
        std::vector<RowRange> grown = target;
        for (auto& plan : leaf_plans) {
          auto first_rows = FirstRows(plan.locations);
          plan.pages = PagesHoldingRows(first_rows, rows, target);
          plan.kept = PageRows(first_rows, rows, plan.pages);
          grown = UnionRows(grown, plan.kept);
        }
        if (grown == target) break;
        target = std::move(grown);
      }
      for (size_t i = 0; i < leaves.size(); ++i) {
        (*plans)[{row_group, leaves[i]}] = std::move(leaf_plans[i]);
      }
      return;
    }
  }
  if (leaves.size() == 1 && !repeated) {
    LeafPlan plan;
    plan.mode = LeafMode::kFilter;
    plan.rows = rows;
    plan.wanted = &wanted;
    (*plans)[{row_group, leaves[0]}] = std::move(plan);
    return;
  }
  whole();
}

// Where each range of `wanted` starts among the decoded rows `kept` (both row-group relative,
// sorted and merged; every wanted row is kept).
Result<std::vector<int64_t>> DecodedStarts(const std::vector<RowRange>& kept,
                                           const std::vector<RowRange>& wanted) {
  std::vector<int64_t> starts;
  starts.reserve(wanted.size());
  size_t span = 0;
  int64_t span_base = 0;  // decoded rows before kept[span]
  for (const auto& r : wanted) {
    while (span < kept.size() && kept[span].to < r.from) {
      span_base += kept[span].count();
      ++span;
    }
    if (span == kept.size() || kept[span].from > r.from || kept[span].to < r.to) {
      return Status::UnknownError("page selection lost rows [", r.from, ", ", r.to, "]");
    }
    starts.push_back(span_base + (r.from - kept[span].from));
  }
  return starts;
}

// When the wanted rows are one run of consecutive decoded rows (a range scan's survivors, or
// ranges whose gaps no kept page holds) covering at least half of them, its first decoded
// row; a slice of the decoded column then replaces the take (no copy, and the rest of the
// decoded pages is small enough to keep alive with it).
std::optional<int64_t> ContiguousRun(const std::vector<RowRange>& wanted,
                                     const std::vector<int64_t>& starts, int64_t decoded_rows) {
  if (wanted.empty()) return std::nullopt;
  for (size_t i = 1; i < wanted.size(); ++i) {
    if (starts[i] != starts[i - 1] + wanted[i - 1].count()) return std::nullopt;
  }
  if (CountRows(wanted) * 2 < decoded_rows) return std::nullopt;
  return starts.front();
}

// The take indices of the wanted rows among the decoded ones.
Result<std::shared_ptr<arrow::Array>> TakeIndices(const std::vector<RowRange>& wanted,
                                                  const std::vector<int64_t>& starts,
                                                  arrow::MemoryPool* pool) {
  arrow::Int64Builder builder(pool);
  ARROW_RETURN_NOT_OK(builder.Reserve(CountRows(wanted)));
  for (size_t i = 0; i < wanted.size(); ++i) {
    for (int64_t k = 0; k < wanted[i].count(); ++k) builder.UnsafeAppend(starts[i] + k);
  }
  return builder.Finish();
}

}  // namespace

parquet::ReaderProperties VerifyingReaderProperties(arrow::MemoryPool* pool) {
  parquet::ReaderProperties p(pool);
  p.set_page_checksum_verification(true);
  return p;
}

std::vector<int> PagesHoldingRows(const std::vector<int64_t>& page_first_rows, int64_t rows,
                                  const std::vector<RowRange>& wanted) {
  std::vector<int> out;
  size_t w = 0;
  for (size_t p = 0; p < page_first_rows.size() && w < wanted.size(); ++p) {
    const int64_t lo = page_first_rows[p];
    const int64_t hi = p + 1 < page_first_rows.size() ? page_first_rows[p + 1] - 1 : rows - 1;
    while (w < wanted.size() && wanted[w].to < lo) ++w;
    if (w < wanted.size() && wanted[w].from <= hi) out.push_back(static_cast<int>(p));
  }
  return out;
}

Result<std::vector<std::shared_ptr<arrow::ChunkedArray>>> ReadSelectedRows(
    const SelectionRead& in, ParquetReadStats* stats) {
  ARROW_RETURN_NOT_OK(EnsureComputeInitialized());
  auto md = in.parquet->metadata();
  const int num_groups = md->num_row_groups();
  const auto& starts = in.row_group_starts;

  // Wanted rows per row group, row-group relative.
  std::vector<std::vector<RowRange>> wanted(num_groups);
  std::vector<int> groups;
  for (int g = 0; g < num_groups; ++g) {
    wanted[g] = IntersectRanges(*in.positions, starts[g], starts[g + 1] - 1);
    if (wanted[g].empty()) continue;
    for (auto& r : wanted[g]) {
      r.from -= starts[g];
      r.to -= starts[g];
    }
    groups.push_back(g);
  }

  std::vector<std::vector<int>> field_leaves;
  std::vector<int32_t> all_leaves;
  for (int f : in.fields) {
    std::vector<int> leaves;
    CollectLeaves(in.manifest->schema_fields[f], &leaves);
    all_leaves.insert(all_leaves.end(), leaves.begin(), leaves.end());
    field_leaves.push_back(std::move(leaves));
  }

  // The page index of the touched chunks, read in one request per row group.
  std::shared_ptr<parquet::PageIndexReader> page_index;
  bool any_index = false;
  for (int g : groups) {
    for (int leaf : all_leaves) {
      any_index |= md->RowGroup(g)->ColumnChunk(leaf)->GetOffsetIndexLocation().has_value();
    }
  }
  if (any_index) {
    // A reader of its own per read: the file's shared one keeps the row-group readers of its
    // first WillNeed, which then refuse the columns of a later read of the same file.
    page_index =
        parquet::PageIndexReader::Make(in.file.get(), md, VerifyingReaderProperties(in.pool));
    if (page_index != nullptr) {
      std::vector<int32_t> rgs(groups.begin(), groups.end());
      parquet::PageIndexSelection selection;
      selection.offset_index = true;
      page_index->WillNeed(rgs, all_leaves, selection);
    }
  }

  LeafPlans plans;
  for (int g : groups) {
    for (const auto& leaves : field_leaves)
      PlanField(*md, g, leaves, wanted[g], page_index, &plans);
  }

  auto contents = MakePrunedFile(
      parquet::ParquetFileReader::Contents::Open(in.file, VerifyingReaderProperties(in.pool), md),
      in.file, &plans, stats, in.pool);
  parquet::ParquetFileReader::Contents* pruned = contents.get();  // owned by parquet_reader
  auto parquet_reader = std::make_unique<parquet::ParquetFileReader>();
  parquet_reader->Open(std::move(contents));
  parquet::ArrowReaderProperties arrow_props;
  arrow_props.set_pre_buffer(false);  // PreBuffer requires the library's own contents
  arrow_props.set_use_threads(false);
  arrow_props.set_io_context(arrow::io::IOContext(in.pool));
  ARROW_ASSIGN_OR_RAISE(
      std::unique_ptr<parquet::arrow::FileReader> reader,
      parquet::arrow::FileReader::Make(in.pool, std::move(parquet_reader), arrow_props));

  arrow::compute::ExecContext ctx(in.pool);
  std::vector<std::shared_ptr<arrow::ChunkedArray>> out;
  for (size_t fi = 0; fi < in.fields.size(); ++fi) {
    const int field = in.fields[fi];
    const auto& leaves = field_leaves[fi];
    std::vector<std::shared_ptr<arrow::Array>> chunks;
    const auto& field_type = in.manifest->schema_fields[field].field->type();
    const parquet::ColumnDescriptor& descr = *md->schema()->Column(leaves.front());
    const bool sparse_candidate = leaves.size() == 1 && IsSparseByteArrayColumn(descr, *field_type);
    for (int g : groups) {
      const LeafPlan& plan = plans.at({g, leaves.front()});
      // Few wanted rows among many decoded ones: gather them without building the rest,
      // from the decompressed pages (sparse_pages.h) when the chunk's encodings allow it.
      const int64_t decoded_rows =
          plan.mode == LeafMode::kFilter ? plan.rows : CountRows(plan.kept);
      const int64_t wanted_rows = CountRows(wanted[g]);
      const bool few = wanted_rows * kSparseRatio <= decoded_rows;
      const bool from_pages =
          wanted_rows * kPageGatherRatio <= decoded_rows && leaves.size() == 1 &&
          IsSparsePageColumn(descr, *md->RowGroup(g)->ColumnChunk(leaves.front()), *field_type);
      const bool sparse = from_pages || (few && sparse_candidate);
      std::shared_ptr<arrow::ChunkedArray> decoded;
      if (from_pages) {
        SparseReaders pages = SparseReadersFor(pruned, g, leaves.front());
        ARROW_ASSIGN_OR_RAISE(auto gathered,
                              GatherSparsePages(pages.data.get(), descr, plan.kept, wanted[g],
                                                field_type, in.pool, pages.dictionary.get()));
        chunks.push_back(std::move(gathered));
        if (stats != nullptr) {
          ++stats->chunks_sparse;
          ++stats->chunks_from_pages;
          if (pages.dictionary != nullptr) ++stats->dictionaries_in_place;
        }
      } else if (sparse) {
        auto column_reader = reader->parquet_reader()->RowGroup(g)->Column(leaves.front());
        ARROW_ASSIGN_OR_RAISE(auto gathered, ReadSparseByteArray(column_reader.get(), plan.kept,
                                                                 wanted[g], field_type, in.pool));
        chunks.push_back(std::move(gathered));
        if (stats != nullptr) ++stats->chunks_sparse;
      } else {
        if (leaves.size() == 1 && IsFixedWidthList(*field_type)) {
          ARROW_ASSIGN_OR_RAISE(
              decoded, ReadListInBatches(reader.get(), *md, g, leaves.front(), field_type));
        } else {
          ARROW_RETURN_NOT_OK(reader->RowGroup(g)->Column(field)->Read(&decoded));
        }
        if (decoded->length() != CountRows(plan.kept)) {
          return Status::IOError("column '", in.manifest->schema_fields[field].field->name(),
                                 "' of row group ", g, " in '", in.path, "' decoded ",
                                 decoded->length(), " rows where its pages hold ",
                                 CountRows(plan.kept));
        }
      }
      if (stats != nullptr) {
        for (int leaf : leaves) {
          const LeafPlan& p = plans.at({g, leaf});
          switch (p.mode) {
            case LeafMode::kWhole:
              ++stats->chunks_whole;
              break;
            case LeafMode::kPages:
              ++stats->chunks_by_index;
              stats->data_pages_total += static_cast<int64_t>(p.locations.size());
              stats->data_pages_decoded += static_cast<int64_t>(p.pages.size());
              break;
            case LeafMode::kFilter:
              ++stats->chunks_by_filter;
              stats->data_pages_total += p.filter_pages_seen;
              stats->data_pages_decoded += p.filter_pages_kept;
              break;
          }
        }
      }
      if (sparse) continue;
      // Every decoded row wanted (every wanted row is kept): no index to build, no take.
      if (CountRows(wanted[g]) == CountRows(plan.kept)) {
        chunks.insert(chunks.end(), decoded->chunks().begin(), decoded->chunks().end());
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto starts, DecodedStarts(plan.kept, wanted[g]));
      if (auto first = ContiguousRun(wanted[g], starts, decoded->length())) {
        auto sliced = decoded->Slice(*first, CountRows(wanted[g]));
        chunks.insert(chunks.end(), sliced->chunks().begin(), sliced->chunks().end());
        if (stats != nullptr) ++stats->chunks_sliced;
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto indices, TakeIndices(wanted[g], starts, in.pool));
      ARROW_ASSIGN_OR_RAISE(arrow::Datum taken,
                            arrow::compute::Take(arrow::Datum(decoded), arrow::Datum(indices),
                                                 arrow::compute::TakeOptions::Defaults(), &ctx));
      const auto& taken_chunks = taken.chunked_array()->chunks();
      chunks.insert(chunks.end(), taken_chunks.begin(), taken_chunks.end());
    }
    ARROW_ASSIGN_OR_RAISE(
        auto column, arrow::ChunkedArray::Make(std::move(chunks),
                                               in.manifest->schema_fields[field].field->type()));
    out.push_back(std::move(column));
  }
  return out;
}

}  // namespace paimon_rowid::format_internal
