// Helpers shared by the format tests (test-only; not installed).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "arrow/api.h"
#include "arrow/compute/api_vector.h"
#include "arrow/compute/initialize.h"
#include "paimon_rowid/format/parquet_io.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid::testing {

/// The rows of `full` that `ranges` select, in order: what a selective read must return.
inline std::shared_ptr<arrow::Table> TakeRanges(const std::shared_ptr<arrow::Table>& full,
                                                const std::vector<RowRange>& ranges) {
  EXPECT_OK(arrow::compute::Initialize());
  arrow::Int64Builder indices;
  for (const auto& r : ranges) {
    for (int64_t i = r.from; i <= r.to; ++i) EXPECT_OK(indices.Append(i));
  }
  auto taken =
      arrow::compute::Take(arrow::Datum(full), arrow::Datum(indices.Finish().ValueOrDie()));
  EXPECT_OK(taken);
  return taken->table();
}

}  // namespace paimon_rowid::testing
