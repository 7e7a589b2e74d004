// Predicate pushdown below the file group (read/stats_filter.h): interval evaluation over
// row-group / page statistics, masks, and pruning on the file that wins each column.
#include "paimon_rowid/read/stats_filter.h"

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "paimon_rowid/catalog/catalog.h"
#include "paimon_rowid/commit/committer.h"
#include "paimon_rowid/exec/compute.h"
#include "paimon_rowid/read/table_read.h"
#include "paimon_rowid/scan/plan.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"
#include "paimon_rowid/write/append_writer.h"

namespace paimon_rowid {
namespace {

std::shared_ptr<Predicate> Int64Leaf(Predicate::Op op, const std::string& field,
                                     std::vector<int64_t> values) {
  arrow::Int64Builder b;
  EXPECT_OK(b.AppendValues(values));
  return Predicate::Leaf(op, field, b.Finish().ValueOrDie()).ValueOrDie();
}

StatsRun MakeRun(int64_t from, int64_t to, std::optional<int64_t> min, std::optional<int64_t> max,
                 std::optional<int64_t> nulls = 0) {
  StatsRun run;
  run.rows = {from, to};
  if (min) run.stats.min = std::make_shared<arrow::Int64Scalar>(*min);
  if (max) run.stats.max = std::make_shared<arrow::Int64Scalar>(*max);
  run.stats.null_count = nulls;
  return run;
}

using Ranges = std::vector<RowRange>;

// Predicate::MayMatch compares through Arrow compute, whose kernels TableRead::Make and the
// planner register; pure tests register them here (unregistered, MayMatch fails open).
class StatsFilterEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { ASSERT_OK(EnsureComputeInitialized()); }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new StatsFilterEnvironment());

TEST(MayMatchPositionsTest, KeepsOnlyRunsTheBoundsAdmit) {
  // Three row groups of a sorted column: [0,99] -> 0..99, [100,199] -> 100..199, ...
  std::map<std::string, std::vector<StatsRun>> runs = {
      {"a", {MakeRun(0, 99, 0, 99), MakeRun(100, 199, 100, 199), MakeRun(200, 299, 200, 299)}}};
  auto between = Int64Leaf(Predicate::Op::kBetween, "a", {120, 130});
  EXPECT_EQ(MayMatchPositions(*between, {{0, 299}}, runs, 0), (Ranges{{100, 199}}));
  // The selection is respected (deleted rows, row ranges).
  EXPECT_EQ(MayMatchPositions(*between, {{0, 10}, {150, 160}, {250, 260}}, runs, 0),
            (Ranges{{150, 160}}));
  auto none = Int64Leaf(Predicate::Op::kGreaterThan, "a", {1000});
  EXPECT_TRUE(MayMatchPositions(*none, {{0, 299}}, runs, 0).empty());
  // Rows no run covers and columns without runs are unknown: kept.
  std::map<std::string, std::vector<StatsRun>> gap = {{"a", {MakeRun(0, 99, 0, 99)}}};
  EXPECT_EQ(MayMatchPositions(*none, {{0, 299}}, gap, 0), (Ranges{{100, 299}}));
  auto other = Int64Leaf(Predicate::Op::kEqual, "b", {5});
  EXPECT_EQ(MayMatchPositions(*other, {{0, 299}}, runs, 0), (Ranges{{0, 299}}));
  // Missing bounds fail open.
  std::map<std::string, std::vector<StatsRun>> unknown = {
      {"a", {MakeRun(0, 299, std::nullopt, std::nullopt, std::nullopt)}}};
  EXPECT_EQ(MayMatchPositions(*none, {{0, 299}}, unknown, 0), (Ranges{{0, 299}}));
}

TEST(MayMatchPositionsTest, ColumnsWithDifferentBoundariesAreCutTogether) {
  // `a` from a file with row groups of 100 rows, `b` from one with pages of 50.
  std::map<std::string, std::vector<StatsRun>> runs = {
      {"a", {MakeRun(0, 99, 0, 9), MakeRun(100, 199, 10, 19)}},
      {"b",
       {MakeRun(0, 49, 0, 0), MakeRun(50, 99, 1, 1), MakeRun(100, 149, 0, 0),
        MakeRun(150, 199, 1, 1)}}};
  auto a_high = Int64Leaf(Predicate::Op::kGreaterOrEqual, "a", {10});
  auto b_one = Int64Leaf(Predicate::Op::kEqual, "b", {1});
  auto both = Predicate::Compound(Predicate::Op::kAnd, {a_high, b_one}).ValueOrDie();
  EXPECT_EQ(MayMatchPositions(*both, {{0, 199}}, runs, 0), (Ranges{{150, 199}}));
  auto either = Predicate::Compound(Predicate::Op::kOr, {a_high, b_one}).ValueOrDie();
  EXPECT_EQ(MayMatchPositions(*either, {{0, 199}}, runs, 0), (Ranges{{50, 199}}));
}

TEST(MayMatchPositionsTest, NullCountsOfAWiderRunAreNotTakenForAPart) {
  // `a`: one run of 100 rows, half of them null; `b` cuts it in two. The first half holds
  // 50 rows and the run 50 nulls, which must not read as "all 50 rows are null".
  std::map<std::string, std::vector<StatsRun>> runs = {
      {"a", {MakeRun(0, 99, 1, 5, /*nulls=*/50)}},
      {"b", {MakeRun(0, 49, 0, 0), MakeRun(50, 99, 0, 0)}}};
  auto a_small = Int64Leaf(Predicate::Op::kLessThan, "a", {10});
  EXPECT_EQ(MayMatchPositions(*a_small, {{0, 99}}, runs, 0), (Ranges{{0, 99}}));
  // A run without a non-null value prunes each of its parts.
  std::map<std::string, std::vector<StatsRun>> all_null = {
      {"a", {MakeRun(0, 99, std::nullopt, std::nullopt, /*nulls=*/100)}},
      {"b", {MakeRun(0, 49, 0, 0), MakeRun(50, 99, 0, 0)}}};
  EXPECT_TRUE(MayMatchPositions(*a_small, {{0, 99}}, all_null, 0).empty());
  auto is_null = Predicate::Leaf(Predicate::Op::kIsNull, "a", nullptr).ValueOrDie();
  EXPECT_EQ(MayMatchPositions(*is_null, {{0, 99}}, all_null, 0), (Ranges{{0, 99}}));
}

TEST(MayMatchPositionsTest, RowIdBoundsComeFromTheGroupsFirstRowId) {
  std::map<std::string, std::vector<StatsRun>> runs = {
      {"a", {MakeRun(0, 99, 0, 0), MakeRun(100, 199, 0, 0)}}};
  auto row_id = Int64Leaf(Predicate::Op::kGreaterOrEqual, "_ROW_ID", {1150});
  EXPECT_EQ(MayMatchPositions(*row_id, {{0, 199}}, runs, /*first_row_id=*/1000),
            (Ranges{{100, 199}}));
}

TEST(SelectByMaskTest, MapsTrueEntriesBackToPositions) {
  arrow::BooleanBuilder b;
  // selection {2..4, 10..12}: entries 0..5 -> rows 2,3,4,10,11,12
  ASSERT_OK(b.AppendValues(std::vector<bool>{true, false, true, true, false, false}));
  auto mask = b.Finish().ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto rows, SelectByMask({{2, 4}, {10, 12}}, arrow::Datum(mask)));
  EXPECT_EQ(rows, (Ranges{{2, 2}, {4, 4}, {10, 10}}));
  // Nulls do not match; a sliced mask is read from its offset.
  arrow::BooleanBuilder n;
  ASSERT_OK(n.AppendValues(std::vector<bool>{true, true, true, true},
                           std::vector<bool>{true, false, true, true}));
  auto with_nulls = n.Finish().ValueOrDie();
  ASSERT_OK_AND_ASSIGN(rows, SelectByMask({{0, 3}}, arrow::Datum(with_nulls)));
  EXPECT_EQ(rows, (Ranges{{0, 0}, {2, 3}}));
  ASSERT_OK_AND_ASSIGN(rows, SelectByMask({{5, 7}}, arrow::Datum(with_nulls->Slice(1))));
  EXPECT_EQ(rows, (Ranges{{6, 7}}));
  ASSERT_OK_AND_ASSIGN(rows, SelectByMask({{0, 3}}, arrow::Datum(true)));
  EXPECT_EQ(rows, (Ranges{{0, 3}}));
  ASSERT_OK_AND_ASSIGN(rows, SelectByMask({{0, 3}}, arrow::Datum(false)));
  EXPECT_TRUE(rows.empty());
  EXPECT_RAISES(Invalid, SelectByMask({{0, 9}}, arrow::Datum(mask)).status());
}

