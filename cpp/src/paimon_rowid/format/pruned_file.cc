#include "paimon_rowid/format/pruned_file.h"

#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "arrow/buffer.h"
#include "arrow/io/memory.h"
#include "paimon_rowid/format/parquet_internal.h"
#include "parquet/exception.h"
#include "parquet/metadata.h"
#include "parquet/properties.h"

namespace paimon_rowid::format_internal {
namespace {

// Holes between wanted pages up to this size are read rather than skipped: one request
// instead of two costs less than a small hole (Arrow's own read coalescing uses 8 KiB).
constexpr int64_t kMaxReadHole = 8 * 1024;

class PrunedFile;

// A row group whose column page readers follow the plans.
class PrunedRowGroup : public parquet::RowGroupReader::Contents {
 public:
  PrunedRowGroup(PrunedFile* file, int index, std::shared_ptr<parquet::RowGroupReader> inner)
      : file_(file), index_(index), inner_(std::move(inner)) {}

  std::unique_ptr<parquet::PageReader> GetColumnPageReader(int leaf) override;
  const parquet::RowGroupMetaData* metadata() const override { return inner_->metadata(); }
  const parquet::ReaderProperties* properties() const override;

 private:
  PrunedFile* file_;
  int index_;
  std::shared_ptr<parquet::RowGroupReader> inner_;
};

// Wraps the library's own file contents; only page readers differ. The plans are owned by
// the read that made this object and outlive it.
class PrunedFile : public parquet::ParquetFileReader::Contents {
 public:
  PrunedFile(std::unique_ptr<parquet::ParquetFileReader::Contents> inner,
             std::shared_ptr<arrow::io::RandomAccessFile> file, LeafPlans* plans,
             ParquetReadStats* stats, arrow::MemoryPool* pool)
      : inner_(std::move(inner)),
        file_(std::move(file)),
        plans_(plans),
        stats_(stats),
        pool_(pool),
        properties_(VerifyingReaderProperties(pool)) {
    auto md = inner_->metadata();
    always_compressed_ = md->writer_version().VersionLt(
        parquet::ApplicationVersion::PARQUET_CPP_10353_FIXED_VERSION());
  }

  void Close() override { inner_->Close(); }
  std::shared_ptr<parquet::RowGroupReader> GetRowGroup(int i) override {
    return std::make_shared<parquet::RowGroupReader>(
        std::make_unique<PrunedRowGroup>(this, i, inner_->GetRowGroup(i)));
  }
  std::shared_ptr<parquet::FileMetaData> metadata() const override { return inner_->metadata(); }
  std::shared_ptr<parquet::PageIndexReader> GetPageIndexReader() override {
    return inner_->GetPageIndexReader();
  }
  parquet::BloomFilterReader& GetBloomFilterReader() override {
    return inner_->GetBloomFilterReader();
  }

  const parquet::ReaderProperties* properties() const { return &properties_; }

  // See SparseReadersFor in pruned_file.h.
  SparseReaders SparseReadersFor(int row_group, int leaf) {
    auto inner = inner_->GetRowGroup(row_group);
    const auto col = inner->metadata()->ColumnChunk(leaf);
    auto it = plans_->find({row_group, leaf});
    LeafPlan* plan = it == plans_->end() ? nullptr : &it->second;
    const int64_t start = ChunkStart(*col);
    int64_t data_start = col->data_page_offset();
    if (plan != nullptr && plan->mode == LeafMode::kPages) {
      data_start = plan->locations.front().offset;
    }
    // Before PARQUET-816, parquet-mr left the dictionary page out of the chunk's size: the
    // library pads the read, which a split here would not. Encrypted pages need the
    // library's decryptors.
    const bool split = col->has_dictionary_page() && col->dictionary_page_offset() == start &&
                       start < data_start && data_start == col->data_page_offset() &&
                       !inner_->metadata()->writer_version().VersionLt(
                           parquet::ApplicationVersion::PARQUET_816_FIXED_VERSION()) &&
                       !inner_->metadata()->is_encryption_algorithm_set();
    if (!split) return {nullptr, PageReaderFor(row_group, leaf, inner.get())};
    const int64_t prefix = data_start - start;
    std::shared_ptr<arrow::Buffer> bytes;
    if (plan != nullptr && plan->mode == LeafMode::kPages) {
      bytes = CompactedBytes(*plan, *col);
    } else {
      const int64_t total = col->total_compressed_size();
      PARQUET_ASSIGN_OR_THROW(bytes, file_->ReadAt(start, total));
      if (bytes->size() != total) {
        throw parquet::ParquetException("column chunk is truncated (read " +
                                        std::to_string(bytes->size()) + " of " +
                                        std::to_string(total) + " bytes)");
      }
      if (total <= prefix) {
        throw parquet::ParquetException("column chunk metadata puts its data pages at " +
                                        std::to_string(prefix) + " bytes into a chunk of " +
                                        std::to_string(total));
      }
    }
    SparseReaders out;
    out.dictionary = OpenPages(arrow::SliceBuffer(bytes, 0, prefix), *col);
    out.data = OpenPages(arrow::SliceBuffer(bytes, prefix, bytes->size() - prefix), *col);
    if (plan != nullptr && plan->mode == LeafMode::kPages) {
      CheckPageRows(*plan, *inner->metadata()->schema()->Column(leaf), out.data.get());
    } else if (plan != nullptr && plan->mode == LeafMode::kFilter) {
      InstallPageFilter(plan, out.data.get());
    }
    return out;
  }

