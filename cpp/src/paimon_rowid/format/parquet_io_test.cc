#include <gtest/gtest.h>

#include "arrow/api.h"
#include "arrow/io/file.h"
#include "paimon_rowid/format/parquet_io.h"
#include "paimon_rowid/testing/temp_dir.h"

namespace paimon_rowid {
namespace {

std::shared_ptr<arrow::RecordBatch> MakeBatch(int64_t start, int64_t n) {
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  for (int64_t i = start; i < start + n; ++i) {
    EXPECT_TRUE(ids.Append(i).ok());
    EXPECT_TRUE(names.Append("name-" + std::to_string(i)).ok());
  }
  auto schema = arrow::schema({arrow::field("id", arrow::int64(), false),
                               arrow::field("name", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, n, {ids.Finish().ValueOrDie(),
                                              names.Finish().ValueOrDie()});
}

std::string WriteFile(const std::string& dir, int64_t rows, int64_t rows_per_group) {
  std::string path = dir + "/f.parquet";
  auto sink = arrow::io::FileOutputStream::Open(path).ValueOrDie();
  ParquetWriteOptions opts;
  opts.row_group_size_rows = rows_per_group;
  auto batch = MakeBatch(0, rows);
  auto writer = ParquetFileWriter::Open(sink, batch->schema(), opts).ValueOrDie();
  EXPECT_TRUE(writer->Write(*batch).ok());
  EXPECT_TRUE(writer->Close().ok());
  return path;
}

TEST(ParquetIOTest, ReadsSelectedRowsAcrossRowGroups) {
  testing::TempDir dir;
  std::string path = WriteFile(dir.path(), 1000, 100);
  auto file = arrow::io::ReadableFile::Open(path).ValueOrDie();
  auto reader = ParquetFileReader::Open(file, path).ValueOrDie();
  EXPECT_EQ(reader->num_rows(), 1000);
  EXPECT_EQ(reader->num_row_groups(), 10);
  std::vector<RowRange> sel{{5, 7}, {99, 101}, {950, 950}};
  auto table = reader->Read({"name", "id"}, &sel).ValueOrDie();
  ASSERT_EQ(table->num_rows(), 7);
  auto ids = table->GetColumnByName("id");
  std::vector<int64_t> got;
  for (const auto& chunk : ids->chunks()) {
    auto arr = std::static_pointer_cast<arrow::Int64Array>(chunk);
    for (int64_t i = 0; i < arr->length(); ++i) got.push_back(arr->Value(i));
  }
  EXPECT_EQ(got, (std::vector<int64_t>{5, 6, 7, 99, 100, 101, 950}));
  EXPECT_EQ(table->schema()->field(0)->name(), "name");
}

TEST(ParquetIOTest, ErrorsAreStatuses) {
  testing::TempDir dir;
  std::string path = WriteFile(dir.path(), 10, 10);
  auto file = arrow::io::ReadableFile::Open(path).ValueOrDie();
  auto reader = ParquetFileReader::Open(file, path).ValueOrDie();
  EXPECT_TRUE(reader->Read({"missing"}, nullptr).status().IsKeyError());
  std::vector<RowRange> bad{{5, 20}};
  EXPECT_TRUE(reader->Read({"id"}, &bad).status().IsInvalid());
  // A truncated file is an error, not a crash.
  std::string truncated = dir.path() + "/t.parquet";
  {
    auto in = arrow::io::ReadableFile::Open(path).ValueOrDie();
    auto bytes = in->Read(in->GetSize().ValueOrDie() - 9).ValueOrDie();
    auto out = arrow::io::FileOutputStream::Open(truncated).ValueOrDie();
    ASSERT_TRUE(out->Write(bytes).ok());
    ASSERT_TRUE(out->Close().ok());
  }
  auto tfile = arrow::io::ReadableFile::Open(truncated).ValueOrDie();
  EXPECT_FALSE(ParquetFileReader::Open(tfile, truncated).ok());
}

}  // namespace
}  // namespace paimon_rowid
