// The Parquet reader and writer allocate from the pool of their options only.
#include "paimon_rowid/testing/memory_pool.h"

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "arrow/io/memory.h"
#include "paimon_rowid/format/parquet_io.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

std::shared_ptr<arrow::RecordBatch> MakeBatch(int64_t n) {
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  arrow::DoubleBuilder scores;
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_OK(ids.Append(i));
    EXPECT_OK(names.Append("name-" + std::to_string(i)));
    EXPECT_OK(scores.Append(static_cast<double>(i) / 3));
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("name", arrow::utf8()),
                     arrow::field("score", arrow::float64())});
  return arrow::RecordBatch::Make(
      schema, n,
      {ids.Finish().ValueOrDie(), names.Finish().ValueOrDie(), scores.Finish().ValueOrDie()});
}

// A file of `n` rows in small pages and row groups, written with the default pool.
std::shared_ptr<arrow::Buffer> WriteFile(int64_t n, arrow::MemoryPool* pool) {
  auto sink = arrow::io::BufferOutputStream::Create(4096, pool).ValueOrDie();
  ParquetWriteOptions opts;
  opts.row_group_size_rows = 1000;
  opts.data_page_size_bytes = 1024;
  opts.pool = pool;
  auto batch = MakeBatch(n);
  auto writer = ParquetFileWriter::Open(sink, batch->schema(), opts).ValueOrDie();
  EXPECT_OK(writer->Write(*batch));
  EXPECT_OK(writer->Close());
  return sink->Finish().ValueOrDie();
}

TEST(ParquetMemoryPoolTest, WriterAllocatesFromItsPool) {
  testing::PoolProbe probe;
  auto batch = MakeBatch(5000);
  probe.ResetDefault();
  {
    ASSERT_OK_AND_ASSIGN(auto sink, arrow::io::BufferOutputStream::Create(4096, probe.pool()));
    ParquetWriteOptions opts;
    opts.pool = probe.pool();
    ASSERT_OK_AND_ASSIGN(auto writer, ParquetFileWriter::Open(sink, batch->schema(), opts));
    ASSERT_OK(writer->Write(*batch));
    ASSERT_OK(writer->Close());
    ASSERT_OK_AND_ASSIGN(auto bytes, sink->Finish());
    EXPECT_GT(bytes->size(), 0);
  }
  EXPECT_GT(probe.pool()->num_allocations(), 0);
  if (probe.default_is_separate()) EXPECT_EQ(probe.default_allocations(), 0);
  EXPECT_EQ(probe.pool()->bytes_allocated(), 0);  // everything was released
}

TEST(ParquetMemoryPoolTest, SelectiveAndFullReadsAllocateFromTheReaderPool) {
  auto bytes = WriteFile(5000, arrow::default_memory_pool());
  testing::PoolProbe probe;
  {
    auto file = std::make_shared<arrow::io::BufferReader>(bytes);
    ParquetReadOptions options;
    options.pool = probe.pool();
    ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(file, "mem.parquet", -1, options));
    // Few rows out of many pages: the page index route, the sparse string gather and the
    // final Take all run.
    std::vector<RowRange> sel{{3, 4}, {1500, 1500}, {4990, 4999}};
    ParquetReadStats stats;
    ASSERT_OK_AND_ASSIGN(auto table, reader->Read({"name", "id", "score"}, &sel, &stats));
    ASSERT_EQ(table->num_rows(), 13);
    EXPECT_GT(stats.chunks_by_index, 0);
    EXPECT_GT(stats.chunks_sparse, 0);
    const int64_t after_selective = probe.pool()->num_allocations();
    EXPECT_GT(after_selective, 0);
    ASSERT_OK_AND_ASSIGN(auto all, reader->Read({"id", "name"}, nullptr));
    ASSERT_EQ(all->num_rows(), 5000);
    EXPECT_GT(probe.pool()->num_allocations(), after_selective);
  }
  // Not asserted: no allocation from the default pool. Parquet's Arrow reader attaches the
  // column chunk's statistics to the arrays it decodes (TransferZeroCopy -> AttachStatistics),
  // and ColumnChunkMetaData::statistics() decodes them with the default pool, whatever the
  // reader's (12 small allocations here, all inside libparquet).
  EXPECT_EQ(probe.pool()->bytes_allocated(), 0);
}

}  // namespace
}  // namespace paimon_rowid