// A table (id, x) whose one group has a base file with x = i and, newer, a partial-column
// file that rewrote x to 1000 + i. Base files are written with small row groups.
class RewrittenColumnTest : public ::testing::Test {
 protected:
  static constexpr int kRows = 4000;

  void SetUp() override {
    catalog_ = Catalog::Make({{"warehouse", dir_.path()}}).ValueOrDie();
    ASSERT_OK(catalog_->CreateDatabase("db", false));
    TableSchema schema;
    schema.fields = AssignFieldIds({DataField{-1, "id", DataType::Atomic(TypeRoot::kBigInt)},
                                    DataField{-1, "x", DataType::Atomic(TypeRoot::kBigInt)}});
    schema.options = {{"row-tracking.enabled", "true"},
                      {"data-evolution.enabled", "true"},
                      {"file.block-size", "8 kb"}};
    ASSERT_OK(catalog_->CreateTable("db.t", schema, false));
    table_ = catalog_->GetTable("db.t").ValueOrDie();
    ASSERT_OK(Commit(AppendWriter::Make(table_).ValueOrDie(), {"id", "x"}, 0));
    auto plan = ScanPlanner(table_).Plan().ValueOrDie();
    ASSERT_EQ(plan.splits.size(), 1u);
    const DataSplit& split = plan.splits[0];
    table_ = catalog_->GetTable("db.t").ValueOrDie();
    ASSERT_OK(Commit(AppendWriter::MakeForRowIds(table_, {"x"}, split.partition, split.bucket_dir,
                                                 /*first_row_id=*/0)
                         .ValueOrDie(),
                     {"x"}, 1000));
    table_ = catalog_->GetTable("db.t").ValueOrDie();
  }

