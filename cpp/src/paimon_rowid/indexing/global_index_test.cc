#include "paimon_rowid/indexing/global_index.h"

#include <gtest/gtest.h>

#include "paimon_rowid/gindex/btree_file.h"
#include "paimon_rowid/scan/deletion_files.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

using testing::DeOptions;
using testing::WriteFixture;

std::shared_ptr<arrow::Array> Strings(const std::vector<std::string>& values) {
  arrow::StringBuilder b;
  for (const auto& v : values) EXPECT_OK(b.Append(v));
  return b.Finish().ValueOrDie();
}

Snapshot Latest(const Table& table) { return *table.LatestSnapshot().ValueOrDie(); }

// Row ids whose `name` equals one of `names`, by a full scan.
std::vector<int64_t> ScanRowIds(WriteFixture& f, const std::set<std::string>& names) {
  auto t = f.ReadAll({"name", "_ROW_ID"});
  std::vector<int64_t> out;
  auto ids = WriteFixture::Int64s(t, "_ROW_ID");
  int64_t row = 0;
  for (const auto& chunk : t->GetColumnByName("name")->chunks()) {
    auto s = std::static_pointer_cast<arrow::StringArray>(chunk);
    for (int64_t i = 0; i < s->length(); ++i, ++row) {
      if (!s->IsNull(i) && names.count(std::string(s->GetView(i)))) out.push_back(ids[row]);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(GlobalIndexTest, BuildLookupIncrementalAndDrop) {
  WriteFixture f(DeOptions(), {"dt"});
  f.Append(WriteFixture::Batch(0, 300, {"a", "b"}));
  const int64_t before = Latest(*f.table()).id;

  GlobalIndexBuildOptions options;
  options.column = "name";
  options.options = {{"sorted-index.records-per-file", "50"}, {"btree-index.block-size", "256"}};
  ASSERT_OK_AND_ASSIGN(int64_t added, CreateGlobalIndex(f.table(), options));
  // Two partitions of 150 rows, files of at most 60 rows: 3 files each.
  EXPECT_EQ(added, 6);
  Snapshot snap = Latest(*f.table());
  EXPECT_EQ(snap.id, before + 1);
  EXPECT_EQ(snap.commit_kind, "APPEND");
  ASSERT_OK_AND_ASSIGN(auto files, LiveGlobalIndexFiles(*f.table(), snap, 1, "btree"));
  ASSERT_EQ(files.size(), 6u);
  std::set<std::pair<int64_t, int64_t>> ranges;
  for (const auto& e : files) {
    EXPECT_EQ(e.bucket, 0);
    ranges.emplace(e.global_index->row_range_start, e.global_index->row_range_end);
  }
  EXPECT_EQ(ranges, (std::set<std::pair<int64_t, int64_t>>{{0, 149}, {150, 299}}));

  std::vector<std::string> keys = {"name-0", "name-17", "name-299", "name-150", "missing"};
  ASSERT_OK_AND_ASSIGN(auto found, LookupGlobalIndex(*f.table(), snap, "name", *Strings(keys)));
  EXPECT_EQ(found.row_ids, ScanRowIds(f, {keys.begin(), keys.end()}));
  EXPECT_EQ(found.row_ids.size(), 4u);
  EXPECT_EQ(found.covered, (std::vector<RowRange>{{0, 299}}));
  EXPECT_LE(found.files_read, 4);  // first/last keys rule the other files out

  // Nothing left to index: no commit.
  ASSERT_OK_AND_ASSIGN(added, CreateGlobalIndex(f.table(), options));
  EXPECT_EQ(added, 0);
  EXPECT_EQ(Latest(*f.table()).id, snap.id);

  // Appended rows: the second build covers only them.
  f.Append(WriteFixture::Batch(300, 40, {"a"}));
  ASSERT_OK_AND_ASSIGN(added, CreateGlobalIndex(f.table(), options));
  EXPECT_EQ(added, 1);
  snap = Latest(*f.table());
  ASSERT_OK_AND_ASSIGN(files, LiveGlobalIndexFiles(*f.table(), snap, 1, "btree"));
  ASSERT_EQ(files.size(), 7u);
  EXPECT_EQ(files.back().global_index->row_range_start, 300);
  EXPECT_EQ(files.back().global_index->row_range_end, 339);
  ASSERT_OK_AND_ASSIGN(
      found, LookupGlobalIndex(*f.table(), snap, "name", *Strings({"name-320", "name-5"})));
  EXPECT_EQ(found.row_ids, ScanRowIds(f, {"name-320", "name-5"}));

  // Drop: a dry run commits nothing; the drop removes every file of the index.
  ASSERT_OK_AND_ASSIGN(int64_t dropped, DropGlobalIndex(f.table(), "name", "btree", nullptr, true));
  EXPECT_EQ(dropped, 7);
  EXPECT_EQ(Latest(*f.table()).id, snap.id);
  ASSERT_OK_AND_ASSIGN(dropped, DropGlobalIndex(f.table(), "name", "btree", nullptr, false));
  EXPECT_EQ(dropped, 7);
  snap = Latest(*f.table());
  EXPECT_TRUE(
      LookupGlobalIndex(*f.table(), snap, "name", *Strings({"name-5"})).status().IsKeyError());
  // The data is untouched.
  EXPECT_EQ(ScanRowIds(f, {"name-5"}).size(), 1u);
  EXPECT_EQ(f.ReadAll({"id"})->num_rows(), 340);
}

TEST(GlobalIndexTest, BitmapBuildLookupAndPlan) {
  WriteFixture f(DeOptions(), {"dt"});
  f.Append(WriteFixture::Batch(0, 200, {"a", "b"}));
  GlobalIndexBuildOptions options;
  options.column = "name";
  options.index_type = "bitmap";
  options.options = {{"sorted-index.records-per-file", "40"},
                     {"bitmap-index.dictionary-block-size", "64"}};
  ASSERT_OK_AND_ASSIGN(int64_t added, CreateGlobalIndex(f.table(), options));
  EXPECT_EQ(added, 6);  // two partitions of 100 rows, files of at most 48 rows: 3 each
  Snapshot snap = Latest(*f.table());
  ASSERT_OK_AND_ASSIGN(auto files, LiveGlobalIndexFiles(*f.table(), snap, 1, "bitmap"));
  EXPECT_EQ(static_cast<int64_t>(files.size()), added);
  for (const auto& e : files) EXPECT_EQ(e.file_name.rfind("bitmap-global-index-", 0), 0u);
  ASSERT_OK_AND_ASSIGN(auto btree, LiveGlobalIndexFiles(*f.table(), snap, 1, "btree"));
  EXPECT_TRUE(btree.empty());
  std::vector<std::string> keys = {"name-0", "name-17", "name-199", "name-150", "missing"};
  ASSERT_OK_AND_ASSIGN(auto found, LookupGlobalIndex(*f.table(), snap, "name", *Strings(keys)));
  EXPECT_EQ(found.row_ids, ScanRowIds(f, {keys.begin(), keys.end()}));
  EXPECT_EQ(found.row_ids.size(), 4u);
  // A read of `name IN (...)` plans only the matched rows.
  ASSERT_OK_AND_ASSIGN(
      auto in, Predicate::Leaf(Predicate::Op::kIn, "name", Strings({"name-17", "name-150"})));
  ASSERT_OK_AND_ASSIGN(auto planned, RangesFromGlobalIndexes(*f.table(), snap, *in));
  ASSERT_TRUE(planned.has_value());
  EXPECT_EQ(planned->stats.rows_selected, 2);
  EXPECT_EQ(planned->stats.rows_total, 200);
  ASSERT_OK_AND_ASSIGN(int64_t dropped,
                       DropGlobalIndex(f.table(), "name", "bitmap", nullptr, false));
  EXPECT_EQ(dropped, added);
}

TEST(GlobalIndexTest, NumericKeysAndNullsRoundTrip) {
  WriteFixture f;
  f.Append(WriteFixture::Batch(0, 100));
  GlobalIndexBuildOptions options;
  options.column = "id";
  options.options = {{"btree-index.bloom-filter.enabled", "true"},
                     {"btree-index.compression", "zstd"}};
  ASSERT_OK_AND_ASSIGN(int64_t added, CreateGlobalIndex(f.table(), options));
  EXPECT_EQ(added, 1);
  arrow::Int64Builder b;
  for (int64_t v : {5, 99, 100, -1, 42}) ASSERT_OK(b.Append(v));
  ASSERT_OK(b.AppendNull());
  auto keys = b.Finish().ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto found, LookupGlobalIndex(*f.table(), Latest(*f.table()), "id", *keys));
  EXPECT_EQ(found.row_ids, (std::vector<int64_t>{5, 42, 99}));
}

TEST(GlobalIndexTest, ErrorsCommitNothingAndLeaveNoFile) {
  WriteFixture f;
  f.Append(WriteFixture::Batch(0, 10));
  const int64_t before = Latest(*f.table()).id;
  GlobalIndexBuildOptions options;
  options.column = "nope";
  EXPECT_TRUE(CreateGlobalIndex(f.table(), options).status().IsInvalid());
  options.column = "name";
  options.index_type = "bitmap";
  options.options = {{"bitmap-index.compression", "zstd"}};  // pypaimon builds `none` only
  EXPECT_TRUE(CreateGlobalIndex(f.table(), options).status().IsInvalid());
  options.options = {{"bitmap-index.dictionary-block-size", "0"}};
  EXPECT_TRUE(CreateGlobalIndex(f.table(), options).status().IsInvalid());
  options.options.clear();
  options.index_type = "hash";
  EXPECT_TRUE(CreateGlobalIndex(f.table(), options).status().IsInvalid());
  options.index_type = "btree";
  options.options = {{"btree-index.compression", "lzo"}};
  EXPECT_TRUE(CreateGlobalIndex(f.table(), options).status().IsInvalid());
  EXPECT_EQ(Latest(*f.table()).id, before);
  EXPECT_TRUE(WriteFixture::Files(f.table_path() + "/index").empty());

  WriteFixture plain(std::map<std::string, std::string>{});
  plain.Append(WriteFixture::Batch(0, 10));
  options.options.clear();
  EXPECT_TRUE(CreateGlobalIndex(plain.table(), options).status().IsInvalid());
}

// A filtered plan with `=` / `IN` on an indexed column selects the matching rows plus the rows
// the index does not cover, and reads what an unindexed plan reads.
TEST(GlobalIndexTest, PlansReadOnlyWhatTheIndexSelects) {
  WriteFixture f;
  f.Append(WriteFixture::Batch(0, 200));
  GlobalIndexBuildOptions options;
  options.column = "name";
  ASSERT_OK_AND_ASSIGN(int64_t added, CreateGlobalIndex(f.table(), options));
  ASSERT_EQ(added, 1);
  f.Append(WriteFixture::Batch(200, 20));  // rows 200..219: not covered
  ASSERT_OK_AND_ASSIGN(
      auto predicate,
      Predicate::Leaf(Predicate::Op::kIn, "name", Strings({"name-7", "name-150", "name-210"})));
  ASSERT_OK_AND_ASSIGN(auto found,
                       RangesFromGlobalIndexes(*f.table(), Latest(*f.table()), *predicate));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->ranges, (std::vector<RowRange>{{7, 7}, {150, 150}, {200, 219}}));
  EXPECT_EQ(found->stats.rows_total, 220);
  EXPECT_EQ(found->stats.rows_selected, 22);
  EXPECT_EQ(found->stats.columns, std::vector<std::string>{"name"});
  auto read = [&](std::shared_ptr<const Table> table) {
    auto plan = ScanPlanner(table).WithPredicate(predicate).Plan().ValueOrDie();
    int64_t planned = 0;
    for (const auto& s : plan.splits) {
      for (const auto& r : s.row_ranges.value_or(std::vector<RowRange>{})) planned += r.count();
    }
    ReadOptions opts;
    opts.fields = {"_ROW_ID"};
    opts.predicate = predicate;
    auto rows = TableRead::Make(table, opts).ValueOrDie()->Read(plan.splits).ValueOrDie();
    auto t = rows->ToTable().ValueOrDie();
    auto ids = WriteFixture::Int64s(t, "_ROW_ID");
    std::sort(ids.begin(), ids.end());
    return std::make_pair(planned, ids);
  };
  auto [planned, ids] = read(f.table());
  EXPECT_EQ(planned, 22);
  EXPECT_EQ(ids, (std::vector<int64_t>{7, 150, 210}));
  auto off = f.table()->Copy({{"global-index.enabled", "false"}}).ValueOrDie();
  EXPECT_EQ(read(off).second, ids);
  EXPECT_FALSE(RangesFromGlobalIndexes(*off, Latest(*off), *predicate).ValueOrDie().has_value());
}

// The commit refuses a global-index file overlapping a live one of the same index (a
// concurrent build committed first) and one covering rows the partition does not hold.
TEST(GlobalIndexTest, CommitRefusesOverlapsAndRangesWithoutData) {
  WriteFixture f;
  f.Append(WriteFixture::Batch(0, 10));
  GlobalIndexBuildOptions options;
  options.column = "name";
  ASSERT_OK_AND_ASSIGN(int64_t added, CreateGlobalIndex(f.table(), options));
  ASSERT_EQ(added, 1);
  ASSERT_OK_AND_ASSIGN(auto live, LiveGlobalIndexFiles(*f.table(), Latest(*f.table()), 1, "btree"));
  const std::string bytes =
      f.table()->file_io()->ReadFile(IndexEntryPath(*f.table(), live[0])).ValueOrDie()->ToString();
  auto commit_copy = [&](int64_t from, int64_t to) {
    IndexManifestEntry e = live[0];
    e.file_name = "btree-global-index-copy-" + std::to_string(from) + ".index";
    e.global_index->row_range_start = from;
    e.global_index->row_range_end = to;
    EXPECT_OK(f.table()->file_io()->WriteFile(f.table()->IndexFilePath(e.file_name), bytes));
    CommitMessage msg;
    msg.partition = e.partition;
    msg.new_index_files = {e};
    return Committer::Make(f.table()).ValueOrDie()->Commit({msg});
  };
  const int64_t before = Latest(*f.table()).id;
  auto overlap = commit_copy(5, 9);
  ASSERT_FALSE(overlap.ok());
  EXPECT_NE(overlap.status().message().find("already covers"), std::string::npos);
  auto beyond = commit_copy(10, 20);
  ASSERT_FALSE(beyond.ok());
  EXPECT_NE(beyond.status().message().find("not all live data"), std::string::npos);
  EXPECT_EQ(Latest(*f.table()).id, before);
}

}  // namespace
}  // namespace paimon_rowid
