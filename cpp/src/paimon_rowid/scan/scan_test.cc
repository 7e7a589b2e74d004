#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>

#include "arrow/builder.h"
#include "paimon_rowid/codec/binary_row.h"
#include "paimon_rowid/codec/envelope.h"
#include "paimon_rowid/scan/bucket_select.h"
#include "paimon_rowid/scan/plan.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

DataFileMeta File(const std::string& name, int64_t first_row_id, int64_t rows) {
  DataFileMeta f;
  f.file_name = name;
  f.file_size = 100;
  f.row_count = rows;
  f.min_key = f.max_key = EmptySerializedBinaryRow();
  f.key_stats = f.value_stats = SimpleStats::Empty();
  f.first_row_id = first_row_id;
  return f;
}

DataSplit SampleSplit() {
  DataSplit split;
  split.snapshot_id = 3;
  split.partition = EmptySerializedBinaryRow();
  split.bucket = 0;
  split.bucket_dir = "/w/db.db/t/bucket-0";
  split.groups = {{File("a.parquet", 0, 10)}, {File("b.parquet", 10, 5), File("c.blob", 10, 5)}};
  split.row_ranges = std::vector<RowRange>{{2, 12}};
  return split;
}

// The envelope DataSplit::Serialize seals splits in (scan/plan.cc).
constexpr EnvelopeKind kSplitKind{{'P', 'R', 'S', 'P'}, 1, "split"};

// The serialized split with its JSON header edited by `edit`.
std::string WithHeader(const std::string& bytes, const std::function<void(nlohmann::json&)>& edit) {
  auto parts = OpenEnvelope(kSplitKind, bytes).ValueOrDie();
  auto header = nlohmann::json::parse(parts.header);
  edit(header);
  return SealEnvelope(kSplitKind, header.dump(), parts.body);
}

TEST(DataSplitTest, SerializeRoundTrip) {
  DataSplit split = SampleSplit();
  ASSERT_OK_AND_ASSIGN(auto copy, DataSplit::Deserialize(split.Serialize().ValueOrDie()));
  EXPECT_EQ(copy.snapshot_id, 3);
  EXPECT_EQ(copy.bucket_dir, split.bucket_dir);
  EXPECT_EQ(copy.partition, split.partition);
  EXPECT_EQ(copy.groups, split.groups);
  EXPECT_EQ(copy.row_ranges, split.row_ranges);
  EXPECT_EQ(copy.RowCount(), 11);
}

// Found while writing fuzz/fuzz_split (reproducer: fuzz/corpus/split/regress-*): a group size
// near 2^64 wrapped `next + size` around, and the groups were then copied from past the end
// of the entries (heap-buffer-overflow under ASan).
TEST(DataSplitTest, DeserializeRejectsGroupSizesBeyondTheFiles) {
  const std::string bytes = SampleSplit().Serialize().ValueOrDie();
  for (auto sizes : {std::vector<uint64_t>{1, std::numeric_limits<uint64_t>::max()},
                     std::vector<uint64_t>{2, std::numeric_limits<uint64_t>::max() - 1},
                     std::vector<uint64_t>{4}, std::vector<uint64_t>{1, 1, 2}}) {
    auto forged = WithHeader(bytes, [&](nlohmann::json& h) { h["group_sizes"] = sizes; });
    auto st = DataSplit::Deserialize(forged).status();
    EXPECT_RAISES(Invalid, st);
  }
  auto negative = WithHeader(bytes, [](nlohmann::json& h) { h["group_sizes"] = {1, -1}; });
  EXPECT_RAISES(Invalid, DataSplit::Deserialize(negative));
}

TEST(DataSplitTest, DeserializeRejectsMalformedHeaders) {
  const std::string bytes = SampleSplit().Serialize().ValueOrDie();
  EXPECT_RAISES(Invalid, DataSplit::Deserialize(""));
  EXPECT_RAISES(Invalid, DataSplit::Deserialize(bytes.substr(0, 10)));
  for (const char* key : {"snapshot_id", "bucket", "bucket_dir", "partition", "group_sizes"}) {
    auto forged = WithHeader(bytes, [&](nlohmann::json& h) { h.erase(key); });
    EXPECT_RAISES(Invalid, DataSplit::Deserialize(forged)) << key;
  }
  auto bad_ranges = WithHeader(bytes, [](nlohmann::json& h) { h["row_ranges"] = {{1}}; });
  EXPECT_RAISES(Invalid, DataSplit::Deserialize(bad_ranges));
}

