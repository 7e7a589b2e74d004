// The AppendWriter and the stats collector allocate from the pool they are given.
#include "paimon_rowid/testing/memory_pool.h"

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "arrow/compute/cast.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/write/append_writer.h"
#include "paimon_rowid/write/stats.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

using testing::WriteFixture;

TEST(AppendWriterMemoryPoolTest, WriteAllocatesFromTheWriterPool) {
  WriteFixture fx(testing::DeOptions(), {"dt"});
  // Routed to two partitions (grouper + take), cast from int32 ids, stats of every column.
  auto batch = WriteFixture::Batch(0, 3000, {"a", "b"});
  auto ids32 = arrow::compute::Cast(*batch->column(0), arrow::int32()).ValueOrDie();
  batch = batch->SetColumn(0, arrow::field("id", arrow::int32(), false), ids32).ValueOrDie();
  testing::PoolProbe probe;
  {
    AppendWriterOptions options;
    options.pool = probe.pool();
    ASSERT_OK_AND_ASSIGN(auto writer, AppendWriter::Make(fx.table(), std::nullopt, options));
    probe.ResetDefault();
    ASSERT_OK(writer->Write(batch));
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit());
    EXPECT_EQ(messages.size(), 2u);
  }
  EXPECT_GT(probe.pool()->num_allocations(), 0);
  // Not asserted: no allocation from the default pool (partition values pass through scalars,
  // whose casts and conversions use the default compute context).
  EXPECT_EQ(probe.pool()->bytes_allocated(), 0);
}

TEST(StatsCollectorMemoryPoolTest, CollectsInThePool) {
  arrow::StringBuilder names;
  ASSERT_OK(names.AppendValues({"b", "a", "c"}));
  ASSERT_OK_AND_ASSIGN(auto array, names.Finish());
  testing::PoolProbe probe;
  {
    StatsCollector stats({arrow::utf8()}, {StatsMode::Full()}, probe.pool());
    probe.ResetDefault();
    ASSERT_OK(stats.Update({array}));
    ASSERT_OK(stats.Update({array->Slice(1)}));
    ASSERT_OK_AND_ASSIGN(auto result, stats.Finish());
  }
  EXPECT_GT(probe.pool()->num_allocations(), 0);
  if (probe.default_is_separate()) EXPECT_EQ(probe.default_allocations(), 0);
}

}  // namespace
}  // namespace paimon_rowid
