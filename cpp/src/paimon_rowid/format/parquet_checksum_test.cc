// Page checksums: our writer puts a CRC32 in every page header, and every read path (whole
// row groups, pages picked through the offset index, the row-counting page filter) rejects a
// page whose bytes no longer match it. The file size is checked against the manifest's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "arrow/api.h"
#include "arrow/io/file.h"
#include "paimon_rowid/format/parquet_io.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"
#include "parquet/file_reader.h"
#include "parquet/metadata.h"
#include "parquet/page_index.h"

namespace paimon_rowid {
namespace {

constexpr int64_t kRows = 4000;

std::shared_ptr<arrow::RecordBatch> MakeBatch() {
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  for (int64_t i = 0; i < kRows; ++i) {
    EXPECT_OK(ids.Append(i * 7919 % 100003));
    EXPECT_OK(names.Append("name-" + std::to_string(i * 31)));
  }
  auto schema = arrow::schema(
      {arrow::field("id", arrow::int64(), false), arrow::field("name", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, kRows,
                                  {ids.Finish().ValueOrDie(), names.Finish().ValueOrDie()});
}

std::string Write(const std::string& path, bool checksum, bool page_index) {
  auto sink = arrow::io::FileOutputStream::Open(path).ValueOrDie();
  ParquetWriteOptions opts;
  opts.data_page_size_bytes = 2048;  // many pages
  opts.compression = "none";         // a flipped byte decodes to a plausible value
  opts.write_page_checksum = checksum;
  opts.write_page_index = page_index;
  auto batch = MakeBatch();
  auto writer = ParquetFileWriter::Open(sink, batch->schema(), opts).ValueOrDie();
  EXPECT_OK(writer->Write(*batch));
  EXPECT_OK(writer->Close());
  auto in = arrow::io::ReadableFile::Open(path).ValueOrDie();
  return in->Read(in->GetSize().ValueOrDie()).ValueOrDie()->ToString();
}

void Store(const std::string& path, const std::string& bytes) {
  auto out = arrow::io::FileOutputStream::Open(path).ValueOrDie();
  ASSERT_OK(out->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
  ASSERT_OK(out->Close());
}

// The data pages of column `leaf` of row group 0: (offset, size, first row).
std::vector<parquet::PageLocation> Pages(const std::string& path, int leaf) {
  auto reader = parquet::ParquetFileReader::OpenFile(path);
  return reader->GetPageIndexReader()->RowGroup(0)->GetOffsetIndex(leaf)->page_locations();
}

Result<std::shared_ptr<arrow::Table>> ReadAll(const std::string& path,
                                              const std::vector<RowRange>* rows) {
  ARROW_ASSIGN_OR_RAISE(auto file, arrow::io::ReadableFile::Open(path));
  ARROW_ASSIGN_OR_RAISE(auto reader, ParquetFileReader::Open(file, path));
  return reader->Read({"id", "name"}, rows);
}

TEST(ParquetChecksumTest, EveryReadPathRejectsAFlippedPageByte) {
  testing::TempDir dir;
  const std::string good = dir.path() + "/good.parquet";
  const std::string original = Write(good, /*checksum=*/true, /*page_index=*/true);
  const auto expected = ReadAll(good, nullptr).ValueOrDie();
  const std::string bad = dir.path() + "/bad.parquet";
  for (int leaf : {0, 1}) {
    const auto pages = Pages(good, leaf);
    ASSERT_GT(pages.size(), 3u);
    for (size_t p = 0; p < pages.size(); p += 2) {
      SCOPED_TRACE("leaf " + std::to_string(leaf) + " page " + std::to_string(p));
      // The page's last byte is always in its body (the header comes first).
      std::string damaged = original;
      damaged[pages[p].offset + pages[p].compressed_page_size - 1] ^= 0x10;
      Store(bad, damaged);
      auto whole = ReadAll(bad, nullptr);
      ASSERT_RAISES(IOError, whole);
      EXPECT_NE(whole.status().message().find("bad.parquet"), std::string::npos);
      EXPECT_NE(whole.status().message().find("CRC"), std::string::npos)
          << whole.status().message();
      // A row of the damaged page, read through the offset index.
      std::vector<RowRange> inside{{pages[p].first_row_index, pages[p].first_row_index}};
      EXPECT_RAISES(IOError, ReadAll(bad, &inside));
      // Rows of other pages only: the damaged page is never read, the values are intact.
      const int64_t other = p == 0 ? kRows - 1 : 0;
      std::vector<RowRange> outside{{other, other}};
      auto rest = ReadAll(bad, &outside);
      ASSERT_OK(rest);
      EXPECT_TRUE(rest.ValueOrDie()->Equals(*expected->Slice(other, 1)));
    }
  }
}

TEST(ParquetChecksumTest, PageFilterPathVerifiesToo) {
  // Without an offset index, a selective read of a flat column uses the page filter.
  testing::TempDir dir;
  const std::string with_index = dir.path() + "/i.parquet";
  Write(with_index, true, true);
  const auto pages = Pages(with_index, 0);
  const std::string path = dir.path() + "/f.parquet";
  std::string bytes = Write(path, /*checksum=*/true, /*page_index=*/false);
  // Same writer settings, so the pages sit where the indexed file's do.
  bytes[pages[1].offset + pages[1].compressed_page_size - 1] ^= 0x01;
  Store(path, bytes);
  std::vector<RowRange> inside{{pages[1].first_row_index, pages[1].first_row_index}};
  ASSERT_OK_AND_ASSIGN(auto file, arrow::io::ReadableFile::Open(path));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(file, path));
  ParquetReadStats stats;
  auto read = reader->Read({"id"}, &inside, &stats);
  EXPECT_RAISES(IOError, read);
  // Pages without a wanted row are skipped unread, so a read elsewhere still works.
  std::vector<RowRange> outside{{kRows - 1, kRows - 1}};
  auto rest = reader->Read({"id"}, &outside, &stats);
  ASSERT_OK(rest);
  EXPECT_GT(stats.chunks_by_filter, 0);
  EXPECT_EQ(stats.chunks_by_index, 0);
}

TEST(ParquetChecksumTest, WithoutChecksumsAFlipGoesUnnoticed) {
  // Why the checksum is written: the same flip in a file without one (pyarrow's default)
  // decodes to a different value.
  testing::TempDir dir;
  const std::string path = dir.path() + "/n.parquet";
  std::string bytes = Write(path, /*checksum=*/false, /*page_index=*/true);
  const auto expected = ReadAll(path, nullptr).ValueOrDie();
  const auto pages = Pages(path, 0);
  int silent = 0;
  for (const auto& page : pages) {
    std::string damaged = bytes;
    damaged[page.offset + page.compressed_page_size / 2] ^= 0x01;
    Store(path, damaged);
    auto read = ReadAll(path, nullptr);
    if (read.ok() && !read.ValueOrDie()->Equals(*expected)) ++silent;
  }
  EXPECT_GT(silent, 0);
}

TEST(ParquetChecksumTest, SizeDifferentFromManifestIsIOError) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/s.parquet";
  const std::string bytes = Write(path, true, true);
  const auto size = static_cast<int64_t>(bytes.size());
  ASSERT_OK_AND_ASSIGN(auto file, arrow::io::ReadableFile::Open(path));
  EXPECT_OK(ParquetFileReader::Open(file, path, size));
  EXPECT_OK(ParquetFileReader::Open(file, path, -1));  // unknown: not checked
  auto st = ParquetFileReader::Open(file, path, 1845).status();
  ASSERT_RAISES(IOError, st);
  EXPECT_NE(st.message().find("s.parquet"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find(std::to_string(size)), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("1845"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace paimon_rowid