// Found by fuzz_split (long run; corpus/split/regress-float-group-size): a float where an
// integer belongs was cast with nlohmann's get<size_t>(), undefined for 9.8e19.
TEST(DataSplitTest, DeserializeRejectsNonIntegerNumbers) {
  const std::string bytes = SampleSplit().Serialize().ValueOrDie();
  for (const char* key : {"snapshot_id", "bucket", "group_sizes", "row_ranges"}) {
    for (double v : {9.84467e19, -1e30, 1.5}) {
      auto forged = WithHeader(bytes, [&](nlohmann::json& h) {
        h[key] = std::string(key) == "group_sizes"  ? nlohmann::json{1, v}
                 : std::string(key) == "row_ranges" ? nlohmann::json{{0, v}}
                                                    : nlohmann::json(v);
      });
      EXPECT_RAISES(Invalid, DataSplit::Deserialize(forged)) << key << " " << v;
    }
  }
  auto big_bucket = WithHeader(bytes, [](nlohmann::json& h) { h["bucket"] = int64_t{1} << 40; });
  EXPECT_RAISES(Invalid, DataSplit::Deserialize(big_bucket));
}

// Row ranges are shipped sorted and merged; others would make RowCount's range arithmetic
// overflow (to - from + 1 on reversed or unsorted ranges).
TEST(DataSplitTest, DeserializeRejectsUnsortedRowRanges) {
  const std::string bytes = SampleSplit().Serialize().ValueOrDie();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  for (auto ranges : {nlohmann::json{{5, 4}}, nlohmann::json{{0, 9}, {3, 12}},
                      nlohmann::json{{8, 9}, {0, 1}}, nlohmann::json{{0, 12}, {14, kMin}}}) {
    auto forged = WithHeader(bytes, [&](nlohmann::json& h) { h["row_ranges"] = ranges; });
    EXPECT_RAISES(Invalid, DataSplit::Deserialize(forged)) << ranges.dump();
  }
  auto adjacent = WithHeader(bytes, [](nlohmann::json& h) { h["row_ranges"] = {{0, 4}, {5, 6}}; });
  ASSERT_OK(DataSplit::Deserialize(adjacent));
  EXPECT_EQ(DataSplit::Deserialize(adjacent)->RowCount(), 7);
}

// Counts near 2^63 saturate instead of overflowing.
TEST(DataSplitTest, RowCountSaturates) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  DataSplit split = SampleSplit();
  split.row_ranges.reset();
  split.groups = {{File("a.parquet", 0, kMax)}, {File("b.parquet", 0, kMax)}};
  EXPECT_EQ(split.RowCount(), kMax);
  ASSERT_OK_AND_ASSIGN(auto copy, DataSplit::Deserialize(split.Serialize().ValueOrDie()));
  EXPECT_EQ(copy.RowCount(), kMax);
}

}  // namespace
}  // namespace paimon_rowid

