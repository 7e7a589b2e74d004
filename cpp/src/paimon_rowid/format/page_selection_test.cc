// Page-selective reads of ParquetFileReader (page_selection.cc, sparse_pages.cc): randomized
// tables of every column kind, written by our writer and by Arrow's with and without page
// indexes, read for randomized row selections and compared with a full read plus Take.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "arrow/api.h"
#include "arrow/io/file.h"
#include "arrow/util/bit_util.h"
#include "paimon_rowid/format/parquet_io.h"
#include "paimon_rowid/format/test_util.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"
#include "parquet/arrow/writer.h"
#include "parquet/properties.h"

namespace paimon_rowid {
namespace {

std::shared_ptr<arrow::Buffer> ValidityBitmap(int64_t n, double null_prob, std::mt19937_64* rng,
                                              int64_t* null_count) {
  arrow::BooleanBuilder valid;
  std::bernoulli_distribution is_null(null_prob);
  *null_count = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool null = is_null(*rng);
    *null_count += null;
    EXPECT_OK(valid.Append(!null));
  }
  return valid.Finish().ValueOrDie()->data()->buffers[1];
}

std::shared_ptr<arrow::Array> RandomArray(const std::shared_ptr<arrow::DataType>& type, int64_t n,
                                          double null_prob, std::mt19937_64* rng);

// Offsets of n lists of 0..4 elements, empty where `bitmap` says null; returns the total
// element count.
std::shared_ptr<arrow::Buffer> RandomOffsets(int64_t n, const arrow::Buffer& bitmap,
                                             std::mt19937_64* rng, int64_t* total) {
  arrow::Int32Builder offsets;
  std::uniform_int_distribution<int> len(0, 4);
  int32_t at = 0;
  EXPECT_OK(offsets.Append(0));
  for (int64_t i = 0; i < n; ++i) {
    int l = len(*rng);
    if (arrow::bit_util::GetBit(bitmap.data(), i)) at += l;
    EXPECT_OK(offsets.Append(at));
  }
  *total = at;
  return offsets.Finish().ValueOrDie()->data()->buffers[1];
}

std::shared_ptr<arrow::Array> RandomArray(const std::shared_ptr<arrow::DataType>& type, int64_t n,
                                          double null_prob, std::mt19937_64* rng) {
  std::bernoulli_distribution is_null(null_prob);
  std::uniform_int_distribution<int64_t> any(-1'000'000'000, 1'000'000'000);
  std::uniform_int_distribution<int> small(0, 50);  // low cardinality: dictionary pages
  int64_t null_count = 0;
  switch (type->id()) {
    case arrow::Type::LIST: {
      int64_t total = 0;
      auto bitmap = ValidityBitmap(n, null_prob, rng, &null_count);
      auto offsets = RandomOffsets(n, *bitmap, rng, &total);
      auto values = RandomArray(type->field(0)->type(), total, 0.1, rng);
      return std::make_shared<arrow::ListArray>(type, n, offsets, values, bitmap, null_count);
    }
    case arrow::Type::MAP: {
      int64_t total = 0;
      auto bitmap = ValidityBitmap(n, null_prob, rng, &null_count);
      auto offsets = RandomOffsets(n, *bitmap, rng, &total);
      const auto& map = static_cast<const arrow::MapType&>(*type);
      auto keys = RandomArray(map.key_type(), total, 0.0, rng);
      auto items = RandomArray(map.item_type(), total, 0.2, rng);
      return std::make_shared<arrow::MapArray>(type, n, offsets, keys, items, bitmap, null_count);
    }
    case arrow::Type::STRUCT: {
      std::vector<std::shared_ptr<arrow::Array>> children;
      for (const auto& f : type->fields()) {
        children.push_back(RandomArray(f->type(), n, f->nullable() ? 0.1 : 0.0, rng));
      }
      auto bitmap = ValidityBitmap(n, null_prob, rng, &null_count);
      return std::make_shared<arrow::StructArray>(type, n, children, bitmap, null_count);
    }
    default:
      break;
  }
  std::unique_ptr<arrow::ArrayBuilder> builder;
  EXPECT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), type, &builder));
  for (int64_t i = 0; i < n; ++i) {
    if (is_null(*rng)) {
      EXPECT_OK(builder->AppendNull());
      continue;
    }
    arrow::Status st;
    int64_t v = any(*rng);
    switch (type->id()) {
      case arrow::Type::BOOL:
        st = static_cast<arrow::BooleanBuilder*>(builder.get())->Append(v % 2 == 0);
        break;
      case arrow::Type::INT32:
        st = static_cast<arrow::Int32Builder*>(builder.get())->Append(small(*rng));
        break;
      case arrow::Type::INT64:
        st = static_cast<arrow::Int64Builder*>(builder.get())->Append(v);
        break;
      case arrow::Type::FLOAT:
        st = static_cast<arrow::FloatBuilder*>(builder.get())->Append(static_cast<float>(v) / 7);
        break;
      case arrow::Type::DOUBLE:
        st = static_cast<arrow::DoubleBuilder*>(builder.get())->Append(static_cast<double>(v) / 3);
        break;
      case arrow::Type::STRING:
        st = static_cast<arrow::StringBuilder*>(builder.get())
                 ->Append(v % 3 == 0 ? "k" + std::to_string(small(*rng))
                                     : "value-" + std::to_string(v));
        break;
      case arrow::Type::BINARY:
        st = static_cast<arrow::BinaryBuilder*>(builder.get())
                 ->Append(std::string(static_cast<size_t>(small(*rng)), static_cast<char>(v)));
        break;
      case arrow::Type::DECIMAL128:
        st = static_cast<arrow::Decimal128Builder*>(builder.get())->Append(arrow::Decimal128(v));
        break;
      case arrow::Type::DATE32:
        st = static_cast<arrow::Date32Builder*>(builder.get())->Append(small(*rng) * 100);
        break;
      case arrow::Type::TIMESTAMP:
        st = static_cast<arrow::TimestampBuilder*>(builder.get())->Append(v * 1000);
        break;
      case arrow::Type::TIME64:
        st = static_cast<arrow::Time64Builder*>(builder.get())
                 ->Append((v < 0 ? -v : v) % 86'400'000'000LL);
        break;
      default:
        ADD_FAILURE() << "no generator for " << type->ToString();
    }
    EXPECT_OK(st);
  }
  return builder->Finish().ValueOrDie();
}