  Status Commit(std::unique_ptr<AppendWriter> writer, const std::vector<std::string>& cols,
                int64_t x_base) {
    arrow::Int64Builder ids, xs;
    for (int i = 0; i < kRows; ++i) {
      ARROW_RETURN_NOT_OK(ids.Append(i));
      ARROW_RETURN_NOT_OK(xs.Append(x_base + i));
    }
    std::vector<std::shared_ptr<arrow::Field>> fields;
    std::vector<std::shared_ptr<arrow::Array>> arrays;
    if (cols.size() == 2) {
      fields.push_back(arrow::field("id", arrow::int64()));
      ARROW_ASSIGN_OR_RAISE(auto id_array, ids.Finish());
      arrays.push_back(id_array);
    }
    fields.push_back(arrow::field("x", arrow::int64()));
    ARROW_ASSIGN_OR_RAISE(auto x_array, xs.Finish());
    arrays.push_back(x_array);
    ARROW_RETURN_NOT_OK(
        writer->Write(arrow::RecordBatch::Make(arrow::schema(fields), kRows, arrays)));
    ARROW_ASSIGN_OR_RAISE(auto messages, writer->PrepareCommit());
    ARROW_ASSIGN_OR_RAISE(auto committer, Committer::Make(table_));
    return committer->Commit(messages).status();
  }

  Result<ScanPlan> Plan(std::shared_ptr<Predicate> predicate) {
    return ScanPlanner(table_).WithPredicate(std::move(predicate)).Plan();
  }

