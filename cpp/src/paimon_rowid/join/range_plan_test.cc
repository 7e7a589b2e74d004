// Range-join planning: key comparison, cut points, the re-read budget and unknown splits
// without tables; PlanRangeSide on tables of our writer (stats and footer bounds).
// tests/test_range_join.py covers pypaimon-written tables, renames and data evolution.
#include "paimon_rowid/join/range_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "arrow/scalar.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

std::shared_ptr<arrow::Scalar> I(int64_t v) { return std::make_shared<arrow::Int64Scalar>(v); }

SplitExtent Known(int64_t lo, int64_t hi, int64_t rows, int64_t bytes = 100) {
  return SplitExtent{KeyBounds{I(lo), I(hi)}, rows, bytes};
}

SplitExtent Unknown(int64_t rows, int64_t bytes = 100) {
  return SplitExtent{KeyBounds{}, rows, bytes};
}

std::vector<int64_t> Values(const std::vector<std::shared_ptr<arrow::Scalar>>& cuts) {
  std::vector<int64_t> out;
  for (const auto& c : cuts) out.push_back(static_cast<const arrow::Int64Scalar&>(*c).value);
  return out;
}

TEST(CompareKeys, OrdersSupportedTypes) {
  ASSERT_OK_AND_ASSIGN(int c, CompareKeys(*I(1), *I(2)));
  EXPECT_LT(c, 0);
  ASSERT_OK_AND_ASSIGN(c, CompareKeys(arrow::StringScalar("b"), arrow::StringScalar("ab")));
  EXPECT_GT(c, 0);
  ASSERT_OK_AND_ASSIGN(c, CompareKeys(arrow::StringScalar("é"), arrow::StringScalar("z")));
  EXPECT_GT(c, 0);  // code-point order, as Python compares str
  ASSERT_OK_AND_ASSIGN(c, CompareKeys(arrow::Date32Scalar(3), arrow::Date32Scalar(3)));
  EXPECT_EQ(c, 0);
  auto ts = arrow::timestamp(arrow::TimeUnit::MICRO);
  ASSERT_OK_AND_ASSIGN(c,
                       CompareKeys(arrow::TimestampScalar(5, ts), arrow::TimestampScalar(7, ts)));
  EXPECT_LT(c, 0);
  auto dec = arrow::decimal128(10, 2);
  ASSERT_OK_AND_ASSIGN(c, CompareKeys(arrow::Decimal128Scalar(arrow::Decimal128(-5), dec),
                                      arrow::Decimal128Scalar(arrow::Decimal128(3), dec)));
  EXPECT_LT(c, 0);
  EXPECT_RAISES(Invalid, CompareKeys(*I(1), arrow::Int32Scalar(1)));
  EXPECT_RAISES(Invalid, CompareKeys(arrow::DoubleScalar(1), arrow::DoubleScalar(2)));
}

TEST(Overlaps, HalfOpenAndUnknown) {
  KeyRange r{I(10), I(20)};
  ASSERT_OK_AND_ASSIGN(bool o, Overlaps(KeyBounds{I(0), I(9)}, r));
  EXPECT_FALSE(o);
  ASSERT_OK_AND_ASSIGN(o, Overlaps(KeyBounds{I(0), I(10)}, r));
  EXPECT_TRUE(o);  // hi >= lo of the range
  ASSERT_OK_AND_ASSIGN(o, Overlaps(KeyBounds{I(20), I(30)}, r));
  EXPECT_FALSE(o);  // the range's hi is exclusive
  ASSERT_OK_AND_ASSIGN(o, Overlaps(KeyBounds{}, r));
  EXPECT_TRUE(o);
  ASSERT_OK_AND_ASSIGN(o, Overlaps(KeyBounds{I(-100), I(-50)}, KeyRange{nullptr, I(0)}));
  EXPECT_TRUE(o);
  ASSERT_OK_AND_ASSIGN(o, Overlaps(KeyBounds{I(100), I(500)}, KeyRange{I(0), nullptr}));
  EXPECT_TRUE(o);
}

TEST(CutPoints, RowWeightedStrictlyIncreasing) {
  // Four disjoint splits of 100 rows: points 0,9,10,19,20,29,30,39 of weight 50 each, total
  // 400; cut k when the running weight reaches 100·k: at 9, 19 and 29.
  std::vector<SplitExtent> left = {Known(0, 9, 100), Known(10, 19, 100)};
  std::vector<SplitExtent> right = {Known(20, 29, 100), Known(30, 39, 100)};
  ASSERT_OK_AND_ASSIGN(auto cuts, CutPoints(left, right, 4));
  EXPECT_EQ(Values(cuts), (std::vector<int64_t>{9, 19, 29}));
  ASSERT_OK_AND_ASSIGN(cuts, CutPoints(left, right, 1));
  EXPECT_TRUE(cuts.empty());
  // At most num_ranges - 1 cuts, however many points.
  ASSERT_OK_AND_ASSIGN(cuts, CutPoints(left, right, 2));
  EXPECT_EQ(Values(cuts), (std::vector<int64_t>{19}));
}