std::shared_ptr<arrow::Schema> WideSchema() {
  return arrow::schema({
      arrow::field("i64", arrow::int64(), false),
      arrow::field("i32", arrow::int32()),
      arrow::field("f32", arrow::float32()),
      arrow::field("f64", arrow::float64(), false),
      arrow::field("b", arrow::boolean()),
      arrow::field("s", arrow::utf8()),
      arrow::field("s_nn", arrow::utf8(), false),
      arrow::field("bin", arrow::binary()),
      arrow::field("dec", arrow::decimal128(18, 3)),
      arrow::field("d", arrow::date32()),
      arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO)),
      // Our writer: INT96 (the others write INT64 NANOS).
      arrow::field("ts9", arrow::timestamp(arrow::TimeUnit::NANO)),
      arrow::field("t", arrow::time64(arrow::TimeUnit::MICRO)),
      arrow::field("l", arrow::list(arrow::field("element", arrow::int32()))),
      arrow::field("m", arrow::map(arrow::utf8(), arrow::int64())),
      arrow::field("st", arrow::struct_(
                             {arrow::field("a", arrow::int32()), arrow::field("b", arrow::utf8()),
                              arrow::field("t9", arrow::timestamp(arrow::TimeUnit::NANO, "UTC"))})),
      arrow::field("ls", arrow::list(arrow::field(
                             "element", arrow::struct_({arrow::field("x", arrow::int64()),
                                                        arrow::field("y", arrow::utf8())})))),
  });
}

