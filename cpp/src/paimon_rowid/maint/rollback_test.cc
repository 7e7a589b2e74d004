#include "paimon_rowid/maint/rollback.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "paimon_rowid/catalog/snapshot_manager.h"
#include "paimon_rowid/catalog/tags.h"
#include "paimon_rowid/common/clock.h"
#include "paimon_rowid/maint/expire.h"
#include "paimon_rowid/maint/table_files_internal.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

using testing::WriteFixture;

const RollbackOptions kDeleteFiles{/*delete_unused_files=*/true};

std::vector<int64_t> Ids(const Table& table) { return table.ListSnapshotIds().ValueOrDie(); }

std::vector<int64_t> RowIds(const std::shared_ptr<Table>& table) {
  auto t = table->Copy({}).ValueOrDie();  // latest, as a fresh handle sees it
  auto plan = ScanPlanner(t).Plan().ValueOrDie();
  ReadOptions ro;
  ro.fields = {"id", "_ROW_ID"};
  auto read = TableRead::Make(t, ro).ValueOrDie();
  auto got = read->Read(plan.splits).ValueOrDie()->ToTable().ValueOrDie();
  auto ids = WriteFixture::Int64s(got->CombineChunks().ValueOrDie(), "id");
  std::sort(ids.begin(), ids.end());
  return ids;
}

// Every file snapshot `id` names (meta and data).
std::set<std::string> FilesOf(const Table& table, const Snapshot& snap) {
  std::set<std::string> files;
  EXPECT_OK(CollectMetaFiles(table, snap, false, &files));
  for (const auto& e : ReadLiveEntries(table, snap, nullptr).ValueOrDie()) {
    EXPECT_OK(AddDataPaths(table, e, &files));
  }
  return files;
}

std::set<std::string> AllFiles(const WriteFixture& fx) {
  std::set<std::string> out;
  for (const char* dir : {"/manifest", "/bucket-0"}) {
    for (const auto& f : WriteFixture::Files(fx.table_path() + dir)) out.insert(f);
  }
  return out;
}