TEST(CutPoints, EqualValuesGiveOneCut) {
  // Every split holds only key 5: all points equal, so one cut (no repeated value).
  std::vector<SplitExtent> left = {Known(5, 5, 10), Known(5, 5, 10), Known(5, 5, 10)};
  ASSERT_OK_AND_ASSIGN(auto cuts, CutPoints(left, {}, 3));
  EXPECT_EQ(Values(cuts), (std::vector<int64_t>{5}));
  auto ranges = RangesFromCuts(cuts);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].lo, nullptr);
  EXPECT_EQ(ranges[1].hi, nullptr);
}

TEST(CutPoints, UnknownSplitsContributeNothing) {
  ASSERT_OK_AND_ASSIGN(auto cuts, CutPoints({Unknown(1000)}, {Unknown(1000)}, 8));
  EXPECT_TRUE(cuts.empty());
  ASSERT_OK_AND_ASSIGN(cuts,
                       CutPoints({Unknown(1000000), Known(0, 9, 10)}, {Known(10, 19, 10)}, 2));
  EXPECT_EQ(Values(cuts), (std::vector<int64_t>{9}));
}

TEST(RangesFromCuts, UnboundedEnds) {
  auto ranges = RangesFromCuts({I(3), I(7)});
  ASSERT_EQ(ranges.size(), 3u);
  EXPECT_EQ(ranges[0].lo, nullptr);
  EXPECT_EQ(static_cast<const arrow::Int64Scalar&>(*ranges[0].hi).value, 3);
  EXPECT_EQ(static_cast<const arrow::Int64Scalar&>(*ranges[1].lo).value, 3);
  EXPECT_EQ(static_cast<const arrow::Int64Scalar&>(*ranges[2].lo).value, 7);
  EXPECT_EQ(ranges[2].hi, nullptr);
  EXPECT_EQ(RangesFromCuts({}).size(), 1u);
}

TEST(BoundedRanges, UnknownSplitCollapsesRanges) {
  // Observed in pypaimon: one big unknown split makes 3 ranges collapse to 1, since it is
  // re-read by every range (3 × its bytes > 2 × total).
  std::vector<SplitExtent> left = {Known(0, 9, 10, 10), Known(10, 19, 10, 10),
                                   Known(20, 29, 10, 10)};
  std::vector<SplitExtent> right = {Unknown(30, 1000)};
  ASSERT_OK_AND_ASSIGN(auto ranges, BoundedRanges(left, right, 3));
  EXPECT_EQ(ranges.size(), 1u);
  // Known, disjoint splits on both sides keep every range.
  std::vector<SplitExtent> right_known = {Known(0, 9, 10, 10), Known(10, 19, 10, 10),
                                          Known(20, 29, 10, 10)};
  ASSERT_OK_AND_ASSIGN(ranges, BoundedRanges(left, right_known, 3));
  EXPECT_EQ(ranges.size(), 3u);
}

TEST(BoundedRanges, HalvesUntilWithinBudget) {
  // A small unknown split (30 of 130 bytes) is re-read by every range: 8 requested ranges
  // over 10 disjoint known splits cost 120 + 30·8 = 360 > 2·130 (two known splits straddle a
  // cut), so 8 halves to 4 (110 + 30·4 = 230).
  std::vector<SplitExtent> left;
  for (int i = 0; i < 10; ++i) left.push_back(Known(i * 10, i * 10 + 9, 10, 10));
  std::vector<SplitExtent> right = {Unknown(10, 30)};
  ASSERT_OK_AND_ASSIGN(auto ranges, BoundedRanges(left, right, 8));
  EXPECT_EQ(ranges.size(), 4u);
}