std::shared_ptr<arrow::Table> RandomTable(const std::shared_ptr<arrow::Schema>& schema, int64_t n,
                                          uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (const auto& f : schema->fields()) {
    columns.push_back(RandomArray(f->type(), n, f->nullable() ? 0.15 : 0.0, &rng));
  }
  return arrow::Table::Make(schema, columns, n);
}

enum class Writer { kOurs, kNoIndexV1, kNoIndexV2, kNoIndexPlain, kNoIndexFallback };

std::string WriteTable(const std::string& path, const arrow::Table& table, Writer writer,
                       int64_t rows_per_group) {
  auto sink = arrow::io::FileOutputStream::Open(path).ValueOrDie();
  if (writer == Writer::kOurs) {
    ParquetWriteOptions opts;
    opts.row_group_size_rows = rows_per_group;
    opts.data_page_size_bytes = 1024;  // many pages per chunk
    opts.write_batch_size = 64;
    auto w = ParquetFileWriter::Open(sink, table.schema(), opts).ValueOrDie();
    arrow::TableBatchReader batches(table);
    std::shared_ptr<arrow::RecordBatch> batch;
    while (batches.ReadNext(&batch).ok() && batch != nullptr) {
      auto st = w->Write(*batch);
      EXPECT_OK(st);
    }
    EXPECT_OK(w->Close());
    return path;
  }
  // pyarrow / pypaimon style: no page index, header statistics.
  parquet::WriterProperties::Builder props;
  props.disable_write_page_index()
      ->compression(arrow::Compression::ZSTD)
      ->data_pagesize(1024)
      ->write_batch_size(64)
      ->max_row_group_length(rows_per_group);
  if (writer == Writer::kNoIndexV2) props.data_page_version(parquet::ParquetDataPageVersion::V2);
  if (writer == Writer::kNoIndexPlain) props.disable_dictionary();
  // Dictionaries overflow within the chunk: dictionary-encoded pages, then PLAIN ones.
  if (writer == Writer::kNoIndexFallback) props.dictionary_pagesize_limit(512);
  EXPECT_OK(parquet::arrow::WriteTable(table, arrow::default_memory_pool(), sink, rows_per_group,
                                       props.build()));
  EXPECT_OK(sink->Close());
  return path;
}

std::vector<RowRange> RandomSelection(int64_t rows, int shape, std::mt19937_64* rng) {
  std::vector<RowRange> sel;
  switch (shape) {
    case 0:
      return sel;  // empty
    case 1:
      return {{0, 0}};  // first row
    case 2:
      return {{rows - 1, rows - 1}};  // last row
    case 3:
      return {{0, rows - 1}};  // all rows
    case 4: {                  // sparse single rows
      std::uniform_int_distribution<int64_t> step(1, rows / 10);
      for (int64_t r = step(*rng) - 1; r < rows; r += step(*rng)) sel.push_back({r, r});
      return sel;
    }
    case 5: {  // long runs crossing pages and row groups
      std::uniform_int_distribution<int64_t> len(1, rows / 3);
      for (int64_t r = len(*rng) / 4; r < rows;) {
        int64_t to = std::min(rows - 1, r + len(*rng));
        sel.push_back({r, to});
        r = to + 1 + len(*rng);
      }
      return sel;
    }
    default: {  // a mixture of short runs and gaps
      std::uniform_int_distribution<int64_t> len(1, 40);
      std::uniform_int_distribution<int64_t> gap(0, 300);
      for (int64_t r = gap(*rng); r < rows;) {
        int64_t to = std::min(rows - 1, r + len(*rng) - 1);
        sel.push_back({r, to});
        r = to + 1 + gap(*rng) + 1;
      }
      return sel;
    }
  }
}

