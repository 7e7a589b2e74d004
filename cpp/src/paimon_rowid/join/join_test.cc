#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "arrow/api.h"
#include "arrow/json/from_string.h"
#include "paimon_rowid/join/hash_join.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

using Build = HashJoinOptions::Build;

std::shared_ptr<arrow::RecordBatch> Batch(const std::shared_ptr<arrow::Schema>& schema,
                                          const std::vector<std::string>& columns_json) {
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int c = 0; c < schema->num_fields(); ++c) {
    columns.push_back(
        arrow::json::ArrayFromJSONString(schema->field(c)->type(), columns_json[c]).ValueOrDie());
  }
  int64_t rows = columns.empty() ? 0 : columns[0]->length();
  return arrow::RecordBatch::Make(schema, rows, std::move(columns));
}

std::shared_ptr<arrow::RecordBatchReader> Reader(
    const std::shared_ptr<arrow::Schema>& schema,
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches) {
  return arrow::RecordBatchReader::Make(std::move(batches), schema).ValueOrDie();
}

// The rows of a table as "a|b|c" strings, sorted (join output order is unspecified).
std::vector<std::string> Rows(const std::shared_ptr<arrow::Table>& table) {
  std::vector<std::string> out;
  auto combined = table->CombineChunksToBatch().ValueOrDie();
  for (int64_t i = 0; i < combined->num_rows(); ++i) {
    std::string row;
    for (int c = 0; c < combined->num_columns(); ++c) {
      if (c) row += "|";
      row += combined->column(c)->GetScalar(i).ValueOrDie()->ToString();
    }
    out.push_back(row);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Sorted(std::vector<std::string> rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

Result<std::shared_ptr<arrow::Table>> Join(std::shared_ptr<arrow::RecordBatchReader> left,
                                           std::shared_ptr<arrow::RecordBatchReader> right,
                                           std::vector<std::string> left_keys,
                                           std::vector<std::string> right_keys,
                                           HashJoinOptions options = {}) {
  ARROW_ASSIGN_OR_RAISE(auto reader,
                        HashJoinInner(std::move(left), std::move(right), std::move(left_keys),
                                      std::move(right_keys), options));
  return reader->ToTable();
}

auto LeftSchema() {
  return arrow::schema({arrow::field("k", arrow::int64()), arrow::field("a", arrow::utf8())});
}
auto RightSchema() {
  return arrow::schema({arrow::field("b", arrow::int32()), arrow::field("rk", arrow::int64())});
}

TEST(HashJoinTest, SingleKeyLayoutAndRows) {
  for (Build build : {Build::kAuto, Build::kLeft, Build::kRight}) {
    auto left = Reader(LeftSchema(), {Batch(LeftSchema(), {"[1, 2, 3]", R"(["x", "y", "z"])"}),
                                      Batch(LeftSchema(), {"[4]", R"(["w"])"})});
    auto right = Reader(RightSchema(), {Batch(RightSchema(), {"[10, 30, 50]", "[1, 3, 5]"})});
    HashJoinOptions options;
    options.build = build;
    ASSERT_OK_AND_ASSIGN(auto out, Join(left, right, {"k"}, {"rk"}, options));
    // Left fields, then right non-key fields; the key once, with the left name.
    EXPECT_EQ(out->schema()->ToString(),
              arrow::schema({arrow::field("k", arrow::int64()), arrow::field("a", arrow::utf8()),
                             arrow::field("b", arrow::int32())})
                  ->ToString());
    EXPECT_EQ(Rows(out), Sorted({"1|x|10", "3|z|30"}));
  }
}

TEST(HashJoinTest, CompositeStringKeysAndNulls) {
  auto ls = arrow::schema({arrow::field("s", arrow::utf8()), arrow::field("i", arrow::int32()),
                           arrow::field("v", arrow::float64())});
  auto rs = arrow::schema({arrow::field("i", arrow::int32()), arrow::field("s", arrow::utf8()),
                           arrow::field("w", arrow::large_utf8())});
  for (Build build : {Build::kLeft, Build::kRight}) {
    auto left = Reader(ls, {Batch(ls, {R"(["a", "a", "b", null, "c"])", "[1, 2, 1, 1, null]",
                                       "[0.5, 1.5, 2.5, 3.5, 4.5]"})});
    auto right = Reader(rs, {Batch(rs, {"[1, 1, 2, 1, null]", R"(["a", "b", "b", null, "c"])",
                                        R"(["p", "q", "r", "s", "t"])"})});
    HashJoinOptions options;
    options.build = build;
    ASSERT_OK_AND_ASSIGN(auto out, Join(left, right, {"s", "i"}, {"s", "i"}, options));
    EXPECT_EQ(out->num_columns(), 4);
    EXPECT_EQ(out->schema()->field(3)->name(), "w");
    // NULL keys (either column) never match, not even NULL with NULL.
    EXPECT_EQ(Rows(out), Sorted({"a|1|0.5|p", "b|1|2.5|q"}));
  }
}

TEST(HashJoinTest, DuplicatesFanOutInBoundedBatches) {
  for (Build build : {Build::kLeft, Build::kRight}) {
    auto left =
        Reader(LeftSchema(), {Batch(LeftSchema(), {"[1, 1, 2, 1]", R"(["a", "b", "c", "d"])"}),
                              Batch(LeftSchema(), {"[1, 2]", R"(["e", "f"])"})});
    auto right = Reader(RightSchema(), {Batch(RightSchema(), {"[10, 11, 12]", "[1, 1, 2]"}),
                                        Batch(RightSchema(), {"[13]", "[1]"})});
    HashJoinOptions options;
    options.build = build;
    options.batch_rows = 4;
    ASSERT_OK_AND_ASSIGN(auto reader, HashJoinInner(left, right, {"k"}, {"rk"}, options));
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
    int64_t rows = 0;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ASSERT_OK(reader->ReadNext(&batch));
      if (!batch) break;
      EXPECT_LE(batch->num_rows(), 4);
      EXPECT_GT(batch->num_rows(), 0);
      ASSERT_OK(batch->ValidateFull());
      rows += batch->num_rows();
      batches.push_back(batch);
    }
    // Key 1: 4 left x 3 right; key 2: 2 left x 1 right.
    EXPECT_EQ(rows, 14);
    ASSERT_OK_AND_ASSIGN(auto table, arrow::Table::FromRecordBatches(reader->schema(), batches));
    std::vector<std::string> expected;
    for (std::string a : {"a", "b", "d", "e"}) {
      for (std::string b : {"10", "11", "13"}) expected.push_back("1|" + a + "|" + b);
    }
    expected.push_back("2|c|12");
    expected.push_back("2|f|12");
    EXPECT_EQ(Rows(table), Sorted(expected));
  }
}

TEST(HashJoinTest, NestedPayloadsPassThrough) {
  auto ls = arrow::schema({
      arrow::field("k", arrow::utf8()),
      arrow::field("arr", arrow::list(arrow::int32())),
      arrow::field("m", arrow::map(arrow::utf8(), arrow::int32())),
      arrow::field("row", arrow::struct_({arrow::field("x", arrow::int32()),
                                          arrow::field("y", arrow::utf8())})),
  });
  auto rs = arrow::schema({
      arrow::field("k", arrow::utf8()),
      arrow::field("vec", arrow::fixed_size_list(arrow::float32(), 3)),
      arrow::field("blob", arrow::large_binary()),
      arrow::field("arr2", arrow::list(arrow::list(arrow::int64()))),
  });
  for (Build build : {Build::kLeft, Build::kRight}) {
    auto left = Reader(ls, {Batch(ls, {R"(["a", "b", "c"])", "[[1, 2], null, []]",
                                       R"([[["p", 1]], [], [["q", 2], ["r", 3]]])",
                                       R"([{"x": 1, "y": "u"}, null, {"x": 3, "y": null}])"})});
    auto right = Reader(rs, {Batch(rs, {R"(["c", "a", "a"])", "[[1, 2, 3], [4, 5, 6], null]",
                                        R"(["AQI=", "", "/w=="])", "[[[1], [2, 3]], null, []]"})});
    HashJoinOptions options;
    options.build = build;
    ASSERT_OK_AND_ASSIGN(auto out, Join(left, right, {"k"}, {"k"}, options));
    ASSERT_OK(out->ValidateFull());
    EXPECT_EQ(out->num_columns(), 7);
    EXPECT_EQ(out->num_rows(), 3);
    EXPECT_TRUE(
        out->schema()->field(4)->type()->Equals(arrow::fixed_size_list(arrow::float32(), 3)));
    auto rows = Rows(out);
    ASSERT_EQ(rows.size(), 3u);
    // Each row carries its own side's nested values.
    EXPECT_NE(rows[0].find("[1, 2]"), std::string::npos) << rows[0];
    EXPECT_NE(rows[2].find("[1, 2, 3]"), std::string::npos) << rows[2];
  }
}

TEST(HashJoinTest, EmptySidesGiveTypedEmptyOutput) {
  auto full_left = [] {
    return Reader(LeftSchema(), {Batch(LeftSchema(), {"[1, 2]", R"(["x", "y"])"})});
  };
  auto full_right = [] {
    return Reader(RightSchema(), {Batch(RightSchema(), {"[10, 20]", "[1, 2]"})});
  };
  auto empty_left = [] { return Reader(LeftSchema(), {}); };
  auto empty_right = [] {
    return Reader(RightSchema(), {Batch(RightSchema(), {"[]", "[]"})});  // a 0-row batch
  };
  for (Build build : {Build::kLeft, Build::kRight}) {
    HashJoinOptions options;
    options.build = build;
    for (auto [l, r] :
         {std::pair{empty_left(), full_right()}, std::pair{full_left(), empty_right()},
          std::pair{empty_left(), empty_right()}}) {
      ASSERT_OK_AND_ASSIGN(auto out, Join(l, r, {"k"}, {"rk"}, options));
      EXPECT_EQ(out->num_rows(), 0);
      EXPECT_EQ(out->schema()->ToString(),
                arrow::schema({arrow::field("k", arrow::int64()), arrow::field("a", arrow::utf8()),
                               arrow::field("b", arrow::int32())})
                    ->ToString());
    }
  }
}

TEST(HashJoinTest, FloatKeysCompareByValue) {
  auto ls = arrow::schema({arrow::field("f", arrow::float64()), arrow::field("a", arrow::int32())});
  auto rs = arrow::schema({arrow::field("f", arrow::float64()), arrow::field("b", arrow::int32())});
  auto neg_zero = arrow::json::ArrayFromJSONString(arrow::float64(), "[-0.0, 1.5]").ValueOrDie();
  auto left = Reader(
      ls,
      {arrow::RecordBatch::Make(
          ls, 2,
          {neg_zero, arrow::json::ArrayFromJSONString(arrow::int32(), "[1, 2]").ValueOrDie()})});
  auto right = Reader(rs, {Batch(rs, {"[0.0, 1.5, 2.5]", "[10, 20, 30]"})});
  ASSERT_OK_AND_ASSIGN(auto out, Join(left, right, {"f"}, {"f"}));
  EXPECT_EQ(out->num_rows(), 2);
}

TEST(HashJoinTest, KeyTypesOfManyKinds) {
  struct Case {
    std::shared_ptr<arrow::DataType> type;
    std::string json;  // 3 values; the right side holds the first and the third
    std::string right_json;
  };
  std::vector<Case> cases = {
      {arrow::boolean(), "[true, false, null]", "[true, null]"},
      {arrow::int8(), "[1, 2, 3]", "[1, 3]"},
      {arrow::uint64(), "[1, 2, 18446744073709551615]", "[1, 18446744073709551615]"},
      {arrow::float32(), "[1.5, 2.5, 3.5]", "[1.5, 3.5]"},
      {arrow::binary(), R"(["AA==", "AQ==", "Ag=="])", R"(["AA==", "Ag=="])"},
      {arrow::large_utf8(), R"(["a", "b", "c"])", R"(["a", "c"])"},
      {arrow::utf8(), R"(["a", "a much longer string value", "c"])", R"(["a", "c"])"},
      {arrow::fixed_size_binary(3), R"(["abc", "abd", "abe"])", R"(["abc", "abe"])"},
      {arrow::date32(), "[1, 2, 3]", "[1, 3]"},
      {arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), "[1, 2, 3]", "[1, 3]"},
      {arrow::decimal128(20, 2), R"(["1.00", "2.50", "3.75"])", R"(["1.00", "3.75"])"},
      {arrow::decimal256(40, 3), R"(["1.000", "2.500", "3.750"])", R"(["1.000", "3.750"])"},
  };
  for (const auto& c : cases) {
    auto ls = arrow::schema({arrow::field("k", c.type), arrow::field("a", arrow::int32())});
    auto rs = arrow::schema({arrow::field("k", c.type), arrow::field("b", arrow::int32())});
    auto left = Reader(ls, {Batch(ls, {c.json, "[1, 2, 3]"})});
    auto right = Reader(rs, {Batch(rs, {c.right_json, "[10, 30]"})});
    ASSERT_OK_AND_ASSIGN(auto out, Join(left, right, {"k"}, {"k"}));
    int64_t expected = c.type->id() == arrow::Type::BOOL ? 1 : 2;
    EXPECT_EQ(out->num_rows(), expected) << c.type->ToString();
  }
}

TEST(HashJoinTest, RandomizedBuildLeftEqualsBuildRightEqualsNestedLoop) {
  std::mt19937 rng(42);
  auto ls = arrow::schema({arrow::field("k1", arrow::int32()), arrow::field("k2", arrow::utf8()),
                           arrow::field("a", arrow::int64())});
  auto rs = arrow::schema({arrow::field("k2", arrow::utf8()), arrow::field("b", arrow::int64()),
                           arrow::field("k1", arrow::int32())});
  struct RowT {
    std::optional<int32_t> k1;
    std::optional<std::string> k2;
    int64_t v;
  };
  auto make = [&](int batches, int rows, bool left, std::vector<RowT>* all) {
    std::vector<std::shared_ptr<arrow::RecordBatch>> out;
    int64_t id = 0;
    for (int b = 0; b < batches; ++b) {
      arrow::Int32Builder k1;
      arrow::StringBuilder k2;
      arrow::Int64Builder v;
      for (int r = 0; r < rows; ++r) {
        RowT row;
        if (rng() % 20 != 0) row.k1 = static_cast<int32_t>(rng() % 7);
        if (rng() % 20 != 0) row.k2 = "s" + std::to_string(rng() % 5);
        row.v = id++;
        EXPECT_OK(row.k1 ? k1.Append(*row.k1) : k1.AppendNull());
        EXPECT_OK(row.k2 ? k2.Append(*row.k2) : k2.AppendNull());
        EXPECT_OK(v.Append(row.v));
        all->push_back(row);
      }
      auto a1 = k1.Finish().ValueOrDie();
      auto a2 = k2.Finish().ValueOrDie();
      auto av = v.Finish().ValueOrDie();
      out.push_back(left ? arrow::RecordBatch::Make(ls, rows, {a1, a2, av})
                         : arrow::RecordBatch::Make(rs, rows, {a2, av, a1}));
    }
    return out;
  };
  std::vector<RowT> lrows, rrows;
  auto lb = make(3, 200, true, &lrows);
  auto rb = make(2, 150, false, &rrows);
  std::vector<std::string> expected;
  for (const auto& l : lrows) {
    for (const auto& r : rrows) {
      if (l.k1 && l.k2 && r.k1 && r.k2 && *l.k1 == *r.k1 && *l.k2 == *r.k2) {
        expected.push_back(std::to_string(*l.k1) + "|" + *l.k2 + "|" + std::to_string(l.v) + "|" +
                           std::to_string(r.v));
      }
    }
  }
  std::sort(expected.begin(), expected.end());
  ASSERT_GT(expected.size(), 1000u);
  for (Build build : {Build::kLeft, Build::kRight}) {
    HashJoinOptions options;
    options.build = build;
    options.batch_rows = 777;
    ASSERT_OK_AND_ASSIGN(auto out,
                         Join(Reader(ls, lb), Reader(rs, rb), {"k1", "k2"}, {"k1", "k2"}, options));
    EXPECT_EQ(Rows(out), expected);
  }
}

TEST(HashJoinTest, Errors) {
  auto left = [] { return Reader(LeftSchema(), {}); };
  auto right = [] { return Reader(RightSchema(), {}); };
  EXPECT_RAISES(Invalid, HashJoinInner(left(), right(), {}, {}));
  EXPECT_RAISES(Invalid, HashJoinInner(left(), right(), {"k"}, {"rk", "b"}));
  EXPECT_RAISES(Invalid, HashJoinInner(left(), right(), {"nope"}, {"rk"}));
  EXPECT_RAISES(Invalid, HashJoinInner(left(), right(), {"k"}, {"nope"}));
  // int64 vs int32
  EXPECT_RAISES(TypeError, HashJoinInner(left(), right(), {"k"}, {"b"}));
  HashJoinOptions bad;
  bad.batch_rows = 0;
  EXPECT_RAISES(Invalid, HashJoinInner(left(), right(), {"k"}, {"rk"}, bad));
  auto nested = arrow::schema({arrow::field("l", arrow::list(arrow::int32()))});
  EXPECT_RAISES(TypeError, HashJoinInner(Reader(nested, {}), Reader(nested, {}), {"l"}, {"l"}));
  // View types: Arrow's Take has no kernel for them, so they are refused as keys.
  auto view = arrow::schema({arrow::field("v", arrow::utf8_view())});
  EXPECT_RAISES(TypeError, HashJoinInner(Reader(view, {}), Reader(view, {}), {"v"}, {"v"}));
  auto dup = arrow::schema({arrow::field("k", arrow::int64()), arrow::field("k", arrow::int64())});
  EXPECT_RAISES(Invalid, HashJoinInner(Reader(dup, {}), right(), {"k"}, {"rk"}));
}

}  // namespace
}  // namespace paimon_rowid
