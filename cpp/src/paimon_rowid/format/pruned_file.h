// Parquet file contents whose column page readers follow a read's plans (page_selection.cc):
// a chunk is read whole, through its offset index (only the kept pages, compacted into one
// buffer with the dictionary prefix), or with a page filter that skips the pages holding no
// wanted row without decompressing them. Internal to format/ (parquet headers).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "arrow/io/interfaces.h"
#include "arrow/memory_pool.h"
#include "paimon_rowid/common/row_range.h"
#include "paimon_rowid/format/page_selection.h"
#include "parquet/column_reader.h"
#include "parquet/file_reader.h"
#include "parquet/page_index.h"

namespace paimon_rowid::format_internal {

enum class LeafMode { kWhole, kPages, kFilter };

// How one column chunk (row group x leaf) is read, and which of its rows come out.
struct LeafPlan {
  LeafMode mode = LeafMode::kWhole;
  int64_t rows = 0;  // rows of the row group
  // kPages: the chunk's page locations (copied out of the page index) and the kept ordinals.
  std::vector<parquet::PageLocation> locations;
  std::vector<int> pages;
  // kFilter: the wanted rows (row-group relative), owned by the read.
  const std::vector<RowRange>* wanted = nullptr;
  // Rows the decoder yields, row-group relative, merged. Known up front for kWhole and
  // kPages; filled page by page while reading for kFilter.
  std::vector<RowRange> kept;
  int64_t filter_pages_seen = 0;
  int64_t filter_pages_kept = 0;
};

inline void AppendRows(std::vector<RowRange>* spans, int64_t from, int64_t to) {
  if (!spans->empty() && spans->back().to + 1 >= from) {
    spans->back().to = std::max(spans->back().to, to);
  } else {
    spans->push_back({from, to});
  }
}

inline int64_t CountRows(const std::vector<RowRange>& spans) {
  int64_t n = 0;
  for (const auto& s : spans) n += s.count();
  return n;
}

struct PlanKey {
  int row_group;
  int leaf;
  bool operator<(const PlanKey& o) const {
    return row_group != o.row_group ? row_group < o.row_group : leaf < o.leaf;
  }
};

using LeafPlans = std::map<PlanKey, LeafPlan>;

/// Wraps the library's own file contents `inner`; only page readers differ, following
/// `plans` (owned by the read, which outlives the result). Reads through `file`, counting
/// into `stats` (may be null); buffers from `pool`.
std::unique_ptr<parquet::ParquetFileReader::Contents> MakePrunedFile(
    std::unique_ptr<parquet::ParquetFileReader::Contents> inner,
    std::shared_ptr<arrow::io::RandomAccessFile> file, LeafPlans* plans, ParquetReadStats* stats,
    arrow::MemoryPool* pool);

/// The readers GatherSparsePages takes for a chunk: its dictionary page alone, and the data
/// pages the plan keeps, so that the dictionary is read in place (sparse_pages.h). Without a
/// dictionary page, or when the chunk's offsets do not mark where it ends, `dictionary` is
/// null and `data` is the plan's reader of every page.
struct SparseReaders {
  std::unique_ptr<parquet::PageReader> dictionary;
  std::unique_ptr<parquet::PageReader> data;
};

/// SparseReaders of one chunk of `pruned`, which MakePrunedFile made.
SparseReaders SparseReadersFor(parquet::ParquetFileReader::Contents* pruned, int row_group,
                               int leaf);

}  // namespace paimon_rowid::format_internal