struct Case {
  Writer writer;
  int64_t rows;
  int64_t rows_per_group;
};

void CheckCase(const Case& c, uint64_t seed, ParquetReadStats* sparse_stats) {
  testing::TempDir dir;
  auto schema = WideSchema();
  auto table = RandomTable(schema, c.rows, seed);
  std::string path = WriteTable(dir.path() + "/w.parquet", *table, c.writer, c.rows_per_group);
  auto file = arrow::io::ReadableFile::Open(path).ValueOrDie();
  auto reader = ParquetFileReader::Open(file, path).ValueOrDie();
  ASSERT_EQ(reader->num_rows(), c.rows);
  std::vector<std::string> names;
  for (const auto& f : schema->fields()) names.push_back(f->name());
  auto full = reader->Read(names, nullptr).ValueOrDie();
  ASSERT_EQ(full->num_rows(), c.rows);
  std::mt19937_64 rng(seed * 31 + 7);
  for (int round = 0; round < 14; ++round) {
    int shape = round % 7;
    auto sel = RandomSelection(c.rows, shape, &rng);
    auto expected = testing::TakeRanges(full, sel);
    // All columns, and a projection in another order.
    std::vector<std::string> projected = {"ls", "s", "i64", "st"};
    ParquetReadStats stats;
    auto got = reader->Read(names, &sel, &stats);
    ASSERT_OK(got);
    ASSERT_EQ((*got)->num_rows(), expected->num_rows());
    for (int i = 0; i < expected->num_columns(); ++i) {
      ASSERT_TRUE((*got)->column(i)->Equals(*expected->column(i)))
          << "column " << names[i] << " shape " << shape << " seed " << seed;
    }
    auto some = reader->Read(projected, &sel).ValueOrDie();
    for (size_t i = 0; i < projected.size(); ++i) {
      ASSERT_TRUE(
          some->column(static_cast<int>(i))->Equals(*expected->GetColumnByName(projected[i])))
          << "projected column " << projected[i] << " shape " << shape;
    }
    if (shape == 4 && sparse_stats != nullptr) *sparse_stats = stats;
  }
}

TEST(ParquetIOPageSelectionTest, OurWriterWithPageIndex) {
  ParquetReadStats stats;
  CheckCase({Writer::kOurs, 6000, 2500}, 1, &stats);
  // Every column chunk, nested ones included, goes through the index, and pages are skipped.
  EXPECT_EQ(stats.chunks_whole, 0);
  EXPECT_EQ(stats.chunks_by_filter, 0);
  EXPECT_GT(stats.chunks_by_index, 0);
  EXPECT_LT(stats.data_pages_decoded, stats.data_pages_total);
  EXPECT_GT(stats.bytes_fetched_by_index, 0);
  EXPECT_GT(stats.dictionaries_in_place, 0);           // dictionary prefix and kept pages split
  CheckCase({Writer::kOurs, 3000, 3000}, 2, nullptr);  // one row group
  CheckCase({Writer::kOurs, 777, 100}, 3, nullptr);    // many small row groups
}

TEST(ParquetIOPageSelectionTest, OneRunOfRowsIsSlicedNotTaken) {
  // A range scan's survivors: one run inside the decoded pages comes out as a slice of them.
  testing::TempDir dir;
  auto schema = WideSchema();
  auto table = RandomTable(schema, 6000, 11);
  std::string path = WriteTable(dir.path() + "/w.parquet", *table, Writer::kOurs, 6000);
  auto file = arrow::io::ReadableFile::Open(path).ValueOrDie();
  auto reader = ParquetFileReader::Open(file, path).ValueOrDie();
  std::vector<std::string> names;
  for (const auto& f : schema->fields()) names.push_back(f->name());
  auto full = reader->Read(names, nullptr).ValueOrDie();
  for (const std::vector<RowRange>& sel :
       {std::vector<RowRange>{{1000, 4999}}, std::vector<RowRange>{{1, 5998}}}) {
    ParquetReadStats stats;
    auto got = reader->Read(names, &sel, &stats);
    ASSERT_OK(got);
    auto expected = testing::TakeRanges(full, sel);
    ASSERT_EQ((*got)->num_rows(), expected->num_rows());
    for (int i = 0; i < expected->num_columns(); ++i) {
      ASSERT_TRUE((*got)->column(i)->Equals(*expected->column(i))) << "column " << names[i];
    }
    EXPECT_GT(stats.chunks_sliced, 0);
  }
}

