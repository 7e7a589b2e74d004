// Which columns a Parquet file should not dictionary-encode.
//
// Arrow's Parquet writer dictionary-encodes every column until its dictionary outgrows the
// dictionary page limit (1 MiB). A column of (nearly) distinct values below that size (ids,
// random keys, hashes, 100k draws from a range of a million) keeps a dictionary as large as
// its data plus an index per value: more bytes written, and hashing on write and a
// dictionary to build on every read spent for nothing. parquet-java falls back to plain
// encoding when a dictionary does not pay for itself; we decide up front, from the values
// of the file's first batch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arrow/record_batch.h"

namespace paimon_rowid {

struct DictionaryChoiceOptions {
  /// Values looked at per column: the first this many non-null ones.
  int64_t sample_values = 4096;
  /// Fewer non-null values than this decide nothing (the dictionary stays).
  int64_t min_values = 256;
  /// At least this share of the sampled values distinct: no dictionary. With 4096 values
  /// drawn from D equally likely ones, 97.5% distinct means D above ~80k, where a
  /// dictionary of 8-byte values plus 17-bit indices no longer beats plain encoding.
  double min_distinct_share = 0.975;
};

/// The top-level columns of `batch` (integers, dates, times, timestamps, decimals, strings
/// and binaries; floating point is never dictionary-encoded by our writer anyway) whose
/// sampled values are nearly all distinct, by name.
std::vector<std::string> NearlyDistinctColumns(const arrow::RecordBatch& batch,
                                               const DictionaryChoiceOptions& options = {});

}  // namespace paimon_rowid