TEST(PlanRangeTasks, AssignsOverlappingSplitsAndSkipsOneSidedRanges) {
  std::vector<SplitExtent> left = {Known(0, 9, 10), Known(10, 19, 10), Known(20, 29, 10),
                                   Known(30, 39, 10)};
  std::vector<SplitExtent> right = {Known(0, 9, 10), Known(30, 39, 10)};
  ASSERT_OK_AND_ASSIGN(auto tasks, PlanRangeTasks(left, right, 4));
  // Cuts: points 0,9,10,19,20,29,30,39 (left) + 0,9,30,39 (right), weights 5; total 60.
  // Every task pairs a left split with a right one; ranges without right splits vanish.
  ASSERT_FALSE(tasks.empty());
  std::vector<int> left_hits(left.size(), 0);
  for (const auto& t : tasks) {
    EXPECT_FALSE(t.left.empty());
    EXPECT_FALSE(t.right.empty());
    for (int32_t i : t.left) ++left_hits[i];
  }
  // Splits 1 and 2 (keys 10..29) have no right partner; a range that only they feed is
  // dropped, so they are read only where the range also covers a right split.
  EXPECT_GE(left_hits[0], 1);
  EXPECT_GE(left_hits[3], 1);
  for (const auto& t : tasks) {
    for (int32_t j : t.right) {
      bool ok = false;
      ASSERT_OK_AND_ASSIGN(ok, Overlaps(right[j].bounds, t.range));
      EXPECT_TRUE(ok);
    }
  }
  // An empty side gives no tasks; num_ranges is clamped to [1, 512].
  ASSERT_OK_AND_ASSIGN(tasks, PlanRangeTasks(left, {}, 4));
  EXPECT_TRUE(tasks.empty());
  ASSERT_OK_AND_ASSIGN(tasks, PlanRangeTasks(left, left, 100000));
  EXPECT_LE(tasks.size(), 9u);  // at most distinct values + 1
  ASSERT_OK_AND_ASSIGN(tasks, PlanRangeTasks({Unknown(5)}, {Unknown(5)}, 7));
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].range.lo, nullptr);
  EXPECT_EQ(tasks[0].range.hi, nullptr);
}

TEST(PlanRangeTasks, DefaultCount) {
  EXPECT_EQ(DefaultNumRanges(3, 7), 7);
  EXPECT_EQ(DefaultNumRanges(0, 0), 0);
}

}  // namespace
}  // namespace paimon_rowid

// ------------------------------------------------------------------ PlanRangeSide on tables

namespace paimon_rowid {
namespace {

using testing::WriteFixture;

std::vector<std::pair<int64_t, int64_t>> Int64Bounds(const std::vector<RangedSplit>& side) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const auto& s : side) {
    if (!s.extent.bounds.known()) {
      out.emplace_back(-1, -1);
      continue;
    }
    out.emplace_back(static_cast<const arrow::Int64Scalar&>(*s.extent.bounds.lo).value,
                     static_cast<const arrow::Int64Scalar&>(*s.extent.bounds.hi).value);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void WriteThree(WriteFixture* fx) {
  fx->Append(WriteFixture::Batch(0, 10));
  fx->Append(WriteFixture::Batch(10, 10));
  fx->Append(WriteFixture::Batch(20, 10));
}

TEST(PlanRangeSide, OneSplitPerFileBoundedByValueStats) {
  WriteFixture fx(std::map<std::string, std::string>{{"bucket", "-1"}});
  WriteThree(&fx);
  ASSERT_OK_AND_ASSIGN(auto side, PlanRangeSide(fx.table(), "id", nullptr));
  ASSERT_EQ(side.size(), 3u);  // not packed into one split
  EXPECT_EQ(Int64Bounds(side),
            (std::vector<std::pair<int64_t, int64_t>>{{0, 9}, {10, 19}, {20, 29}}));
  for (const auto& s : side) {
    EXPECT_EQ(s.extent.rows, 10);
    EXPECT_GT(s.extent.bytes, 0);
  }
  ASSERT_OK_AND_ASSIGN(auto names, PlanRangeSide(fx.table(), "name", nullptr));
  for (const auto& s : names) EXPECT_TRUE(s.extent.bounds.known());
  EXPECT_RAISES(KeyError, PlanRangeSide(fx.table(), "nope", nullptr));
}

TEST(PlanRangeSide, FooterFallbackWithoutStats) {
  WriteFixture fx(
      std::map<std::string, std::string>{{"bucket", "-1"}, {"metadata.stats-mode", "none"}});
  WriteThree(&fx);
  ASSERT_OK_AND_ASSIGN(auto side, PlanRangeSide(fx.table(), "id", nullptr));
  EXPECT_EQ(Int64Bounds(side),
            (std::vector<std::pair<int64_t, int64_t>>{{0, 9}, {10, 19}, {20, 29}}));
  ASSERT_OK_AND_ASSIGN(auto tasks,
                       PlanRangeTasks({side[0].extent, side[1].extent, side[2].extent},
                                      {side[0].extent, side[1].extent, side[2].extent}, 3));
  EXPECT_EQ(tasks.size(), 3u);
}

TEST(PlanRangeSide, NoSnapshotNoSplits) {
  WriteFixture fx(std::map<std::string, std::string>{{"bucket", "-1"}});
  ASSERT_OK_AND_ASSIGN(auto side, PlanRangeSide(fx.table(), "id", nullptr));
  EXPECT_TRUE(side.empty());
}

}  // namespace
}  // namespace paimon_rowid
