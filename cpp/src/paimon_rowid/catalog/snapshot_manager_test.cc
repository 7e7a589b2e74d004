#include "paimon_rowid/catalog/snapshot_manager.h"

#include <gtest/gtest.h>

#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"

namespace paimon_rowid {
namespace {

class SnapshotManagerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(io_->MakeDirs(manager_.snapshot_dir())); }

  // Any bytes do: the manager only looks at names and hints.
  void Touch(int64_t id) { ASSERT_OK(io_->WriteFile(manager_.SnapshotPath(id), "{}")); }
  void Hint(const std::string& text) {
    ASSERT_OK(io_->WriteFile(manager_.HintPath(SnapshotManager::kLatestHint), text));
  }
  std::optional<int64_t> Latest() { return manager_.LatestSnapshotId().ValueOrDie(); }

  testing::TempDir dir_;
  std::shared_ptr<FileIO> io_ = FileIO::Local();
  SnapshotManager manager_{FileIO::Local(), dir_.path()};
};

TEST(SnapshotManagerParseTest, ParseHint) {
  EXPECT_EQ(SnapshotManager::ParseHint("7"), 7);
  EXPECT_EQ(SnapshotManager::ParseHint(" 12\n"), 12);
  EXPECT_EQ(SnapshotManager::ParseHint(""), std::nullopt);
  EXPECT_EQ(SnapshotManager::ParseHint("\n"), std::nullopt);
  EXPECT_EQ(SnapshotManager::ParseHint("0"), std::nullopt);
  EXPECT_EQ(SnapshotManager::ParseHint("-3"), std::nullopt);
  EXPECT_EQ(SnapshotManager::ParseHint("4x"), std::nullopt);
  EXPECT_EQ(SnapshotManager::ParseHint("99999999999999999999"), std::nullopt);
}

TEST_F(SnapshotManagerTest, Layout) {
  EXPECT_EQ(manager_.SnapshotPath(3), dir_.path() + "/snapshot/snapshot-3");
  EXPECT_EQ(manager_.HintPath(SnapshotManager::kEarliestHint), dir_.path() + "/snapshot/EARLIEST");
}

TEST_F(SnapshotManagerTest, EmptyTableHasNoLatest) { EXPECT_EQ(Latest(), std::nullopt); }

TEST_F(SnapshotManagerTest, ListingIgnoresOtherNames) {
  Touch(2);
  Touch(10);
  Touch(1);
  ASSERT_OK(io_->WriteFile(manager_.snapshot_dir() + "/snapshot-4.tmp", ""));
  ASSERT_OK(io_->WriteFile(manager_.snapshot_dir() + "/.snapshot-5", ""));
  EXPECT_EQ(manager_.ListSnapshotIds().ValueOrDie(), (std::vector<int64_t>{1, 2, 10}));
  EXPECT_EQ(Latest(), 10);
}

TEST_F(SnapshotManagerTest, HintIsTrustedOnlyWhenConsistent) {
  Touch(1);
  Touch(2);
  Touch(3);
  Hint("3");
  EXPECT_EQ(Latest(), 3);
  Hint("2");  // stale: snapshot-3 exists
  EXPECT_EQ(Latest(), 3);
  Hint("9");  // names a missing snapshot
  EXPECT_EQ(Latest(), 3);
  Hint("garbage");
  EXPECT_EQ(Latest(), 3);
  EXPECT_EQ(manager_.ReadHint(SnapshotManager::kLatestHint), std::nullopt);
  EXPECT_EQ(manager_.ReadHint(SnapshotManager::kEarliestHint), std::nullopt);  // missing
}

TEST_F(SnapshotManagerTest, AdvanceLatestHintNeverMovesBackwards) {
  manager_.AdvanceLatestHint(4);  // no hint yet
  EXPECT_EQ(manager_.ReadHint(SnapshotManager::kLatestHint), 4);
  manager_.AdvanceLatestHint(6);
  EXPECT_EQ(manager_.ReadHint(SnapshotManager::kLatestHint), 6);
  manager_.AdvanceLatestHint(5);  // a slow committer
  EXPECT_EQ(manager_.ReadHint(SnapshotManager::kLatestHint), 6);
  Hint("junk");
  manager_.AdvanceLatestHint(2);  // garbage is replaced
  EXPECT_EQ(manager_.ReadHint(SnapshotManager::kLatestHint), 2);
}

}  // namespace
}  // namespace paimon_rowid