TEST(ParquetIOPageSelectionTest, NoIndexV1Pages) {
  ParquetReadStats stats;
  CheckCase({Writer::kNoIndexV1, 6000, 6000}, 4, &stats);  // pypaimon: one row group
  EXPECT_EQ(stats.chunks_by_index, 0);
  EXPECT_GT(stats.chunks_by_filter, 0);
  EXPECT_GT(stats.chunks_whole, 0);   // nested columns without an index
  EXPECT_GT(stats.chunks_sparse, 0);  // the string column: few rows per decoded page
  // Flat INT32/INT64/FLOAT/DOUBLE/DATE and string chunks: gathered from their pages.
  EXPECT_GE(stats.chunks_from_pages, 8);
  // pyarrow writes dictionaries: each read in place, from a page reader of its own.
  EXPECT_EQ(stats.dictionaries_in_place, stats.chunks_from_pages);
  EXPECT_LT(stats.data_pages_decoded, stats.data_pages_total);
  CheckCase({Writer::kNoIndexV1, 5000, 1200}, 5, nullptr);
}

TEST(ParquetIOPageSelectionTest, NoIndexV2Pages) {
  ParquetReadStats stats;
  CheckCase({Writer::kNoIndexV2, 6000, 6000}, 6, &stats);
  EXPECT_GE(stats.chunks_from_pages, 8);
  EXPECT_EQ(stats.dictionaries_in_place, stats.chunks_from_pages);
  CheckCase({Writer::kNoIndexV2, 4000, 1500}, 7, nullptr);
}

TEST(ParquetIOPageSelectionTest, NoIndexPlainEncoding) {
  ParquetReadStats stats;
  CheckCase({Writer::kNoIndexPlain, 5000, 5000}, 8, &stats);
  EXPECT_GT(stats.chunks_sparse, 0);  // PLAIN strings gathered value by value
  EXPECT_GT(stats.chunks_from_pages, 0);
  EXPECT_EQ(stats.dictionaries_in_place, 0);  // no dictionary pages
}

TEST(ParquetIOPageSelectionTest, NoIndexDictionaryFallback) {
  ParquetReadStats stats;
  CheckCase({Writer::kNoIndexFallback, 6000, 6000}, 9, &stats);
  EXPECT_GT(stats.chunks_from_pages, 0);
  EXPECT_GT(stats.dictionaries_in_place, 0);
  CheckCase({Writer::kNoIndexFallback, 4000, 1300}, 10, nullptr);
}

TEST(ParquetIOPageSelectionTest, ManySeeds) {
  for (uint64_t seed = 100; seed < 106; ++seed) {
    CheckCase({seed % 2 ? Writer::kOurs : Writer::kNoIndexV1, 1000 + 397 * (seed % 5),
               300 + 211 * (seed % 3)},
              seed, nullptr);
  }
}

TEST(ParquetIOPageSelectionTest, PagesHoldingRows) {
  std::vector<int64_t> first{0, 10, 20, 30};
  EXPECT_EQ(format_internal::PagesHoldingRows(first, 35, {}), std::vector<int>{});
  EXPECT_EQ(format_internal::PagesHoldingRows(first, 35, {{0, 0}}), std::vector<int>{0});
  EXPECT_EQ(format_internal::PagesHoldingRows(first, 35, {{34, 34}}), std::vector<int>{3});
  EXPECT_EQ(format_internal::PagesHoldingRows(first, 35, {{9, 10}}), (std::vector<int>{0, 1}));
  EXPECT_EQ(format_internal::PagesHoldingRows(first, 35, {{5, 6}, {25, 25}}),
            (std::vector<int>{0, 2}));
  EXPECT_EQ(format_internal::PagesHoldingRows(first, 35, {{0, 34}}),
            (std::vector<int>{0, 1, 2, 3}));
}