  std::unique_ptr<parquet::PageReader> PageReaderFor(int row_group, int leaf,
                                                     parquet::RowGroupReader* inner) {
    auto it = plans_->find({row_group, leaf});
    if (it == plans_->end() || it->second.mode == LeafMode::kWhole) {
      return inner->GetColumnPageReader(leaf);
    }
    LeafPlan& plan = it->second;
    if (plan.mode == LeafMode::kFilter) return FilteredReader(&plan, leaf, inner);
    return CompactedReader(plan, *inner->metadata()->ColumnChunk(leaf),
                           *inner->metadata()->schema()->Column(leaf));
  }

 private:
  // The library's reader over the whole chunk, dropping pages that hold no wanted row.
  std::unique_ptr<parquet::PageReader> FilteredReader(LeafPlan* plan, int leaf,
                                                      parquet::RowGroupReader* inner) {
    auto reader = inner->GetColumnPageReader(leaf);
    InstallPageFilter(plan, reader.get());
    return reader;
  }

  // Makes `reader` skip (without decompressing) the data pages that hold no wanted row of
  // `plan`, recording the rows of the pages it keeps in plan->kept.
  static void InstallPageFilter(LeafPlan* plan, parquet::PageReader* reader) {
    plan->kept.clear();
    plan->filter_pages_seen = 0;
    plan->filter_pages_kept = 0;
    struct Cursor {
      int64_t row = 0;
      size_t next = 0;
    };
    auto cursor = std::make_shared<Cursor>();
    reader->set_data_page_filter([plan, cursor](const parquet::DataPageStats& page) {
      // Without repetition a page's values are its rows (V1 counts nulls as values).
      const int64_t n = page.num_rows.has_value() ? *page.num_rows : page.num_values;
      const int64_t lo = cursor->row;
      const int64_t hi = lo + n - 1;
      cursor->row += n;
      ++plan->filter_pages_seen;
      const auto& wanted = *plan->wanted;
      while (cursor->next < wanted.size() && wanted[cursor->next].to < lo) ++cursor->next;
      const bool keep = n > 0 && cursor->next < wanted.size() && wanted[cursor->next].from <= hi;
      if (!keep) return true;
      ++plan->filter_pages_kept;
      AppendRows(&plan->kept, lo, hi);
      return false;
    });
  }

  // A reader over a buffer holding the chunk's dictionary prefix and the kept pages only.
  std::unique_ptr<parquet::PageReader> CompactedReader(const LeafPlan& plan,
                                                       const parquet::ColumnChunkMetaData& col,
                                                       const parquet::ColumnDescriptor& descr) {
    auto reader = CompactedPages(plan, col);
    CheckPageRows(plan, descr, reader.get());
    return reader;
  }

  // Page headers carry no checksum, and the rows of a kept page are placed by the offset
  // index: a header whose row count disagrees with it (a flipped bit, a bad writer) would
  // shift values onto other rows. Each kept page's rows (V2 headers) or values (V1, flat
  // leaves: one value per row) must match the index, else the read fails.
  static void CheckPageRows(const LeafPlan& plan, const parquet::ColumnDescriptor& descr,
                            parquet::PageReader* reader) {
    auto expected = std::make_shared<std::vector<int64_t>>();
    for (int p : plan.pages) {
      const auto next = static_cast<size_t>(p) + 1;
      const int64_t end =
          next < plan.locations.size() ? plan.locations[next].first_row_index : plan.rows;
      expected->push_back(end - plan.locations[static_cast<size_t>(p)].first_row_index);
    }
    const bool flat = descr.max_repetition_level() == 0;
    auto seen = std::make_shared<size_t>(0);
    reader->set_data_page_filter([expected, seen, flat](const parquet::DataPageStats& page) {
      const size_t i = (*seen)++;
      std::optional<int64_t> rows = page.num_rows;
      if (!rows && flat) rows = page.num_values;
      if (i >= expected->size() || (rows && *rows != (*expected)[i])) {
        throw parquet::ParquetException(
            "corrupt page header: page " + std::to_string(i) + " of the kept pages holds " +
            (rows ? std::to_string(*rows) : std::string("?")) +
            " rows where the offset index says " +
            (i < expected->size() ? std::to_string((*expected)[i]) : std::string("none")));
      }
      return false;
    });
  }

