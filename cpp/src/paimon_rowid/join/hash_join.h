// An inner equi hash join over Arrow record batch streams, in our own code.
//
// Why not Acero (or pyarrow's Table.join, which is Acero): its hash join refuses nested
// payload columns ("Data type list<...> is not supported in join non-key field"), and Paimon
// tables carry ARRAY, MAP, ROW, VECTOR (fixed_size_list) and BLOB payloads. Here only the key
// columns are looked at; every payload column is gathered with arrow::compute::Take, so any
// Arrow type Take supports passes through.
//
// Modes: one side is the BUILD side, read completely and indexed; the other is the PROBE side,
// pulled one batch at a time as the output is pulled. Memory is the build side (its columns,
// concatenated into one array each; while concatenating, its batches are held too) plus
// 32-48 bytes of index per build row (hash, chain link, 2-4 slots of 8 bytes) plus one probe
// batch plus one output batch. A probe row that matches many build rows is emitted in pieces
// of at most `batch_rows` rows, so fan-out does not grow an output batch beyond that. One
// build column must fit one Arrow array (e.g. < 2 GiB of utf8 data; use large_utf8 beyond).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

struct HashJoinOptions {
  /// Every buffer of the build side, its index and the output comes from this pool.
  arrow::MemoryPool* pool = arrow::default_memory_pool();
  /// The side read completely. kAuto builds the left side; callers that know the sizes (e.g.
  /// bucket_join, from split row counts) pass the smaller side explicitly.
  enum class Build { kAuto, kLeft, kRight } build = Build::kAuto;
  /// Upper bound of the rows of one output batch (> 0).
  int64_t batch_rows = 64 * 1024;
};

/// Inner equi join of `left` and `right` on left_keys[i] == right_keys[i] for every i.
///
/// Output schema: every left field (left order), then every right field not in `right_keys`
/// (right order); keys appear once, with the left names and types. Field names are not
/// de-duplicated: a left and a right payload column of the same name both appear (callers
/// that care reject that first). Rows: every (left, right) pair whose keys are all equal;
/// many-to-many pairs fan out. A NULL in any key column never matches. Floating-point keys
/// compare by value with -0.0 == 0.0 and NaN == NaN. Output order is unspecified.
///
/// Keys: one or more columns, each of an atomic type (integers, floats, bool, utf8/binary and
/// their large forms, fixed_size_binary, date, time, timestamp, duration, decimal);
/// left_keys[i] and right_keys[i] must have equal Arrow types. (View types are refused: Arrow
/// 22's Take has no kernel for them; as payload they fail the same way at ReadNext.)
///
/// Errors (returned here, before any output): Invalid when the key lists are empty, differ in
/// length, name a column that is missing or ambiguous, or batch_rows <= 0; TypeError when a
/// key pair's types differ or a key type is not atomic; any error of reading the build side.
/// Errors of the probe side surface from ReadNext of the returned reader.
///
/// The build side is read here (this call blocks until it is exhausted); the probe side is
/// read lazily by the returned reader, which owns both inputs. The reader is not thread-safe.
/// Empty inputs give a reader of the output schema that yields no batch.
Result<std::shared_ptr<arrow::RecordBatchReader>> HashJoinInner(
    std::shared_ptr<arrow::RecordBatchReader> left, std::shared_ptr<arrow::RecordBatchReader> right,
    std::vector<std::string> left_keys, std::vector<std::string> right_keys,
    const HashJoinOptions& options = {});

}  // namespace paimon_rowid
