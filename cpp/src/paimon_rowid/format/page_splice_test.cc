// ParquetPageSplice: a file made of another file's pages with the changed ones re-encoded
// reads back as the whole new column, with the statistics and page index a file written
// whole would have; files it cannot splice are left to the whole write.
#include "paimon_rowid/format/page_splice.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "arrow/api.h"
#include "arrow/io/file.h"
#include "arrow/io/memory.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"
#include "parquet/file_reader.h"
#include "parquet/metadata.h"
#include "parquet/statistics.h"

namespace paimon_rowid {
namespace {

constexpr int64_t kRows = 20000;

// x: distinct doubles (PLAIN pages); v: i % 5000 with every 7th row null (dictionary pages).
std::shared_ptr<arrow::Schema> Schema() {
  return arrow::schema({arrow::field("x", arrow::float64()), arrow::field("v", arrow::int64())});
}

std::shared_ptr<arrow::RecordBatch> Base() {
  arrow::DoubleBuilder xs;
  arrow::Int64Builder vs;
  for (int64_t i = 0; i < kRows; ++i) {
    EXPECT_OK(xs.Append(static_cast<double>(i) * 0.5));
    EXPECT_OK(i % 7 == 0 ? vs.AppendNull() : vs.Append(i % 5000));
  }
  return arrow::RecordBatch::Make(Schema(), kRows,
                                  {xs.Finish().ValueOrDie(), vs.Finish().ValueOrDie()});
}

ParquetWriteOptions SmallPages() {
  ParquetWriteOptions opts;
  opts.data_page_size_bytes = 4096;  // ~40 pages per column
  opts.write_batch_size = 64;
  return opts;
}

std::string WriteWhole(const std::string& path, const arrow::RecordBatch& batch,
                       ParquetWriteOptions opts) {
  auto sink = arrow::io::FileOutputStream::Open(path).ValueOrDie();
  auto writer = ParquetFileWriter::Open(sink, batch.schema(), opts).ValueOrDie();
  EXPECT_OK(writer->Write(batch));
  EXPECT_OK(writer->Close());
  return path;
}

std::unique_ptr<ParquetFileReader> Open(const std::string& path) {
  auto file = arrow::io::ReadableFile::Open(path).ValueOrDie();
  return ParquetFileReader::Open(file, path).ValueOrDie();
}

// `base` with rows `positions` changed: x negated, v = 1000 + row (null where row % 3 == 0).
std::shared_ptr<arrow::RecordBatch> Changed(const arrow::RecordBatch& base,
                                            const std::vector<int64_t>& positions) {
  const auto& x = static_cast<const arrow::DoubleArray&>(*base.column(0));
  const auto& v = static_cast<const arrow::Int64Array&>(*base.column(1));
  arrow::DoubleBuilder xs;
  arrow::Int64Builder vs;
  size_t next = 0;
  for (int64_t i = 0; i < base.num_rows(); ++i) {
    if (next < positions.size() && positions[next] == i) {
      ++next;
      EXPECT_OK(xs.Append(-x.Value(i)));
      EXPECT_OK(i % 3 == 0 ? vs.AppendNull() : vs.Append(1000 + i));
      continue;
    }
    EXPECT_OK(xs.Append(x.Value(i)));
    EXPECT_OK(v.IsNull(i) ? vs.AppendNull() : vs.Append(v.Value(i)));
  }
  return arrow::RecordBatch::Make(base.schema(), base.num_rows(),
                                  {xs.Finish().ValueOrDie(), vs.Finish().ValueOrDie()});
}

std::vector<ParquetPageSplice::Column> BothColumns(const ParquetFileReader* source,
                                                   const std::vector<int64_t>& positions) {
  return {{source, "x", positions}, {source, "v", positions}};
}

// Writes the spliced file, taking each rewritten run's new values out of `want`.
Status WriteSpliced(ParquetPageSplice* splice, const arrow::RecordBatch& want,
                    const std::string& path) {
  std::vector<std::vector<std::shared_ptr<arrow::Array>>> values(2);
  for (size_t c = 0; c < 2; ++c) {
    for (const auto& run : splice->rewritten_rows(c)) {
      values[c].push_back(want.column(static_cast<int>(c))->Slice(run.from, run.count()));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto sink, arrow::io::FileOutputStream::Open(path));
  return splice->Write(sink, values);
}

std::shared_ptr<parquet::FileMetaData> Footer(const std::string& path) {
  return parquet::ParquetFileReader::OpenFile(path)->metadata();
}

TEST(PageSpliceTest, RewritesOnlyTheChangedPagesAndReadsBackAsTheNewColumn) {
  testing::TempDir dir;
  auto base = Base();
  const std::string source_path = WriteWhole(dir.path() + "/base.parquet", *base, SmallPages());
  auto source = Open(source_path);
  std::vector<int64_t> positions;
  for (int64_t i = 5000; i < 5100; ++i) positions.push_back(i);
  positions.push_back(12345);
  ASSERT_OK_AND_ASSIGN(auto splice, ParquetPageSplice::Plan(Schema(), SmallPages(),
                                                            BothColumns(source.get(), positions)));
  ASSERT_NE(splice, nullptr);
  EXPECT_EQ(splice->num_rows(), kRows);
  for (size_t c = 0; c < 2; ++c) {
    // Whole pages around the changed rows, a small part of the column.
    int64_t rewritten = 0;
    for (const auto& run : splice->rewritten_rows(c)) rewritten += run.count();
    ASSERT_EQ(splice->rewritten_rows(c).size(), 2u);
    const auto& first = splice->rewritten_rows(c)[0];
    const auto& second = splice->rewritten_rows(c)[1];
    EXPECT_TRUE(first.from <= 5000 && first.to >= 5099);
    EXPECT_TRUE(second.from <= 12345 && second.to >= 12345);
    EXPECT_LT(rewritten, kRows / 3);
    int64_t copied = 0;
    for (const auto& seg : splice->copied_pages(c)) copied += seg.rows.count();
    EXPECT_EQ(copied + rewritten, kRows);
  }
  auto want = Changed(*base, positions);
  const std::string out_path = dir.path() + "/spliced.parquet";
  ASSERT_OK(WriteSpliced(splice.get(), *want, out_path));

  auto out = Open(out_path);
  ASSERT_OK_AND_ASSIGN(auto table, out->Read({"x", "v"}, nullptr));
  ASSERT_OK_AND_ASSIGN(auto combined, table->CombineChunksToBatch());
  EXPECT_TRUE(combined->Equals(*want)) << combined->ToString();

  // The footer's statistics are those of the same rows written whole.
  const std::string whole_path = WriteWhole(dir.path() + "/whole.parquet", *want, SmallPages());
  auto spliced_footer = Footer(out_path);
  auto whole_footer = Footer(whole_path);
  for (int c = 0; c < 2; ++c) {
    auto got = spliced_footer->RowGroup(0)->ColumnChunk(c)->statistics();
    auto expected = whole_footer->RowGroup(0)->ColumnChunk(c)->statistics();
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got->null_count(), expected->null_count());
    EXPECT_EQ(got->EncodeMin(), expected->EncodeMin());
    EXPECT_EQ(got->EncodeMax(), expected->EncodeMax());
    EXPECT_EQ(spliced_footer->RowGroup(0)->ColumnChunk(c)->num_values(), kRows);
  }
  // v keeps its dictionary page; the re-encoded pages are PLAIN.
  auto v_chunk = spliced_footer->RowGroup(0)->ColumnChunk(1);
  EXPECT_TRUE(v_chunk->has_dictionary_page());
  bool plain = false;
  for (const auto& s : v_chunk->encoding_stats()) {
    plain |= s.encoding == parquet::Encoding::PLAIN && s.page_type == parquet::PageType::DATA_PAGE;
  }
  EXPECT_TRUE(plain);

  // The page index leads a selective read to the pages it needs.
  std::vector<RowRange> some{{5050, 5050}, {19999, 19999}};
  ParquetReadStats stats;
  ASSERT_OK_AND_ASSIGN(auto rows, out->Read({"x", "v"}, &some, &stats));
  EXPECT_EQ(stats.chunks_by_index, 2);
  EXPECT_EQ(rows->num_rows(), 2);
  ASSERT_OK_AND_ASSIGN(auto segments, out->ColumnSegments("x", nullptr));
  ASSERT_TRUE(segments.has_value());
  EXPECT_GT(segments->size(), 2u);
}

TEST(PageSpliceTest, LeavesWholeWritesToWhatItCannotSplice) {
  testing::TempDir dir;
  auto base = Base();
  auto source = Open(WriteWhole(dir.path() + "/base.parquet", *base, SmallPages()));
  const std::vector<int64_t> few{10, 11};

  // Most pages changed: a whole write costs no more.
  std::vector<int64_t> many;
  for (int64_t i = 0; i < kRows; i += 100) many.push_back(i);
  ASSERT_OK_AND_ASSIGN(
      auto all, ParquetPageSplice::Plan(Schema(), SmallPages(), BothColumns(source.get(), many)));
  EXPECT_EQ(all, nullptr);

  // Another codec than the new file's.
  ParquetWriteOptions snappy = SmallPages();
  snappy.compression = "snappy";
  ASSERT_OK_AND_ASSIGN(auto codec,
                       ParquetPageSplice::Plan(Schema(), snappy, BothColumns(source.get(), few)));
  EXPECT_EQ(codec, nullptr);

  // Other types (the table's columns changed since).
  auto wider =
      arrow::schema({arrow::field("x", arrow::float32()), arrow::field("v", arrow::int32())});
  ASSERT_OK_AND_ASSIGN(
      auto typed, ParquetPageSplice::Plan(wider, SmallPages(), BothColumns(source.get(), few)));
  EXPECT_EQ(typed, nullptr);

  // More than one row group.
  ParquetWriteOptions groups = SmallPages();
  groups.row_group_size_rows = kRows / 2;
  auto grouped = Open(WriteWhole(dir.path() + "/groups.parquet", *base, groups));
  ASSERT_OK_AND_ASSIGN(
      auto two, ParquetPageSplice::Plan(Schema(), SmallPages(), BothColumns(grouped.get(), few)));
  EXPECT_EQ(two, nullptr);

  // No page index.
  ParquetWriteOptions unindexed = SmallPages();
  unindexed.write_page_index = false;
  auto bare = Open(WriteWhole(dir.path() + "/bare.parquet", *base, unindexed));
  ASSERT_OK_AND_ASSIGN(
      auto none, ParquetPageSplice::Plan(Schema(), SmallPages(), BothColumns(bare.get(), few)));
  EXPECT_EQ(none, nullptr);

  // Strings: their page bounds may be truncated.
  arrow::StringBuilder sb;
  for (int64_t i = 0; i < kRows; ++i) ASSERT_OK(sb.Append("s" + std::to_string(i)));
  auto strings_schema = arrow::schema({arrow::field("s", arrow::utf8())});
  auto strings = arrow::RecordBatch::Make(strings_schema, kRows, {sb.Finish().ValueOrDie()});
  auto text = Open(WriteWhole(dir.path() + "/s.parquet", *strings, SmallPages()));
  ASSERT_OK_AND_ASSIGN(
      auto str, ParquetPageSplice::Plan(strings_schema, SmallPages(), {{text.get(), "s", few}}));
  EXPECT_EQ(str, nullptr);
}

TEST(PageSpliceTest, AColumnThatCannotBeCopiedIsReencodedWholeNextToACopiedOne) {
  testing::TempDir dir;
  auto base = Base();
  auto source = Open(WriteWhole(dir.path() + "/base.parquet", *base, SmallPages()));
  // v from a file of one page: nothing of it to copy.
  ParquetWriteOptions big = SmallPages();
  big.data_page_size_bytes = 1 << 20;
  big.write_batch_size = 1 << 20;
  auto one_page = Open(WriteWhole(dir.path() + "/one.parquet", *base, big));
  const std::vector<int64_t> positions{7, 8, 9};
  ASSERT_OK_AND_ASSIGN(auto splice, ParquetPageSplice::Plan(Schema(), SmallPages(),
                                                            {{source.get(), "x", positions},
                                                             {one_page.get(), "v", positions}}));
  ASSERT_NE(splice, nullptr);
  ASSERT_EQ(splice->rewritten_rows(1).size(), 1u);
  EXPECT_EQ(splice->rewritten_rows(1)[0].count(), kRows);
  EXPECT_TRUE(splice->copied_pages(1).empty());
  EXPECT_FALSE(splice->copied_pages(0).empty());
  auto want = Changed(*base, positions);
  const std::string out_path = dir.path() + "/spliced.parquet";
  ASSERT_OK(WriteSpliced(splice.get(), *want, out_path));
  ASSERT_OK_AND_ASSIGN(auto table, Open(out_path)->Read({"x", "v"}, nullptr));
  ASSERT_OK_AND_ASSIGN(auto combined, table->CombineChunksToBatch());
  EXPECT_TRUE(combined->Equals(*want));
  auto footer = Footer(out_path);
  auto expected = Footer(WriteWhole(dir.path() + "/whole.parquet", *want, SmallPages()));
  for (int c = 0; c < 2; ++c) {
    auto got = footer->RowGroup(0)->ColumnChunk(c)->statistics();
    auto exp = expected->RowGroup(0)->ColumnChunk(c)->statistics();
    EXPECT_EQ(got->null_count(), exp->null_count());
    EXPECT_EQ(got->EncodeMin(), exp->EncodeMin());
    EXPECT_EQ(got->EncodeMax(), exp->EncodeMax());
  }
  // The whole column keeps a dictionary, as any new file's would.
  EXPECT_TRUE(footer->RowGroup(0)->ColumnChunk(1)->has_dictionary_page());
}

TEST(PageSpliceTest, ACopiedPageFailingItsCrcIsAnIOError) {
  testing::TempDir dir;
  auto base = Base();
  const std::string path = WriteWhole(dir.path() + "/base.parquet", *base, SmallPages());
  // Flip the last byte of x's chunk: the body of its last page, far from the changed rows.
  auto x = Footer(path)->RowGroup(0)->ColumnChunk(0);
  const int64_t last = x->data_page_offset() + x->total_compressed_size() - 1;
  {
    std::FILE* f = std::fopen(path.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::fseek(f, last, SEEK_SET);
    const int byte = std::fgetc(f);
    std::fseek(f, last, SEEK_SET);
    std::fputc(byte ^ 0x5a, f);
    std::fclose(f);
  }
  auto source = Open(path);
  auto planned = ParquetPageSplice::Plan(Schema(), SmallPages(), BothColumns(source.get(), {10}));
  ASSERT_TRUE(planned.status().IsIOError()) << planned.status().ToString();
  EXPECT_NE(planned.status().message().find(path), std::string::npos);
  EXPECT_NE(planned.status().message().find("CRC"), std::string::npos);
}

TEST(PageSpliceTest, WrongNewValuesAreInvalidAndWriteNothing) {
  testing::TempDir dir;
  auto base = Base();
  auto source = Open(WriteWhole(dir.path() + "/base.parquet", *base, SmallPages()));
  const std::vector<int64_t> few{10, 11};
  ASSERT_OK_AND_ASSIGN(
      auto splice, ParquetPageSplice::Plan(Schema(), SmallPages(), BothColumns(source.get(), few)));
  ASSERT_NE(splice, nullptr);
  ASSERT_OK_AND_ASSIGN(auto sink, arrow::io::BufferOutputStream::Create());
  const auto& run = splice->rewritten_rows(0)[0];
  // One value short.
  std::vector<std::vector<std::shared_ptr<arrow::Array>>> values(2);
  values[0].push_back(base->column(0)->Slice(run.from, run.count() - 1));
  values[1].push_back(base->column(1)->Slice(run.from, run.count()));
  EXPECT_TRUE(splice->Write(sink, values).IsInvalid());
  // Another type.
  values[0][0] = base->column(1)->Slice(run.from, run.count());
  EXPECT_TRUE(splice->Write(sink, values).IsInvalid());
  ASSERT_OK_AND_ASSIGN(int64_t written, sink->Tell());
  EXPECT_EQ(written, 0);
}

}  // namespace
}  // namespace paimon_rowid
