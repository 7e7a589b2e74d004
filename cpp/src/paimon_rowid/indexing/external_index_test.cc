// The C++ side of the search indexes whose files paimon-vindex / paimon-ftindex write
// (docs/search.md): PlanExternalIndexBuild, CommitExternalIndexFiles and DeletedRowIds. The
// index files here are opaque bytes of a made-up type: the core never reads them.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "paimon_rowid/commit/committer.h"
#include "paimon_rowid/indexing/global_index.h"
#include "paimon_rowid/rowid/delete_by_row_id.h"
#include "paimon_rowid/scan/deletion_files.h"
#include "paimon_rowid/scan/global_index_scan.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

using testing::DeOptions;
using testing::WriteFixture;

constexpr char kType[] = "test-vec";
constexpr int32_t kNameFieldId = 1;  // id 0, name 1, dt 2

Snapshot Latest(const Table& table) { return *table.LatestSnapshot().ValueOrDie(); }

std::shared_ptr<Predicate> DtEquals(const std::string& value) {
  arrow::StringBuilder b;
  EXPECT_OK(b.Append(value));
  return Predicate::Leaf(Predicate::Op::kEqual, "dt", b.Finish().ValueOrDie()).ValueOrDie();
}

// Writes an opaque index file and returns its ADD entry over [from, to] of `partition`.
IndexManifestEntry WriteIndexFile(const Table& table, const std::string& partition, int64_t from,
                                  int64_t to, const std::string& name) {
  IndexManifestEntry e;
  e.kind = FileKind::kAdd;
  e.partition = partition;
  e.index_type = kType;
  e.file_name = name;
  e.file_size = 5;
  e.row_count = to - from + 1;
  e.global_index = GlobalIndexMeta{from, to, kNameFieldId, std::nullopt, "{}", std::nullopt};
  EXPECT_OK(table.file_io()->WriteFile(table.IndexFilePath(name), "bytes"));
  return e;
}

bool Exists(const Table& table, const std::string& name) {
  return std::filesystem::exists(table.IndexFilePath(name));
}

TEST(ExternalIndexTest, PlanCoversEachPartitionsSegmentsMinusLiveFiles) {
  WriteFixture f(DeOptions(), {"dt"});
  ASSERT_OK_AND_ASSIGN(auto empty, PlanExternalIndexBuild(f.table(), "name", kType, nullptr));
  EXPECT_EQ(empty.snapshot_id, 0);  // no snapshot yet: nothing to build
  EXPECT_EQ(empty.field_id, kNameFieldId);
  EXPECT_TRUE(empty.ranges.empty());

  f.Append(WriteFixture::Batch(0, 300, {"a", "b"}));
  ASSERT_OK_AND_ASSIGN(auto plan, PlanExternalIndexBuild(f.table(), "name", kType, nullptr));
  EXPECT_EQ(plan.snapshot_id, Latest(*f.table()).id);
  ASSERT_EQ(plan.ranges.size(), 2u);
  EXPECT_EQ(plan.ranges[0].range, (RowRange{0, 149}));
  EXPECT_EQ(plan.ranges[1].range, (RowRange{150, 299}));
  EXPECT_NE(plan.ranges[0].partition, plan.ranges[1].partition);
  const std::string part_a = plan.ranges[0].partition, part_b = plan.ranges[1].partition;

  ASSERT_OK_AND_ASSIGN(auto only_b,
                       PlanExternalIndexBuild(f.table(), "name", kType, DtEquals("b")));
  ASSERT_EQ(only_b.ranges.size(), 1u);
  EXPECT_EQ(only_b.ranges[0].partition, part_b);

  // A committed file of partition a covers its segment; another index type does not count.
  ASSERT_OK(CommitExternalIndexFiles(
                f.table(), {WriteIndexFile(*f.table(), part_a, 0, 149, "test-vec-a.index")})
                .status());
  ASSERT_OK_AND_ASSIGN(plan, PlanExternalIndexBuild(f.table(), "name", kType, nullptr));
  ASSERT_EQ(plan.ranges.size(), 1u);
  EXPECT_EQ(plan.ranges[0].range, (RowRange{150, 299}));
  ASSERT_OK_AND_ASSIGN(auto other, PlanExternalIndexBuild(f.table(), "name", "other", nullptr));
  EXPECT_EQ(other.ranges.size(), 2u);
  ASSERT_OK_AND_ASSIGN(auto by_id, PlanExternalIndexBuild(f.table(), "id", kType, nullptr));
  EXPECT_EQ(by_id.ranges.size(), 2u);  // an index of another column

  // Rows appended to partition a: only they are left there.
  f.Append(WriteFixture::Batch(300, 40, {"a"}));
  ASSERT_OK_AND_ASSIGN(plan, PlanExternalIndexBuild(f.table(), "name", kType, DtEquals("a")));
  ASSERT_EQ(plan.ranges.size(), 1u);
  EXPECT_EQ(plan.ranges[0].range, (RowRange{300, 339}));
  EXPECT_EQ(plan.ranges[0].partition, part_a);
}

