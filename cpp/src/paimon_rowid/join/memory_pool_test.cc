// The hash join allocates its build side, index and output from the pool of its options.
#include "paimon_rowid/testing/memory_pool.h"

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "paimon_rowid/join/hash_join.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

std::shared_ptr<arrow::RecordBatch> Keys(int64_t from, int64_t count, const std::string& name) {
  arrow::Int64Builder keys;
  arrow::StringBuilder values;
  for (int64_t i = from; i < from + count; ++i) {
    EXPECT_OK(keys.Append(i % 50));
    EXPECT_OK(values.Append(name + std::to_string(i)));
  }
  auto schema =
      arrow::schema({arrow::field("k", arrow::int64()), arrow::field(name, arrow::utf8())});
  return arrow::RecordBatch::Make(schema, count,
                                  {keys.Finish().ValueOrDie(), values.Finish().ValueOrDie()});
}

TEST(HashJoinMemoryPoolTest, JoinAllocatesFromItsPool) {
  // Batches are built before the probe: their buffers come from the default pool.
  auto l1 = Keys(0, 100, "a");
  auto l2 = Keys(100, 100, "a");
  auto r1 = Keys(0, 60, "b");
  testing::PoolProbe probe;
  {
    HashJoinOptions options;
    options.pool = probe.pool();
    options.build = HashJoinOptions::Build::kLeft;
    auto left = arrow::RecordBatchReader::Make({l1, l2}).ValueOrDie();
    auto right = arrow::RecordBatchReader::Make({r1}).ValueOrDie();
    probe.ResetDefault();
    ASSERT_OK_AND_ASSIGN(auto reader, HashJoinInner(left, right, {"k"}, {"k"}, options));
    ASSERT_OK_AND_ASSIGN(auto table, reader->ToTable());
    EXPECT_EQ(table->num_rows(), 240);  // 60 right rows x 4 left rows per key
    EXPECT_GT(probe.pool()->num_allocations(), 0);
    if (testing::PoolProbe::default_is_separate()) EXPECT_EQ(probe.default_allocations(), 0);
  }
  EXPECT_EQ(probe.pool()->bytes_allocated(), 0);
}

}  // namespace
}  // namespace paimon_rowid
