// ParquetFileReader::ColumnSegments: row-group bounds from the footer, page bounds from the
// column index, null counts, and the row groups a selection touches.
#include <gtest/gtest.h>

#include "arrow/api.h"
#include "arrow/io/file.h"
#include "paimon_rowid/format/parquet_io.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"

namespace paimon_rowid {
namespace {

// id = row, v = row / 10 with every 7th row null.
std::string WriteFile(const std::string& dir, int64_t rows, int64_t rows_per_group,
                      bool page_index) {
  arrow::Int64Builder ids, vs;
  for (int64_t i = 0; i < rows; ++i) {
    EXPECT_OK(ids.Append(i));
    EXPECT_OK(i % 7 == 0 ? vs.AppendNull() : vs.Append(i / 10));
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("v", arrow::int64()),
                     arrow::field("l", arrow::list(arrow::int64()))});
  auto lists = arrow::MakeArrayOfNull(arrow::list(arrow::int64()), rows).ValueOrDie();
  auto batch = arrow::RecordBatch::Make(
      schema, rows, {ids.Finish().ValueOrDie(), vs.Finish().ValueOrDie(), lists});
  std::string path = dir + "/f.parquet";
  auto sink = arrow::io::FileOutputStream::Open(path).ValueOrDie();
  ParquetWriteOptions opts;
  opts.row_group_size_rows = rows_per_group;
  opts.write_page_index = page_index;
  opts.data_page_size_bytes = 1024;  // many pages per row group
  opts.write_batch_size = 64;
  auto writer = ParquetFileWriter::Open(sink, schema, opts).ValueOrDie();
  EXPECT_OK(writer->Write(*batch));
  EXPECT_OK(writer->Close());
  return path;
}

std::unique_ptr<ParquetFileReader> Open(const std::string& path) {
  auto file = arrow::io::ReadableFile::Open(path).ValueOrDie();
  return ParquetFileReader::Open(file, path).ValueOrDie();
}

int64_t Int(const std::shared_ptr<arrow::Scalar>& s) {
  return std::static_pointer_cast<arrow::Int64Scalar>(s)->value;
}

// Segments tile the row groups they cover, and their bounds hold the rows' values.
void ExpectSound(const std::vector<ParquetFileReader::Segment>& segments, int64_t from,
                 int64_t to) {
  ASSERT_FALSE(segments.empty());
  EXPECT_EQ(segments.front().rows.from, from);
  EXPECT_EQ(segments.back().rows.to, to);
  for (size_t i = 0; i + 1 < segments.size(); ++i) {
    EXPECT_EQ(segments[i].rows.to + 1, segments[i + 1].rows.from);
  }
  for (const auto& s : segments) {
    ASSERT_TRUE(s.min && s.max);
    EXPECT_LE(Int(s.min), s.rows.from);
    EXPECT_GE(Int(s.max), s.rows.to);
  }
}

TEST(ColumnSegmentsTest, PagesFromThePageIndex) {
  testing::TempDir dir;
  auto reader = Open(WriteFile(dir.path(), 5000, 2000, /*page_index=*/true));
  ASSERT_OK_AND_ASSIGN(auto segments, reader->ColumnSegments("id", nullptr));
  ASSERT_TRUE(segments.has_value());
  EXPECT_GT(segments->size(), 3u);  // pages, not the 3 row groups
  ExpectSound(*segments, 0, 4999);
  for (const auto& s : *segments) EXPECT_EQ(s.null_count, 0);
  // Only the row groups a selection touches.
  std::vector<RowRange> selection{{2100, 2200}};
  ASSERT_OK_AND_ASSIGN(segments, reader->ColumnSegments("id", &selection));
  ExpectSound(*segments, 2000, 3999);
  // Null counts per page add up.
  ASSERT_OK_AND_ASSIGN(segments, reader->ColumnSegments("v", nullptr));
  int64_t nulls = 0;
  for (const auto& s : *segments) {
    ASSERT_TRUE(s.null_count.has_value());
    nulls += *s.null_count;
  }
  EXPECT_EQ(nulls, (5000 + 6) / 7);
}

TEST(ColumnSegmentsTest, RowGroupsWithoutAPageIndex) {
  testing::TempDir dir;
  auto reader = Open(WriteFile(dir.path(), 5000, 2000, /*page_index=*/false));
  ASSERT_OK_AND_ASSIGN(auto segments, reader->ColumnSegments("id", nullptr));
  ASSERT_TRUE(segments.has_value());
  ASSERT_EQ(segments->size(), 3u);
  ExpectSound(*segments, 0, 4999);
  EXPECT_EQ(Int((*segments)[1].min), 2000);
  EXPECT_EQ(Int((*segments)[1].max), 3999);
  ASSERT_OK_AND_ASSIGN(segments, reader->ColumnSegments("v", nullptr));
  EXPECT_EQ((*segments)[0].null_count, (2000 + 6) / 7);
}

TEST(ColumnSegmentsTest, AbsentAndNestedColumnsHaveNone) {
  testing::TempDir dir;
  auto reader = Open(WriteFile(dir.path(), 100, 100, /*page_index=*/true));
  ASSERT_OK_AND_ASSIGN(auto segments, reader->ColumnSegments("nope", nullptr));
  EXPECT_FALSE(segments.has_value());
  ASSERT_OK_AND_ASSIGN(segments, reader->ColumnSegments("l", nullptr));
  EXPECT_FALSE(segments.has_value());
}

}  // namespace
}  // namespace paimon_rowid
