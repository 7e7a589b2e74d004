#include "paimon_rowid/format/object_store_input.h"

#include <gtest/gtest.h>

#include <atomic>

#include "arrow/api.h"
#include "arrow/io/file.h"
#include "paimon_rowid/format/parquet_io.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"

namespace paimon_rowid {
namespace {

using format_internal::CoalesceRanges;
using format_internal::MakeObjectStoreInput;

// A local file that counts its reads: each ReadAt stands for one ranged GET.
class CountingFile : public arrow::io::RandomAccessFile {
 public:
  explicit CountingFile(std::shared_ptr<arrow::io::RandomAccessFile> inner)
      : inner_(std::move(inner)) {}
  arrow::Status Close() override { return inner_->Close(); }
  bool closed() const override { return inner_->closed(); }
  arrow::Result<int64_t> Tell() const override { return inner_->Tell(); }
  arrow::Status Seek(int64_t p) override { return inner_->Seek(p); }
  arrow::Result<int64_t> Read(int64_t n, void* out) override {
    ++reads;
    return inner_->Read(n, out);
  }
  arrow::Result<std::shared_ptr<arrow::Buffer>> Read(int64_t n) override {
    ++reads;
    return inner_->Read(n);
  }
  arrow::Result<int64_t> GetSize() override {
    ++sizes;
    return inner_->GetSize();
  }
  arrow::Result<int64_t> ReadAt(int64_t p, int64_t n, void* out) override {
    ++reads;
    return inner_->ReadAt(p, n, out);
  }
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t p, int64_t n) override {
    ++reads;
    return inner_->ReadAt(p, n);
  }
  std::atomic<int> reads{0};
  std::atomic<int> sizes{0};

 private:
  std::shared_ptr<arrow::io::RandomAccessFile> inner_;
};

std::string WriteTable(const std::string& dir) {
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  arrow::DoubleBuilder xs;
  const int64_t rows = 4000;
  for (int64_t i = 0; i < rows; ++i) {
    EXPECT_OK(ids.Append(i));
    EXPECT_OK(names.Append("name-" + std::to_string(i * 7919 % 100003)));
    EXPECT_OK(xs.Append(static_cast<double>(i) * 0.5));
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("name", arrow::utf8()),
                     arrow::field("x", arrow::float64())});
  auto batch = arrow::RecordBatch::Make(
      schema, rows,
      {ids.Finish().ValueOrDie(), names.Finish().ValueOrDie(), xs.Finish().ValueOrDie()});
  std::string path = dir + "/f.parquet";
  auto sink = arrow::io::FileOutputStream::Open(path).ValueOrDie();
  ParquetWriteOptions opts;
  opts.row_group_size_rows = 1000;
  auto writer = ParquetFileWriter::Open(sink, schema, opts).ValueOrDie();
  EXPECT_OK(writer->Write(*batch));
  EXPECT_OK(writer->Close());
  return path;
}

TEST(ObjectStoreInputTest, CoalescesAcrossSmallHoles) {
  auto merged = CoalesceRanges({{100, 10}, {0, 10}, {15, 5}, {40, 0}, {112, 4}}, 5, 1000);
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].offset, 0);
  EXPECT_EQ(merged[0].length, 20);
  EXPECT_EQ(merged[1].offset, 100);
  EXPECT_EQ(merged[1].length, 16);
  // The size cap splits a run.
  auto capped = CoalesceRanges({{0, 10}, {10, 10}, {20, 10}}, 5, 20);
  ASSERT_EQ(capped.size(), 2u);
  EXPECT_EQ(capped[1].offset, 20);
}

TEST(ObjectStoreInputTest, ParquetReadNeedsFewRequestsAndReturnsTheSameRows) {
  testing::TempDir dir;
  const std::string path = WriteTable(dir.path());
  std::vector<RowRange> sel{{5, 7}, {1500, 1501}, {3999, 3999}};
  auto read = [&](bool wrap, int* requests, int* size_calls) -> std::shared_ptr<arrow::Table> {
    auto local = arrow::io::ReadableFile::Open(path).ValueOrDie();
    const int64_t size = local->GetSize().ValueOrDie();
    auto counting = std::make_shared<CountingFile>(local);
    std::shared_ptr<arrow::io::RandomAccessFile> input = counting;
    if (wrap) input = MakeObjectStoreInput(counting, size);
    auto reader = ParquetFileReader::Open(input, path, size).ValueOrDie();
    auto table = reader->Read({"x", "name"}, &sel).ValueOrDie();
    *requests = counting->reads.load();
    *size_calls = counting->sizes.load();
    return table;
  };
  int plain_requests = 0, plain_sizes = 0, store_requests = 0, store_sizes = 0;
  auto plain = read(false, &plain_requests, &plain_sizes);
  auto store = read(true, &store_requests, &store_sizes);
  ASSERT_TRUE(plain->Equals(*store)) << plain->ToString() << store->ToString();
  EXPECT_EQ(store->num_rows(), 6);
  // One request for the footer and page index, one per touched row group (its two chunks
  // merged); the plain file needs a request per structure and chunk.
  EXPECT_LE(store_requests, 4);
  EXPECT_LT(store_requests, plain_requests);
  EXPECT_EQ(store_sizes, 0);  // the size came from the caller, never asked of the store
}

}  // namespace
}  // namespace paimon_rowid