namespace paimon_rowid {
namespace {

std::shared_ptr<arrow::Array> Int64Literals(const std::vector<int64_t>& values) {
  arrow::Int64Builder b;
  EXPECT_OK(b.AppendValues(values));
  return b.Finish().ValueOrDie();
}

std::shared_ptr<Predicate> Leaf(Predicate::Op op, const std::string& field,
                                const std::vector<int64_t>& values) {
  return Predicate::Leaf(op, field, Int64Literals(values)).ValueOrDie();
}

BucketSpec Spec(std::vector<std::string> keys, int32_t n) {
  TableSchema schema;
  for (const auto& k : {"a", "b", "c"}) {
    schema.fields.push_back(DataField{static_cast<int32_t>(schema.fields.size()), k,
                                      DataType::Atomic(TypeRoot::kBigInt)});
  }
  std::string joined;
  for (const auto& k : keys) joined += (joined.empty() ? "" : ",") + k;
  schema.options = {{"bucket", std::to_string(n)}, {"bucket-key", joined}};
  return BucketSpec::Of(schema).ValueOrDie();
}

std::set<int32_t> BucketsOf(const BucketSpec& spec, const std::vector<std::vector<int64_t>>& rows) {
  std::set<int32_t> out;
  for (const auto& row : rows) {
    std::vector<std::shared_ptr<arrow::Array>> cols;
    for (int64_t v : row) cols.push_back(Int64Literals({v}));
    out.insert(spec.function->Buckets(cols, spec.num_buckets).ValueOrDie()[0]);
  }
  return out;
}

TEST(BucketSelectTest, EqualityAndInPinBuckets) {
  BucketSpec spec = Spec({"a"}, 16);
  ASSERT_OK_AND_ASSIGN(auto got, SelectBuckets(*Leaf(Predicate::Op::kEqual, "a", {7}), spec));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, BucketsOf(spec, {{7}}));

  auto in = Leaf(Predicate::Op::kIn, "a", {1, 2, 3});
  auto other = Leaf(Predicate::Op::kGreaterThan, "b", {0});
  auto both = Predicate::Compound(Predicate::Op::kAnd, {other, in}).ValueOrDie();
  ASSERT_OK_AND_ASSIGN(got, SelectBuckets(*both, spec));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, BucketsOf(spec, {{1}, {2}, {3}}));

  auto either = Predicate::Compound(Predicate::Op::kOr, {Leaf(Predicate::Op::kEqual, "a", {4}),
                                                         Leaf(Predicate::Op::kEqual, "a", {9})})
                    .ValueOrDie();
  ASSERT_OK_AND_ASSIGN(got, SelectBuckets(*either, spec));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, BucketsOf(spec, {{4}, {9}}));
}

TEST(BucketSelectTest, CompositeKeysNeedEveryColumn) {
  BucketSpec spec = Spec({"a", "b"}, 8);
  auto a = Leaf(Predicate::Op::kIn, "a", {1, 2});
  auto b = Leaf(Predicate::Op::kEqual, "b", {5});
  ASSERT_OK_AND_ASSIGN(auto got, SelectBuckets(*a, spec));
  EXPECT_FALSE(got.has_value());
  auto both = Predicate::Compound(Predicate::Op::kAnd, {a, b}).ValueOrDie();
  ASSERT_OK_AND_ASSIGN(got, SelectBuckets(*both, spec));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, BucketsOf(spec, {{1, 5}, {2, 5}}));
}

TEST(BucketSelectTest, NoPruningWithoutAPin) {
  BucketSpec spec = Spec({"a"}, 8);
  // A range, an OR across columns, and too many combinations prune nothing.
  ASSERT_OK_AND_ASSIGN(auto got, SelectBuckets(*Leaf(Predicate::Op::kLessThan, "a", {3}), spec));
  EXPECT_FALSE(got.has_value());
  auto mixed = Predicate::Compound(Predicate::Op::kOr, {Leaf(Predicate::Op::kEqual, "a", {4}),
                                                        Leaf(Predicate::Op::kEqual, "b", {9})})
                   .ValueOrDie();
  ASSERT_OK_AND_ASSIGN(got, SelectBuckets(*mixed, spec));
  EXPECT_FALSE(got.has_value());
  std::vector<int64_t> many(kMaxBucketSelectCombinations + 1);
  std::iota(many.begin(), many.end(), 0);
  ASSERT_OK_AND_ASSIGN(got, SelectBuckets(*Leaf(Predicate::Op::kIn, "a", many), spec));
  EXPECT_FALSE(got.has_value());
  // An unaware table never prunes.
  BucketSpec unaware;
  ASSERT_OK_AND_ASSIGN(got, SelectBuckets(*Leaf(Predicate::Op::kEqual, "a", {1}), unaware));
  EXPECT_FALSE(got.has_value());
}

}  // namespace
}  // namespace paimon_rowid
