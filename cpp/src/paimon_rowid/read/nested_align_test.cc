#include "paimon_rowid/read/nested_align.h"

#include <gtest/gtest.h>

#include "arrow/json/from_string.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

DataTypePtr Row(std::vector<DataField> fields) { return DataType::Row(std::move(fields)); }
DataField F(int32_t id, const std::string& name, DataTypePtr type) {
  return {id, name, std::move(type), std::nullopt, std::nullopt};
}
DataTypePtr Int() { return DataType::Parse("INT").ValueOrDie(); }
DataTypePtr Str() { return DataType::Parse("STRING").ValueOrDie(); }

std::shared_ptr<arrow::ChunkedArray> Chunked(const std::shared_ptr<arrow::DataType>& type,
                                             const std::string& json) {
  auto array = arrow::json::ArrayFromJSONString(type, json).ValueOrDie();
  return std::make_shared<arrow::ChunkedArray>(array);
}

TEST(NestedAlignTest, RowFieldsByIdInsideArrays) {
  // File: ARRAY<ROW<x (1) INT, y (2) STRING>>; table: x renamed xx, y dropped, z (3) added.
  auto file = DataType::Array(Row({F(1, "x", Int()), F(2, "y", Str())}));
  auto table = DataType::Array(Row({F(3, "z", Str()), F(1, "xx", Int())}));
  auto column = Chunked(file->ToArrow(), R"([[{"x": 1, "y": "a"}], null, [{"x": 2, "y": null}]])");
  // A sliced chunk: the struct's offset applies to its children.
  column = std::make_shared<arrow::ChunkedArray>(column->chunk(0)->Slice(1));
  ASSERT_OK_AND_ASSIGN(auto aligned,
                       AlignNestedById(column, *file, *table, arrow::default_memory_pool()));
  EXPECT_TRUE(aligned->type()->Equals(*table->ToArrow())) << aligned->type()->ToString();
  auto expected = Chunked(table->ToArrow(), R"([null, [{"z": null, "xx": 2}]])");
  EXPECT_TRUE(aligned->Equals(*expected)) << aligned->ToString();
}

TEST(NestedAlignTest, MapValuesAndUnchangedTypes) {
  auto file = DataType::Map(Str()->WithNullable(false), Row({F(1, "k", Int())}));
  auto table = DataType::Map(Str()->WithNullable(false), Row({F(1, "kk", Int())}));
  auto column = Chunked(file->ToArrow(), R"([[["a", {"k": 5}]], null])");
  ASSERT_OK_AND_ASSIGN(auto aligned,
                       AlignNestedById(column, *file, *table, arrow::default_memory_pool()));
  EXPECT_TRUE(aligned->Equals(*Chunked(table->ToArrow(), R"([[["a", {"kk": 5}]], null])")));
  // Same ids and names: the column itself.
  ASSERT_OK_AND_ASSIGN(auto same,
                       AlignNestedById(column, *file, *file, arrow::default_memory_pool()));
  EXPECT_EQ(same.get(), column.get());
}

}  // namespace
}  // namespace paimon_rowid