TEST(ExternalIndexTest, PlanRefusesUnknownColumnsAndTablesWithoutRowTracking) {
  WriteFixture f;
  f.Append(WriteFixture::Batch(0, 10));
  EXPECT_TRUE(PlanExternalIndexBuild(f.table(), "nope", kType, nullptr).status().IsInvalid());
  WriteFixture plain(std::map<std::string, std::string>{{"bucket", "-1"}});
  plain.Append(WriteFixture::Batch(0, 10));
  auto refused = PlanExternalIndexBuild(plain.table(), "name", kType, nullptr);
  ASSERT_TRUE(refused.status().IsInvalid());
  EXPECT_NE(refused.status().message().find("row-tracking.enabled"), std::string::npos);
}

TEST(ExternalIndexTest, CommitListsTheFilesAndRefusalsDeleteThemAndCommitNothing) {
  WriteFixture f;
  f.Append(WriteFixture::Batch(0, 100));
  ASSERT_OK_AND_ASSIGN(auto plan, PlanExternalIndexBuild(f.table(), "name", kType, nullptr));
  ASSERT_EQ(plan.ranges.size(), 1u);
  const std::string part = plan.ranges[0].partition;

  ASSERT_OK_AND_ASSIGN(int64_t none, CommitExternalIndexFiles(f.table(), {}));
  EXPECT_EQ(none, 0);
  const int64_t before = Latest(*f.table()).id;

  ASSERT_OK_AND_ASSIGN(
      int64_t committed,
      CommitExternalIndexFiles(f.table(),
                               {WriteIndexFile(*f.table(), part, 0, 49, "test-vec-1.index"),
                                WriteIndexFile(*f.table(), part, 50, 99, "test-vec-2.index")}));
  EXPECT_EQ(committed, before + 1);
  ASSERT_OK_AND_ASSIGN(auto live,
                       LiveGlobalIndexFiles(*f.table(), Latest(*f.table()), kNameFieldId, kType));
  ASSERT_EQ(live.size(), 2u);
  std::set<std::pair<int64_t, int64_t>> ranges;
  for (const auto& e : live) {
    EXPECT_EQ(e.bucket, 0);
    EXPECT_EQ(e.global_index->index_meta.value_or(""), "{}");
    ranges.emplace(e.global_index->row_range_start, e.global_index->row_range_end);
  }
  EXPECT_EQ(ranges, (std::set<std::pair<int64_t, int64_t>>{{0, 49}, {50, 99}}));

  // Refused: an overlap with a live file, rows the table does not hold, an entry without
  // global-index meta. Each deletes the files it was given and commits nothing.
  auto overlap = WriteIndexFile(*f.table(), part, 40, 60, "test-vec-overlap.index");
  auto beyond = WriteIndexFile(*f.table(), part, 100, 120, "test-vec-beyond.index");
  auto bare = WriteIndexFile(*f.table(), part, 0, 9, "test-vec-bare.index");
  bare.global_index.reset();
  auto fresh = WriteIndexFile(*f.table(), part, 0, 9, "test-vec-fresh.index");
  const int64_t after = Latest(*f.table()).id;
  auto refused = CommitExternalIndexFiles(f.table(), {overlap});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("already covers"), std::string::npos);
  refused = CommitExternalIndexFiles(f.table(), {beyond});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("not all live data"), std::string::npos);
  refused = CommitExternalIndexFiles(f.table(), {fresh, bare});
  EXPECT_TRUE(refused.status().IsInvalid());
  for (const char* name : {"test-vec-overlap.index", "test-vec-beyond.index", "test-vec-bare.index",
                           "test-vec-fresh.index"}) {
    EXPECT_FALSE(Exists(*f.table(), name)) << name;
  }
  EXPECT_TRUE(Exists(*f.table(), "test-vec-1.index"));
  EXPECT_EQ(Latest(*f.table()).id, after);
}

TEST(ExternalIndexTest, DeletedRowIdsOfEachSnapshot) {
  WriteFixture f(DeOptions({{"deletion-vectors.enabled", "true"}}), {"dt"});
  f.Append(WriteFixture::Batch(0, 200, {"a", "b"}));  // a: 0..99, b: 100..199
  const Snapshot first = Latest(*f.table());
  ASSERT_OK_AND_ASSIGN(auto none, DeletedRowIds(*f.table(), first));
  EXPECT_TRUE(none.empty());
  auto commit = [&](std::vector<int64_t> ids) {
    ASSERT_OK_AND_ASSIGN(auto messages, DeleteByRowId(f.table(), std::move(ids)));
    ASSERT_OK(Committer::Make(f.table()).ValueOrDie()->Commit(messages).status());
  };
  commit({150, 7, 3});
  const Snapshot second = Latest(*f.table());
  ASSERT_OK_AND_ASSIGN(auto ids, DeletedRowIds(*f.table(), second));
  EXPECT_EQ(ids, (std::vector<int64_t>{3, 7, 150}));
  commit({5, 7});  // the vector of partition a is replaced; 7 stays deleted once
  ASSERT_OK_AND_ASSIGN(ids, DeletedRowIds(*f.table(), Latest(*f.table())));
  EXPECT_EQ(ids, (std::vector<int64_t>{3, 5, 7, 150}));
  ASSERT_OK_AND_ASSIGN(ids, DeletedRowIds(*f.table(), second));  // time travel
  EXPECT_EQ(ids, (std::vector<int64_t>{3, 7, 150}));
  ASSERT_OK_AND_ASSIGN(ids, DeletedRowIds(*f.table(), first));
  EXPECT_TRUE(ids.empty());
}

}  // namespace
}  // namespace paimon_rowid