// Not a test: the cost of page sizes for writes, scans and reads by row position on a
// 1M-row (int64, double, int32, string) file. Run with
//   format_test --gtest_also_run_disabled_tests --gtest_filter='*PageSizeCost*'
TEST(ParquetIOPageSelectionTest, DISABLED_PageSizeCost) {
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  const int64_t rows = 1 << 20;
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("x", arrow::float64()),
                     arrow::field("y", arrow::int32()), arrow::field("s", arrow::utf8())});
  std::mt19937_64 rng(42);
  auto table = RandomTable(schema, rows, 42);
  testing::TempDir dir;
  struct Setting {
    int64_t page_bytes;
    int64_t batch;
  };
  for (Setting setting : {Setting{1 << 20, 1024}, Setting{256 << 10, 1024}, Setting{64 << 10, 1024},
                          Setting{64 << 10, 256}, Setting{16 << 10, 256}}) {
    std::string path = dir.path() + "/p" + std::to_string(setting.page_bytes) + "-" +
                       std::to_string(setting.batch) + ".parquet";
    auto t0 = Clock::now();
    {
      auto sink = arrow::io::FileOutputStream::Open(path).ValueOrDie();
      ParquetWriteOptions opts;
      opts.data_page_size_bytes = setting.page_bytes;
      opts.write_batch_size = setting.batch;
      auto w = ParquetFileWriter::Open(sink, schema, opts).ValueOrDie();
      arrow::TableBatchReader batches(*table);
      batches.set_chunksize(64 << 10);
      std::shared_ptr<arrow::RecordBatch> batch;
      while (batches.ReadNext(&batch).ok() && batch != nullptr) ASSERT_OK(w->Write(*batch));
      ASSERT_OK(w->Close());
    }
    double write_s = seconds(t0);
    auto file = arrow::io::ReadableFile::Open(path).ValueOrDie();
    int64_t size = file->GetSize().ValueOrDie();
    auto reader = ParquetFileReader::Open(file, path).ValueOrDie();
    t0 = Clock::now();
    ASSERT_OK(reader->Read({"id", "x", "y", "s"}, nullptr));
    double scan_s = seconds(t0);
    std::printf("page %7lld B batch %4lld: file %.1f MiB write %.3f s scan %.3f s\n",
                static_cast<long long>(setting.page_bytes), static_cast<long long>(setting.batch),
                static_cast<double>(size) / (1 << 20), write_s, scan_s);
    for (int64_t k : {100, 1000, 10000, 100000}) {
      std::vector<RowRange> sel;
      std::uniform_int_distribution<int64_t> pick(0, rows - 1);
      std::vector<int64_t> ids;
      for (int64_t i = 0; i < k; ++i) ids.push_back(pick(rng));
      std::sort(ids.begin(), ids.end());
      for (int64_t id : ids) {
        if (sel.empty() || sel.back().to < id) sel.push_back({id, id});
      }
      ParquetReadStats stats;
      t0 = Clock::now();
      ASSERT_OK(reader->Read({"x", "s"}, &sel, &stats));
      std::printf("  %6lld ids: %.4f s, pages %lld/%lld, fetched %.1f MiB\n",
                  static_cast<long long>(k), seconds(t0),
                  static_cast<long long>(stats.data_pages_decoded),
                  static_cast<long long>(stats.data_pages_total),
                  static_cast<double>(stats.bytes_fetched_by_index) / (1 << 20));
    }
  }
}

}  // namespace
}  // namespace paimon_rowid