TEST(RollbackTest, DeletesLaterSnapshotsTagsAndTheFilesOnlyTheyNeed) {
  WriteFixture fx;
  for (int i = 0; i < 4; ++i) fx.Append(WriteFixture::Batch(i * 10, 10));
  const Table& t = *fx.table();
  ASSERT_OK(CreateTag(t, "keep", 2, false, std::nullopt));
  ASSERT_OK(CreateTag(t, "gone", 3, false, std::nullopt));
  Snapshot two = t.SnapshotById(2).ValueOrDie();
  std::set<std::string> needed = FilesOf(t, two);
  auto before = AllFiles(fx);

  ASSERT_OK_AND_ASSIGN(auto r, RollbackToSnapshot(fx.table(), 2, kDeleteFiles));
  EXPECT_EQ(r.snapshot_id, 2);
  EXPECT_EQ(r.snapshots_deleted, 2);
  EXPECT_EQ(r.tags_deleted, std::vector<std::string>{"gone"});
  EXPECT_EQ(r.data_files_deleted, 2);  // the files snapshots 3 and 4 appended
  EXPECT_GT(r.manifest_files_deleted, 0);
  EXPECT_EQ(Ids(t), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(t.ListTags().ValueOrDie(), std::vector<std::string>{"keep"});
  EXPECT_EQ(SnapshotManager(t.file_io(), t.path()).ReadHint("LATEST"), 2);
  // Everything snapshot 2 names is there; nothing else of the later snapshots is.
  for (const auto& f : needed) EXPECT_TRUE(t.file_io()->Exists(f).ValueOrDie()) << f;
  auto after = AllFiles(fx);
  EXPECT_EQ(before.size() - after.size(),
            static_cast<size_t>(r.data_files_deleted + r.manifest_files_deleted));
  EXPECT_EQ(RowIds(fx.table()).size(), 20u);
  // The next commit is snapshot 3 again and reads on.
  fx.Append(WriteFixture::Batch(100, 5));
  EXPECT_EQ(Ids(t), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(RowIds(fx.table()).size(), 25u);
}

TEST(RollbackTest, ByDefaultLeavesTheFilesAsJavaDoes) {
  WriteFixture fx;
  for (int i = 0; i < 3; ++i) fx.Append(WriteFixture::Batch(i * 10, 10));
  const Table& t = *fx.table();
  ASSERT_OK(CreateTag(t, "gone", 3, false, std::nullopt));
  auto before = AllFiles(fx);
  ASSERT_OK_AND_ASSIGN(auto r, RollbackToSnapshot(fx.table(), 1));
  EXPECT_EQ(r.snapshots_deleted, 2);
  EXPECT_EQ(r.tags_deleted, std::vector<std::string>{"gone"});
  EXPECT_EQ(r.data_files_deleted + r.manifest_files_deleted, 0);
  EXPECT_EQ(AllFiles(fx), before);  // data files and manifests stay (orphans now)
  EXPECT_EQ(Ids(t), (std::vector<int64_t>{1}));
  EXPECT_TRUE(t.ListTags().ValueOrDie().empty());
  EXPECT_EQ(RowIds(fx.table()).size(), 10u);
}

TEST(RollbackTest, ToTheLatestSnapshotChangesNothing) {
  WriteFixture fx;
  for (int i = 0; i < 2; ++i) fx.Append(WriteFixture::Batch(i * 10, 10));
  auto before = AllFiles(fx);
  ASSERT_OK_AND_ASSIGN(auto r, RollbackToSnapshot(fx.table(), 2, kDeleteFiles));
  EXPECT_EQ(r.snapshots_deleted + r.data_files_deleted + r.manifest_files_deleted, 0);
  EXPECT_EQ(AllFiles(fx), before);
}

TEST(RollbackTest, MissingTargetsAreRefusedAndNothingChanges) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  fx.Append(WriteFixture::Batch(10, 10));
  auto before = AllFiles(fx);
  auto r = RollbackToSnapshot(fx.table(), 7);
  ASSERT_TRUE(r.status().IsInvalid());
  EXPECT_EQ(r.status().message(), "Rollback snapshot '7' doesn't exist.");
  auto tag = RollbackToTag(fx.table(), "nope");
  ASSERT_TRUE(tag.status().IsInvalid());
  EXPECT_EQ(tag.status().message(), "Tag 'nope' doesn't exist.");
  auto ts = RollbackToTimestamp(fx.table(), 5);
  ASSERT_TRUE(ts.status().IsInvalid());
  EXPECT_EQ(ts.status().message(),
            "No snapshot found with timestamp earlier than or equal to 5ms.");
  EXPECT_EQ(AllFiles(fx), before);
  EXPECT_EQ(Ids(*fx.table()), (std::vector<int64_t>{1, 2}));
}

TEST(RollbackTest, ToATagWhoseSnapshotExpiredRecreatesIt) {
  WriteFixture fx;
  for (int i = 0; i < 4; ++i) fx.Append(WriteFixture::Batch(i * 10, 10));
  const Table& t = *fx.table();
  ASSERT_OK(CreateTag(t, "t1", 1, false, std::nullopt));
  ExpireOptions o;
  o.retain_min = 1;
  o.older_than_ms = NowMillis() + 60'000;
  ASSERT_OK(ExpireSnapshots(fx.table(), o).status());
  ASSERT_EQ(Ids(t), (std::vector<int64_t>{4}));
  // By snapshot id: snapshot 1 expired, but tag t1 holds it.
  ASSERT_OK_AND_ASSIGN(auto r, RollbackToSnapshot(fx.table(), 1, kDeleteFiles));
  EXPECT_EQ(r.snapshot_id, 1);
  EXPECT_EQ(Ids(t), (std::vector<int64_t>{1}));
  SnapshotManager sm(t.file_io(), t.path());
  EXPECT_EQ(sm.ReadHint("EARLIEST"), 1);
  EXPECT_EQ(sm.ReadHint("LATEST"), 1);
  EXPECT_EQ(t.SnapshotById(1).ValueOrDie().ToJson(),
            t.TagByName("t1").ValueOrDie().snapshot.ToJson());
  EXPECT_EQ(RowIds(fx.table()).size(), 10u);
  EXPECT_EQ(r.data_files_deleted, 3);
}

TEST(RollbackTest, ToTimestampPicksTheLatestSnapshotAtOrBeforeIt) {
  WriteFixture fx;
  for (int i = 0; i < 3; ++i) {
    fx.Append(WriteFixture::Batch(i * 10, 10));
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  int64_t at = fx.table()->SnapshotById(2).ValueOrDie().time_millis;
  ASSERT_OK_AND_ASSIGN(auto r, RollbackToTimestamp(fx.table(), at + 1));
  EXPECT_EQ(r.snapshot_id, 2);
  EXPECT_EQ(Ids(*fx.table()), (std::vector<int64_t>{1, 2}));
}

}  // namespace
}  // namespace paimon_rowid
