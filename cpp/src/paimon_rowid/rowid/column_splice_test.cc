// SpliceColumn: every type, with and without nulls on either side, sliced inputs, and the
// positions at the ends of the column, against a row-by-row reference.
#include "paimon_rowid/rowid/column_splice.h"

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "arrow/json/from_string.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid::rowid_internal {
namespace {

std::shared_ptr<arrow::Array> FromJson(const std::shared_ptr<arrow::DataType>& type,
                                       const std::string& json) {
  auto array = arrow::json::ArrayFromJSONString(type, json);
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  return *array;
}

// The spliced column built one row at a time.
std::shared_ptr<arrow::Array> Reference(const std::shared_ptr<arrow::Array>& current,
                                        const std::vector<int64_t>& positions,
                                        const std::shared_ptr<arrow::Array>& updates) {
  std::unique_ptr<arrow::ArrayBuilder> builder;
  EXPECT_TRUE(arrow::MakeBuilder(arrow::default_memory_pool(), current->type(), &builder).ok());
  size_t k = 0;
  for (int64_t i = 0; i < current->length(); ++i) {
    const bool updated = k < positions.size() && positions[k] == i;
    const auto& from = updated ? updates : current;
    const int64_t row = updated ? static_cast<int64_t>(k++) : i;
    EXPECT_TRUE(builder->AppendArraySlice(*from->data(), row, 1).ok());
  }
  std::shared_ptr<arrow::Array> out;
  EXPECT_TRUE(builder->Finish(&out).ok());
  return out;
}

struct Case {
  std::shared_ptr<arrow::DataType> type;
  std::string current;  // 6 values
  std::string updates;  // 3 values
};

TEST(ColumnSpliceTest, MatchesRowByRowReferenceForEveryKindOfType) {
  const std::vector<Case> cases = {
      {arrow::float64(), "[1.5, null, 3, -0.0, 5, 6]", "[10, null, 30]"},
      {arrow::float64(), "[1, 2, 3, 4, 5, 6]", "[10, 20, 30]"},
      {arrow::float64(), "[1, 2, 3, 4, 5, 6]", "[10, null, 30]"},
      {arrow::float32(), "[1, 2, null, 4, 5, 6]", "[7, 8, 9]"},
      {arrow::int8(), "[1, 2, 3, 4, 5, null]", "[-1, -2, -3]"},
      {arrow::int16(), "[1, 2, 3, 4, 5, 6]", "[null, null, null]"},
      {arrow::int32(), "[null, null, null, null, null, null]", "[1, 2, 3]"},
      {arrow::int64(), "[1, 2, 3, 4, 5, 6]", "[7, 8, 9]"},
      {arrow::date32(), "[1, 2, 3, 4, 5, 6]", "[7, null, 9]"},
      {arrow::timestamp(arrow::TimeUnit::MICRO), "[1, 2, 3, 4, 5, 6]", "[7, 8, 9]"},
      {arrow::decimal128(10, 2), R"(["1.00", "2.00", null, "4.00", "5.00", "6.00"])",
       R"(["7.25", "8.50", null])"},
      {arrow::fixed_size_binary(3), R"(["aaa", "bbb", "ccc", "ddd", null, "fff"])",
       R"(["xxx", null, "zzz"])"},
      // Not fixed-width: the gather path.
      {arrow::boolean(), "[true, false, null, true, false, true]", "[false, null, true]"},
      {arrow::utf8(), R"(["a", "bb", null, "dddd", "e", "f"])", R"(["x", null, "zzz"])"},
      {arrow::list(arrow::int32()), "[[1], [2, 3], null, [], [4], [5]]", "[[9], null, []]"},
  };
  const std::vector<std::vector<int64_t>> position_sets = {{0, 1, 2}, {0, 3, 5}, {3, 4, 5}};
  for (const Case& c : cases) {
    auto current = FromJson(c.type, c.current);
    auto updates = FromJson(c.type, c.updates);
    for (const auto& positions : position_sets) {
      SCOPED_TRACE(c.type->ToString() + " " + c.current + " <- " + c.updates + " at " +
                   std::to_string(positions[0]) + "," + std::to_string(positions[1]));
      ASSERT_OK_AND_ASSIGN(auto out,
                           SpliceColumn(current, positions, updates, arrow::default_memory_pool()));
      ASSERT_OK(out->ValidateFull());
      auto expected = Reference(current, positions, updates);
      EXPECT_TRUE(out->Equals(*expected)) << out->ToString() << "\nvs\n" << expected->ToString();
      EXPECT_EQ(out->null_count(), expected->null_count());
    }
  }
}

TEST(ColumnSpliceTest, HonoursTheOffsetsOfSlicedInputs) {
  for (const auto& type : {arrow::float64(), arrow::int32(), arrow::utf8(), arrow::boolean()}) {
    SCOPED_TRACE(type->ToString());
    const bool text = type->id() == arrow::Type::STRING;
    const bool flag = type->id() == arrow::Type::BOOL;
    auto current_all =
        FromJson(type, text ? R"(["p", "q", "a", null, "c", "d", "e", "f", "r"])"
                            : (flag ? "[true, true, false, null, true, false, true, false, true]"
                                    : "[90, 91, 1, null, 3, 4, 5, 6, 92]"));
    auto updates_all =
        FromJson(type, text ? R"(["s", "x", null, "z"])"
                            : (flag ? "[false, true, null, false]" : "[93, 10, null, 30]"));
    auto current = current_all->Slice(2, 6);
    auto updates = updates_all->Slice(1, 3);
    const std::vector<int64_t> positions = {1, 2, 5};
    ASSERT_OK_AND_ASSIGN(auto out,
                         SpliceColumn(current, positions, updates, arrow::default_memory_pool()));
    ASSERT_OK(out->ValidateFull());
    auto expected = Reference(current, positions, updates);
    EXPECT_TRUE(out->Equals(*expected)) << out->ToString() << "\nvs\n" << expected->ToString();
  }
}

TEST(ColumnSpliceTest, RefusesPositionsThatDoNotIncreaseOrFallOutside) {
  auto current = FromJson(arrow::int64(), "[1, 2, 3]");
  auto two = FromJson(arrow::int64(), "[7, 8]");
  auto* pool = arrow::default_memory_pool();
  EXPECT_FALSE(SpliceColumn(current, {1, 1}, two, pool).ok());
  EXPECT_FALSE(SpliceColumn(current, {2, 1}, two, pool).ok());
  EXPECT_FALSE(SpliceColumn(current, {1, 3}, two, pool).ok());
  EXPECT_FALSE(SpliceColumn(current, {-1, 0}, two, pool).ok());
  EXPECT_FALSE(SpliceColumn(current, {0}, two, pool).ok());  // one value per position
  EXPECT_FALSE(SpliceColumn(current, {0, 1}, FromJson(arrow::int32(), "[7, 8]"), pool).ok());
}

}  // namespace
}  // namespace paimon_rowid::rowid_internal
