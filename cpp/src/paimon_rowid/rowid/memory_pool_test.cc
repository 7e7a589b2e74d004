// The row-id jobs allocate from the pool of their options.
#include "paimon_rowid/testing/memory_pool.h"

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "arrow/compute/cast.h"
#include "paimon_rowid/rowid/read_by_row_id.h"
#include "paimon_rowid/rowid/row_id_index.h"
#include "paimon_rowid/rowid/update_by_row_id.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

using testing::WriteFixture;

std::shared_ptr<arrow::RecordBatch> NameUpdates(const std::vector<int64_t>& ids) {
  arrow::Int64Builder id_builder;
  arrow::StringBuilder name_builder;
  for (int64_t id : ids) {
    EXPECT_OK(id_builder.Append(id));
    EXPECT_OK(name_builder.Append("new-" + std::to_string(id)));
  }
  auto schema = arrow::schema(
      {arrow::field("_ROW_ID", arrow::int64()), arrow::field("name", arrow::large_utf8())});
  auto names = name_builder.Finish().ValueOrDie();
  // large_utf8 input: the update casts it to the table's type.
  auto large = arrow::compute::Cast(*names, arrow::large_utf8()).ValueOrDie();
  return arrow::RecordBatch::Make(schema, static_cast<int64_t>(ids.size()),
                                  {id_builder.Finish().ValueOrDie(), large});
}

TEST(RowIdUpdateMemoryPoolTest, UpdateAllocatesFromItsPool) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 100));
  fx.Append(WriteFixture::Batch(100, 100));
  testing::PoolProbe probe;
  {
    RowIdUpdateOptions options;
    options.pool = probe.pool();
    ASSERT_OK_AND_ASSIGN(auto update, RowIdUpdate::Make(fx.table(), {"name"}, "db.t", options));
    // Owners alternate row by row (routed with one Take per group); both groups are
    // partly updated (current values read, concatenated with the new ones and taken).
    std::vector<int64_t> interleaved;
    for (int64_t i = 0; i < 100; i += 3) {
      interleaved.push_back(i);
      interleaved.push_back(100 + i);
    }
    probe.ResetDefault();
    ASSERT_OK(update->Add(NameUpdates(interleaved)));
    const int64_t after_add = probe.pool()->num_allocations();
    EXPECT_GT(after_add, 0);
    ASSERT_OK_AND_ASSIGN(auto messages, update->Finish(/*threads=*/1));
    EXPECT_EQ(messages.size(), 2u);
    EXPECT_GT(probe.pool()->num_allocations(), after_add);
    // Not asserted: no allocation from the default pool (the writers' setup and the commit
    // messages' stats pass through scalars and metadata, which use the default pool).
  }
  EXPECT_EQ(probe.pool()->bytes_allocated(), 0);
}

TEST(RowIdReadMemoryPoolTest, ReadAllocatesFromItsPool) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 100));
  fx.Append(WriteFixture::Batch(100, 100));
  ASSERT_OK_AND_ASSIGN(auto snapshot, fx.table()->LatestSnapshot());
  ASSERT_OK_AND_ASSIGN(auto index, RowIdIndex::Build(fx.table(), *snapshot));
  arrow::Int64Builder b;
  ASSERT_OK(b.AppendValues({150, 3, 99, 4}));
  ASSERT_OK_AND_ASSIGN(auto ids, b.Finish());
  testing::PoolProbe probe;
  {
    RowIdReadOptions options;
    options.pool = probe.pool();
    ASSERT_OK_AND_ASSIGN(auto read, RowIdRead::Make(fx.table(), {"name"}, index, options));
    probe.ResetDefault();
    ASSERT_OK_AND_ASSIGN(auto reader, read->Read({ids}, /*threads=*/1));
    ASSERT_OK_AND_ASSIGN(auto table, reader->ToTable());
    EXPECT_EQ(table->num_rows(), 4);
  }
  EXPECT_GT(probe.pool()->num_allocations(), 0);
  if (probe.default_is_separate()) EXPECT_EQ(probe.default_allocations(), 0);
  EXPECT_EQ(probe.pool()->bytes_allocated(), 0);
}

}  // namespace
}  // namespace paimon_rowid
