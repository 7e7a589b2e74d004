// Min/max/null-count statistics over Arrow columns, encoded as Paimon SimpleStats (docs/format.md
// §3.5, §3.6): the value stats of data files and the partition stats of manifest files.
// Only atomic types whose BinaryRow layout is defined take part (see SupportsStats); the
// caller decides which columns to collect and in which StatsMode.
//
// Value stats follow Java Paimon's stats modes (`metadata.stats-mode`, default `truncate(16)`,
// and `fields.<name>.stats-mode`): without truncation one long string value would be stored
// twice (min and max) in the manifest, and a 140 MB value made the table unreadable.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/type_fwd.h"
#include "paimon_rowid/catalog/table_options.h"
#include "paimon_rowid/common/options.h"
#include "paimon_rowid/common/status.h"
// EnsureComputeInitialized lives in exec/compute.h; included here for the callers that
// still reach it through this header (python/src/rowid.cc).
#include "paimon_rowid/exec/compute.h"
#include "paimon_rowid/meta/manifest.h"
#include "paimon_rowid/types/data_type.h"

namespace paimon_rowid {

/// True for the Paimon types value stats are collected for: atomic, not VARIANT, not BLOB.
bool SupportsStats(const DataType& type);

// StatsMode and ColumnStatsModes (the table options `metadata.stats-mode`,
// `fields.<name>.stats-mode`, `metadata.stats-keep-first-n-columns`) are parsed in
// catalog/table_options.h, where create_table checks them.

/// The mode a Parquet data file's column effectively gets. Java takes Parquet value stats
/// from the file footer (ParquetSimpleStatsExtractor), which yields no bounds for BINARY /
/// VARBINARY columns: whatever their mode, they keep only the null count.
StatsMode ParquetColumnStatsMode(const DataType& type, StatsMode mode);

/// The first `n` code points of `utf8` (Java's BinaryString.substring(0, n)): a lower bound
/// of every string it prefixes.
std::string_view Utf8Prefix(std::string_view utf8, int32_t n);

/// The least string of at most `n` code points that Java's truncate(n) accepts as an upper
/// bound of `utf8`: `utf8` itself when it has no more than `n` code points, else its prefix
/// with the last code point that can be incremented incremented and what follows dropped.
/// nullopt when no code point can be (all are U+10FFFF; Java then keeps neither bound of the
/// column, and so do we) or the prefix is not valid UTF-8 (no bound is safe to guess).
/// U+D7FF steps to U+E000: Java produces a lone surrogate there, which it encodes as '?', a
/// bound below the value.
std::optional<std::string> Utf8UpperBound(std::string_view utf8, int32_t n);

class StatsCollector {
 public:
  /// One Arrow type per collected column (the types of the arrays passed to Update), and
  /// its mode (empty: full for every column, as partition stats are). Min/max compute and
  /// the bound arrays of Finish allocate from `pool` (not owned; outlives the collector).
  explicit StatsCollector(std::vector<std::shared_ptr<arrow::DataType>> types,
                          std::vector<StatsMode> modes = {},
                          arrow::MemoryPool* pool = arrow::default_memory_pool());

  /// Folds one chunk of each column in (`columns[i]` has type `types[i]`).
  Status Update(const std::vector<std::shared_ptr<arrow::Array>>& columns);
  /// Folds one chunk of column `i` in.
  Status UpdateColumn(size_t i, const std::shared_ptr<arrow::Array>& column);
  /// Folds known bounds of some rows of column `i` in: their `null_count` and, unless they
  /// are all NULL (null `min`/`max`), their least and greatest non-null values (scalars of
  /// the column's type), as a Parquet page index gives them.
  Status UpdateBounds(size_t i, const std::shared_ptr<arrow::Scalar>& min,
                      const std::shared_ptr<arrow::Scalar>& max, int64_t null_count);
  /// Folds single values in (partition values), one scalar per column.
  Status UpdateScalars(const std::vector<std::shared_ptr<arrow::Scalar>>& values);

  /// The stats rows (arity = number of columns). A column without non-null values, or whose
  /// mode keeps no bounds, has null min/max; a `none` column also a null null count.
  Result<SimpleStats> Finish() const;

 private:
  // Folds one (min, max) candidate pair of column i in, truncated per its mode.
  Status Fold(size_t i, const std::shared_ptr<arrow::Scalar>& lo,
              const std::shared_ptr<arrow::Scalar>& hi);
  bool KeepsBounds(size_t i) const;

  std::vector<std::shared_ptr<arrow::DataType>> types_;
  std::vector<StatsMode> modes_;
  arrow::MemoryPool* pool_;
  // Candidate bounds per column: chunk minima/maxima, already truncated. Truncation is
  // monotone, so the bound of the candidates equals the bound of the whole column.
  std::vector<std::vector<std::shared_ptr<arrow::Scalar>>> mins_, maxs_;
  std::vector<int64_t> null_counts_;
  // truncate(N) found a value without an upper bound: Java keeps neither bound then.
  std::vector<bool> no_upper_bound_;
};

}  // namespace paimon_rowid
