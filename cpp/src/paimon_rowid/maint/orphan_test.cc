#include "paimon_rowid/maint/orphan.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "paimon_rowid/common/clock.h"
#include "paimon_rowid/maint/expire.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

namespace fs = std::filesystem;
using testing::DeOptions;
using testing::WriteFixture;

// Sets the modification time of `path` (and, for a directory, of everything below) two days
// back, beyond the default one-day margin.
void Age(const std::string& path) {
  auto old = fs::file_time_type::clock::now() - std::chrono::hours(48);
  if (fs::is_directory(path)) {
    for (const auto& e : fs::recursive_directory_iterator(path)) fs::last_write_time(e.path(), old);
  }
  fs::last_write_time(path, old);
}

std::string Touch(const std::string& path, const std::string& content = "junk") {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << content;
  return path;
}

std::shared_ptr<arrow::Table> ReadAllRows(WriteFixture& fx) {
  return fx.ReadAll({"id", "name", "_ROW_ID"})->CombineChunks().ValueOrDie();
}

TEST(OrphanTest, DeletesOnlyUnreferencedOldFiles) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  fx.Append(WriteFixture::Batch(10, 10));
  const std::string root = fx.table_path();
  auto rows = ReadAllRows(fx);
  std::string old_data = Touch(root + "/bucket-0/data-orphan-0.parquet", "0123456789");
  std::string old_manifest = Touch(root + "/manifest/manifest-orphan-0");
  std::string old_index = Touch(root + "/index/index-orphan-0");
  std::string old_stats = Touch(root + "/statistics/stats-orphan-0");
  Age(root);  // every file old, referenced ones too
  std::string young = Touch(root + "/bucket-0/data-young-0.parquet");
  std::string outside = Touch(fx.warehouse() + "/db.db/not-a-table-file");
  Age(outside);
  std::string unknown = Touch(root + "/branch/branch-x/snapshot/snapshot-1");
  Age(unknown);

  ASSERT_OK_AND_ASSIGN(auto dry, RemoveOrphanFiles(fx.table(), OrphanOptions{.dry_run = true}));
  std::vector<std::string> expected{old_data, old_index, old_manifest, old_stats};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(dry.paths, expected);
  EXPECT_TRUE(dry.dry_run);
  EXPECT_EQ(dry.files, 4);
  EXPECT_EQ(dry.bytes, 10 + 3 * 4);
  for (const auto& p : expected) EXPECT_TRUE(fs::exists(p)) << p;  // a dry run deletes nothing

  ASSERT_OK_AND_ASSIGN(auto r, RemoveOrphanFiles(fx.table()));
  EXPECT_EQ(r.paths, expected);
  for (const auto& p : expected) EXPECT_FALSE(fs::exists(p)) << p;
  for (const auto& p : {young, outside, unknown}) EXPECT_TRUE(fs::exists(p)) << p;
  EXPECT_TRUE(ReadAllRows(fx)->Equals(*rows));
  // Again: nothing left to delete.
  ASSERT_OK_AND_ASSIGN(r, RemoveOrphanFiles(fx.table()));
  EXPECT_EQ(r.files, 0);
}

TEST(OrphanTest, TheStatisticsFileASnapshotNamesIsUsed) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  const std::string root = fx.table_path();
  Snapshot snap = fx.table()->SnapshotById(1).ValueOrDie();
  snap.statistics = "stats-used";  // as an ANALYZE of another engine records it
  ASSERT_OK(fx.table()->file_io()->WriteFile(fx.table()->SnapshotPath(1), snap.ToJson()));
  std::string used = Touch(root + "/statistics/stats-used");
  std::string dead = Touch(root + "/statistics/stats-dead");
  Age(root);
  ASSERT_OK_AND_ASSIGN(auto r, RemoveOrphanFiles(fx.table()));
  EXPECT_EQ(r.paths, std::vector<std::string>{dead});
  EXPECT_TRUE(fs::exists(used));
}

TEST(OrphanTest, CleansTempFilesOfTheMetadataDirectoriesOnly) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  ASSERT_OK(fx.table()->CreateTag("keep", 1, false));
  const std::string root = fx.table_path();
  std::string snap_tmp = Touch(root + "/snapshot/.snapshot-2.tmp.1234");
  std::string schema_tmp = Touch(root + "/schema/schema-1.tmp");
  std::string tag_tmp = Touch(root + "/tag/.tag-x.123");
  std::string stray = Touch(root + "/snapshot/snapshot-junk");  // not a temp name: kept
  Age(root);
  auto before = WriteFixture::Files(root);
  ASSERT_OK_AND_ASSIGN(auto r, RemoveOrphanFiles(fx.table()));
  std::vector<std::string> expected{schema_tmp, snap_tmp, tag_tmp};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(r.paths, expected);
  EXPECT_TRUE(fs::exists(stray));
  for (const char* p :
       {"/snapshot/snapshot-1", "/snapshot/LATEST", "/schema/schema-0", "/tag/tag-keep"}) {
    EXPECT_TRUE(fs::exists(root + p)) << p;
  }
  EXPECT_EQ(WriteFixture::Files(root).size(), before.size() - 3);
}

TEST(OrphanTest, RemovesEmptyPartitionAndBucketDirectories) {
  WriteFixture fx(DeOptions(), {"dt"});
  fx.Append(WriteFixture::Batch(0, 10, {"a"}));
  const std::string root = fx.table_path();
  std::string orphan = Touch(root + "/dt=z/bucket-0/data-orphan-0.parquet");
  Age(root);
  ASSERT_OK_AND_ASSIGN(auto dry, RemoveOrphanFiles(fx.table(), OrphanOptions{.dry_run = true}));
  EXPECT_EQ(dry.dirs_removed, 0);
  EXPECT_TRUE(fs::exists(root + "/dt=z/bucket-0"));
  ASSERT_OK_AND_ASSIGN(auto r, RemoveOrphanFiles(fx.table()));
  EXPECT_EQ(r.paths, std::vector<std::string>{orphan});
  EXPECT_EQ(r.dirs_removed, 2);
  EXPECT_FALSE(fs::exists(root + "/dt=z"));
  EXPECT_TRUE(fs::exists(root + "/dt=a/bucket-0"));
  EXPECT_EQ(fx.ReadAll({"id"})->num_rows(), 10);
}

TEST(OrphanTest, FilesOnlyATagOrAnOldSnapshotNamesAreUsed) {
  WriteFixture fx;
  for (int i = 0; i < 3; ++i) fx.Append(WriteFixture::Batch(i * 10, 10));
  ASSERT_OK(fx.table()->CreateTag("t1", 1, false));
  Age(fx.table_path());
  ASSERT_OK_AND_ASSIGN(auto r,
                       RemoveOrphanFiles(fx.table(), {.older_than_ms = NowMillis() + 1000}));
  EXPECT_EQ(r.files, 0);
  // Expired snapshots' lists go with them; after an expiration nothing is an orphan either.
  ASSERT_OK(
      ExpireSnapshots(fx.table(), {.retain_min = 1, .older_than_ms = NowMillis() + 1000}).status());
  ASSERT_OK_AND_ASSIGN(r, RemoveOrphanFiles(fx.table(), {.older_than_ms = NowMillis() + 1000}));
  EXPECT_EQ(r.files, 0) << (r.paths.empty() ? "" : r.paths[0]);
  EXPECT_EQ(fx.ReadAll({"id"})->num_rows(), 30);
}

}  // namespace
}  // namespace paimon_rowid
