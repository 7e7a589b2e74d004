// Columns of nearly distinct values are written without a dictionary; columns with repeats
// keep theirs, and so does a column with too few values to judge.
#include "paimon_rowid/format/dictionary_choice.h"

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

namespace paimon_rowid {
namespace {

std::shared_ptr<arrow::RecordBatch> MakeBatch(int64_t rows) {
  arrow::Int64Builder ids, few;
  arrow::Int32Builder drawn;
  arrow::StringBuilder keys, labels;
  arrow::DoubleBuilder xs;
  for (int64_t i = 0; i < rows; ++i) {
    EXPECT_OK(ids.Append(i));
    EXPECT_OK(few.Append(i % 10));
    // Distinct but for every 20th value: 95% of the sample distinct.
    EXPECT_OK(drawn.Append(static_cast<int32_t>(i % 20 == 0 ? 7 : i * 2654435761 % 1000003)));
    if (i % 3 == 0) {
      EXPECT_OK(keys.AppendNull());  // nulls do not count
    } else {
      EXPECT_OK(keys.Append("key-" + std::to_string(i * 7919)));
    }
    EXPECT_OK(labels.Append(i % 2 ? "cat" : "dog"));
    EXPECT_OK(xs.Append(static_cast<double>(i)));
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("few", arrow::int64()),
                     arrow::field("drawn", arrow::int32()), arrow::field("key", arrow::utf8()),
                     arrow::field("label", arrow::utf8()), arrow::field("x", arrow::float64())});
  return arrow::RecordBatch::Make(
      schema, rows,
      {ids.Finish().ValueOrDie(), few.Finish().ValueOrDie(), drawn.Finish().ValueOrDie(),
       keys.Finish().ValueOrDie(), labels.Finish().ValueOrDie(), xs.Finish().ValueOrDie()});
}

TEST(DictionaryChoiceTest, PicksNearlyDistinctColumns) {
  EXPECT_EQ(NearlyDistinctColumns(*MakeBatch(10000)), (std::vector<std::string>{"id", "key"}));
  // A slice starts at its offset (no values of the rows before it).
  EXPECT_EQ(NearlyDistinctColumns(*MakeBatch(10000)->Slice(5000)),
            (std::vector<std::string>{"id", "key"}));
  // Too few values to judge: every dictionary stays.
  EXPECT_TRUE(NearlyDistinctColumns(*MakeBatch(200)).empty());
  DictionaryChoiceOptions loose;
  loose.min_distinct_share = 0.9;
  EXPECT_EQ(NearlyDistinctColumns(*MakeBatch(10000), loose),
            (std::vector<std::string>{"id", "drawn", "key"}));
}

TEST(DictionaryChoiceTest, PlainColumnsHaveNoDictionaryPage) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/t.parquet";
  auto batch = MakeBatch(10000);
  ParquetWriteOptions opts;
  opts.plain_columns = NearlyDistinctColumns(*batch);
  auto sink = arrow::io::FileOutputStream::Open(path).ValueOrDie();
  auto writer = ParquetFileWriter::Open(sink, batch->schema(), opts).ValueOrDie();
  ASSERT_OK(writer->Write(*batch));
  ASSERT_OK(writer->Close());
  auto reader = parquet::ParquetFileReader::OpenFile(path);
  auto group = reader->metadata()->RowGroup(0);
  std::vector<bool> dictionary;
  for (int c = 0; c < group->num_columns(); ++c) {
    dictionary.push_back(group->ColumnChunk(c)->has_dictionary_page());
  }
  // id, few, drawn, key, label, x (floating point never has one).
  EXPECT_EQ(dictionary, (std::vector<bool>{false, true, true, false, true, false}));
}

}  // namespace
}  // namespace paimon_rowid