  std::unique_ptr<parquet::PageReader> CompactedPages(const LeafPlan& plan,
                                                      const parquet::ColumnChunkMetaData& col) {
    // The stream ends after the last kept page: the reader stops there cleanly.
    return OpenPages(CompactedBytes(plan, col), col);
  }

  // A page reader over `bytes`, which hold whole pages of the chunk `col`.
  std::unique_ptr<parquet::PageReader> OpenPages(std::shared_ptr<arrow::Buffer> bytes,
                                                 const parquet::ColumnChunkMetaData& col) {
    return parquet::PageReader::Open(std::make_shared<arrow::io::BufferReader>(std::move(bytes)),
                                     col.num_values(), col.compression(), properties_,
                                     always_compressed_);
  }

  // The chunk's dictionary prefix and its kept pages, in order, in one buffer.
  std::shared_ptr<arrow::Buffer> CompactedBytes(const LeafPlan& plan,
                                                const parquet::ColumnChunkMetaData& col) {
    struct Piece {
      int64_t offset;
      int64_t length;
    };
    std::vector<Piece> pieces;
    const int64_t start = ChunkStart(col);
    if (plan.locations.front().offset > start) {
      pieces.push_back({start, plan.locations.front().offset - start});
    }
    for (int p : plan.pages) {
      const auto& l = plan.locations[p];
      if (!pieces.empty() && pieces.back().offset + pieces.back().length == l.offset) {
        pieces.back().length += l.compressed_page_size;
      } else {
        pieces.push_back({l.offset, l.compressed_page_size});
      }
    }
    int64_t total = 0;
    for (const auto& piece : pieces) total += piece.length;
    if (pieces.size() == 1) {  // dictionary and pages in one run: read it, copy nothing
      PARQUET_ASSIGN_OR_THROW(auto bytes, file_->ReadAt(pieces[0].offset, total));
      if (bytes->size() != total) {
        throw parquet::ParquetException("column chunk is truncated (read " +
                                        std::to_string(bytes->size()) + " of " +
                                        std::to_string(total) + " bytes)");
      }
      if (stats_ != nullptr) stats_->bytes_fetched_by_index += total;
      return bytes;
    }
    PARQUET_ASSIGN_OR_THROW(auto buffer, arrow::AllocateBuffer(total, pool_));
    uint8_t* out = buffer->mutable_data();
    // Read pieces separated by small holes in one request each.
    for (size_t i = 0; i < pieces.size();) {
      size_t j = i + 1;
      while (j < pieces.size() &&
             pieces[j].offset - (pieces[j - 1].offset + pieces[j - 1].length) <= kMaxReadHole) {
        ++j;
      }
      const int64_t from = pieces[i].offset;
      const int64_t length = pieces[j - 1].offset + pieces[j - 1].length - from;
      PARQUET_ASSIGN_OR_THROW(auto bytes, file_->ReadAt(from, length));
      if (bytes->size() != length) {
        throw parquet::ParquetException("column chunk is truncated (read " +
                                        std::to_string(bytes->size()) + " of " +
                                        std::to_string(length) + " bytes)");
      }
      for (size_t k = i; k < j; ++k) {
        std::memcpy(out, bytes->data() + (pieces[k].offset - from), pieces[k].length);
        out += pieces[k].length;
      }
      if (stats_ != nullptr) stats_->bytes_fetched_by_index += length;
      i = j;
    }
    return std::shared_ptr<arrow::Buffer>(std::move(buffer));
  }

  std::unique_ptr<parquet::ParquetFileReader::Contents> inner_;
  std::shared_ptr<arrow::io::RandomAccessFile> file_;
  LeafPlans* plans_;
  ParquetReadStats* stats_;
  arrow::MemoryPool* pool_;
  // The compacted buffers hold whole pages (header and body), so their CRCs are checked
  // exactly as in a full read.
  parquet::ReaderProperties properties_;
  bool always_compressed_ = false;
};

std::unique_ptr<parquet::PageReader> PrunedRowGroup::GetColumnPageReader(int leaf) {
  return file_->PageReaderFor(index_, leaf, inner_.get());
}

const parquet::ReaderProperties* PrunedRowGroup::properties() const { return file_->properties(); }

}  // namespace

std::unique_ptr<parquet::ParquetFileReader::Contents> MakePrunedFile(
    std::unique_ptr<parquet::ParquetFileReader::Contents> inner,
    std::shared_ptr<arrow::io::RandomAccessFile> file, LeafPlans* plans, ParquetReadStats* stats,
    arrow::MemoryPool* pool) {
  return std::make_unique<PrunedFile>(std::move(inner), std::move(file), plans, stats, pool);
}

SparseReaders SparseReadersFor(parquet::ParquetFileReader::Contents* pruned, int row_group,
                               int leaf) {
  return static_cast<PrunedFile*>(pruned)->SparseReadersFor(row_group, leaf);
}

}  // namespace paimon_rowid::format_internal
