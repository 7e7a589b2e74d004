// TableRead and the BLOB reader allocate from the pool they are given.
#include "paimon_rowid/testing/memory_pool.h"

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "paimon_rowid/catalog/catalog.h"
#include "paimon_rowid/commit/committer.h"
#include "paimon_rowid/read/blob_reader.h"
#include "paimon_rowid/read/table_read.h"
#include "paimon_rowid/scan/plan.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"
#include "paimon_rowid/write/append_writer.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

using testing::WriteFixture;

TEST(TableReadMemoryPoolTest, ReadAllocatesFromTheReadPool) {
  WriteFixture fx(testing::DeOptions(), {"dt"});
  fx.Append(WriteFixture::Batch(0, 200, {"a", "b"}));
  fx.Append(WriteFixture::Batch(200, 100, {"a"}));
  ScanPlanner planner(fx.table());
  planner.WithRowRanges({{5, 150}, {250, 260}});
  ASSERT_OK_AND_ASSIGN(auto plan, planner.Plan());
  auto literal = arrow::MakeArrayFromScalar(arrow::Int64Scalar(100), 1).ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto predicate,
                       Predicate::Leaf(Predicate::Op::kGreaterOrEqual, "id", literal));

  testing::PoolProbe probe;
  {
    ReadOptions options;
    options.fields = {"name", "dt", "_ROW_ID", "_SEQUENCE_NUMBER"};
    options.predicate = predicate;
    options.pool = probe.pool();
    ASSERT_OK_AND_ASSIGN(auto read, TableRead::Make(fx.table(), options));
    probe.ResetDefault();
    ASSERT_OK_AND_ASSIGN(auto reader, read->Read(plan.splits));
    ASSERT_OK_AND_ASSIGN(auto table, reader->ToTable());
    EXPECT_GT(table->num_rows(), 0);
  }
  EXPECT_GT(probe.pool()->num_allocations(), 0);
  EXPECT_GT(probe.pool()->total_bytes_allocated(), 0);
  // Not asserted: no allocation from the default pool. Parquet decodes column-chunk
  // statistics (ColumnChunkMetaData::statistics) with the default pool, and the partition
  // values are decoded and cast as scalars (default compute context).
  EXPECT_EQ(probe.pool()->bytes_allocated(), 0);
}

TEST(BlobReaderMemoryPoolTest, ReadBlobBunchAllocatesFromThePool) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto catalog, Catalog::Make({{"warehouse", dir.path()}}));
  ASSERT_OK(catalog->CreateDatabase("db", false));
  TableSchema schema;
  schema.fields = AssignFieldIds({
      DataField{-1, "id", DataType::Atomic(TypeRoot::kBigInt, false)},
      DataField{-1, "pic", DataType::Atomic(TypeRoot::kBlob)},
  });
  schema.options = {{"row-tracking.enabled", "true"},
                    {"data-evolution.enabled", "true"},
                    {"blob.target-file-size", "1000"}};
  ASSERT_OK(catalog->CreateTable("db.t", schema, false));
  ASSERT_OK_AND_ASSIGN(auto table, catalog->GetTable("db.t"));
  constexpr int kRows = 40;
  arrow::Int64Builder ids;
  arrow::LargeBinaryBuilder pics;
  for (int i = 0; i < kRows; ++i) {
    ASSERT_OK(ids.Append(i));
    ASSERT_OK(i % 5 == 0 ? pics.AppendNull()
                         : pics.Append(std::string(100 + i, static_cast<char>('a' + i % 26))));
  }
  auto batch =
      arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64(), false),
                                              arrow::field("pic", arrow::large_binary())}),
                               kRows, {ids.Finish().ValueOrDie(), pics.Finish().ValueOrDie()});
  ASSERT_OK_AND_ASSIGN(auto writer, AppendWriter::Make(table));
  ASSERT_OK(writer->Write(batch));
  ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit());
  ASSERT_OK_AND_ASSIGN(auto committer, Committer::Make(table));
  ASSERT_OK(committer->Commit(messages));
  ASSERT_OK_AND_ASSIGN(auto plan, ScanPlanner(table).Plan());
  ASSERT_EQ(plan.splits.size(), 1u);
  const DataSplit& split = plan.splits[0];
  ASSERT_EQ(split.groups.size(), 1u);
  std::vector<BlobBunchFile> bunch;
  for (const auto& f : split.groups[0]) {
    if (f.is_blob_file()) bunch.push_back({&f, split.FilePath(f)});
  }
  ASSERT_GT(bunch.size(), 1u);
  std::vector<int64_t> row_ids{1, 2, 3, 11, 20, 39};  // 20: null
  const DataType& pic_type = *table->schema().FieldByName("pic")->type;

  testing::PoolProbe probe;
  for (bool as_descriptor : {false, true}) {
    const int64_t before = probe.pool()->num_allocations();
    probe.ResetDefault();
    ASSERT_OK_AND_ASSIGN(auto values, ReadBlobBunch(*table->file_io(), bunch, row_ids, pic_type,
                                                    as_descriptor, probe.pool()));
    ASSERT_EQ(values->length(), static_cast<int64_t>(row_ids.size()));
    EXPECT_GT(probe.pool()->num_allocations(), before) << as_descriptor;
    if (probe.default_is_separate()) EXPECT_EQ(probe.default_allocations(), 0) << as_descriptor;
    if (!as_descriptor) {
      const auto& bytes = static_cast<const arrow::LargeBinaryArray&>(*values);
      EXPECT_EQ(bytes.GetView(3), std::string(111, static_cast<char>('a' + 11)));
      EXPECT_TRUE(bytes.IsNull(4));
      continue;
    }
    // Dereferencing the descriptors reads the payloads into the pool too.
    const int64_t before_deref = probe.pool()->num_allocations();
    ASSERT_OK_AND_ASSIGN(
        auto payloads, DereferenceBlobDescriptors(*table->file_io(), *values, "pic", probe.pool()));
    EXPECT_GT(probe.pool()->num_allocations(), before_deref);
    if (probe.default_is_separate()) EXPECT_EQ(probe.default_allocations(), 0);
    const auto& bytes = static_cast<const arrow::LargeBinaryArray&>(*payloads);
    EXPECT_EQ(bytes.GetView(5), std::string(139, static_cast<char>('a' + 39 % 26)));
  }
}

}  // namespace
}  // namespace paimon_rowid
