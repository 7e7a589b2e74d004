#include "paimon_rowid/scan/partition_stats.h"

#include <gtest/gtest.h>

#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

using testing::DeOptions;
using testing::WriteFixture;

TEST(PartitionStatsTest, EmptyTableHasNone) {
  WriteFixture fx(DeOptions(), {"dt"});
  ASSERT_OK_AND_ASSIGN(auto stats, ListPartitionStats(*fx.table()));
  EXPECT_TRUE(stats.empty());
}

TEST(PartitionStatsTest, CountsRowsFilesAndBucketsPerPartition) {
  WriteFixture fx(DeOptions(), {"dt"});
  fx.Append(WriteFixture::Batch(0, 6, {"b", "a"}));  // 3 rows each in a and b
  fx.Append(WriteFixture::Batch(6, 2, {"a"}));
  ASSERT_OK_AND_ASSIGN(auto stats, ListPartitionStats(*fx.table()));
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].spec, (std::vector<std::pair<std::string, std::string>>{{"dt", "a"}}));
  EXPECT_EQ(stats[0].record_count, 5);
  EXPECT_EQ(stats[0].file_count, 2);
  EXPECT_EQ(stats[0].total_buckets, 1);
  EXPECT_GT(stats[0].file_size_in_bytes, 0);
  EXPECT_GT(stats[0].last_file_creation_time, 0);
  EXPECT_EQ(stats[1].spec[0].second, "b");
  EXPECT_EQ(stats[1].record_count, 3);
}

}  // namespace
}  // namespace paimon_rowid