  int64_t CountRows(std::shared_ptr<Predicate> predicate) {
    auto plan = Plan(predicate).ValueOrDie();
    ReadOptions opts;
    opts.fields = {"id", "x"};
    opts.predicate = predicate;
    auto read = TableRead::Make(table_, opts).ValueOrDie();
    auto out = read->Read(plan.splits).ValueOrDie()->ToTable().ValueOrDie();
    for (const auto& chunk : out->GetColumnByName("x")->chunks()) {
      auto xs = std::static_pointer_cast<arrow::Int64Array>(chunk);
      for (int64_t i = 0; i < xs->length(); ++i) EXPECT_GE(xs->Value(i), 1000);
    }
    return out->num_rows();
  }

  testing::TempDir dir_;
  std::shared_ptr<Catalog> catalog_;
  std::shared_ptr<Table> table_;
};

TEST_F(RewrittenColumnTest, BaseFileStatsNeverPruneARewrittenColumn) {
  // The base file's stats (manifest and Parquet) say x < 4000; the newer file's say >= 1000.
  auto new_values = Int64Leaf(Predicate::Op::kGreaterOrEqual, "x", {1000 + kRows - 10});
  ASSERT_OK_AND_ASSIGN(auto plan, Plan(new_values));
  ASSERT_EQ(plan.splits.size(), 1u);
  EXPECT_EQ(plan.splits[0].groups[0].size(), 2u);
  EXPECT_EQ(CountRows(new_values), 10);
  // Old values: the base file's stats admit them, the winning file's exclude the group.
  auto old_values = Int64Leaf(Predicate::Op::kLessThan, "x", {500});
  ASSERT_OK_AND_ASSIGN(plan, Plan(old_values));
  EXPECT_TRUE(plan.splits.empty());
  EXPECT_EQ(CountRows(old_values), 0);
}

TEST_F(RewrittenColumnTest, RowGroupsOfTheWinningFileArePruned) {
  auto plan = ScanPlanner(table_).Plan().ValueOrDie();
  const DataSplit& split = plan.splits[0];
  const FileGroup& group = split.groups[0];
  SchemaCache schemas(table_);
  auto lookup = [&](int64_t id) { return schemas.Get(id); };
  // x from the partial file (row groups of ~1000 rows), id from the base file.
  auto x_range = Int64Leaf(Predicate::Op::kBetween, "x", {1000 + 2100, 1000 + 2200});
  ASSERT_OK_AND_ASSIGN(auto group_plan,
                       PlanGroupRead(table_->schema(), {"id", "x"}, group, std::nullopt, lookup));
  ASSERT_TRUE(group_plan.has_value());
  GroupFileReaders files(*table_, split, arrow::default_memory_pool());
  ASSERT_OK(PruneByFileStats(*x_range, table_->schema(), &files, &*group_plan));
  ASSERT_FALSE(group_plan->selection.empty());
  EXPECT_LE(group_plan->selection.front().from, 2100);
  EXPECT_GE(group_plan->selection.back().to, 2200);
  EXPECT_LT(group_plan->num_rows, kRows / 2);  // the other row groups are gone
  // The same range on `id` (base file): pruned on the base file's own stats.
  auto id_range = Int64Leaf(Predicate::Op::kBetween, "id", {2100, 2200});
  ASSERT_OK_AND_ASSIGN(group_plan,
                       PlanGroupRead(table_->schema(), {"id", "x"}, group, std::nullopt, lookup));
  ASSERT_OK(PruneByFileStats(*id_range, table_->schema(), &files, &*group_plan));
  EXPECT_LT(group_plan->num_rows, kRows / 2);
  // The old x values: the base file's stats admit them, the partial file's exclude every row
  // group.
  auto old_values = Int64Leaf(Predicate::Op::kBetween, "x", {100, 200});
  ASSERT_OK_AND_ASSIGN(group_plan,
                       PlanGroupRead(table_->schema(), {"id", "x"}, group, std::nullopt, lookup));
  ASSERT_OK(PruneByFileStats(*old_values, table_->schema(), &files, &*group_plan));
  EXPECT_EQ(group_plan->num_rows, 0);
  EXPECT_EQ(CountRows(x_range), 101);
}

}  // namespace
}  // namespace paimon_rowid
