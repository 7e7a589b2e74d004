#include "paimon_rowid/fs/file_io.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"

namespace paimon_rowid {

TEST(FileIOTest, NoReplaceNeverOverwrites) {
  testing::TempDir dir;
  auto io = FileIO::Local();
  std::string path = JoinPath(dir.path(), "snapshot/snapshot-1");
  ASSERT_OK(io->WriteFileNoReplace(path, "first"));
  Status st = io->WriteFileNoReplace(path, "second");
  EXPECT_RAISES(AlreadyExists, st);
  EXPECT_EQ(*io->ReadText(path), "first");
  // No temp files are left behind.
  auto entries = io->List(JoinPath(dir.path(), "snapshot"));
  ASSERT_OK(entries);
  EXPECT_EQ(entries->size(), 1u);
}

TEST(FileIOTest, WriteListDelete) {
  testing::TempDir dir;
  auto io = FileIO::Local();
  std::string path = JoinPath(dir.path(), "a/b/LATEST");
  ASSERT_OK(io->WriteFile(path, "1"));
  ASSERT_OK(io->WriteFile(path, "2"));
  EXPECT_EQ(*io->ReadText(path), "2");
  EXPECT_TRUE(*io->Exists(path));
  EXPECT_EQ(*io->FileSize(path), 1);
  ASSERT_OK(io->DeleteFile(path));
  EXPECT_FALSE(*io->Exists(path));
  EXPECT_OK(io->DeleteFile(path));
  EXPECT_TRUE(io->List(JoinPath(dir.path(), "missing"))->empty());
}

}  // namespace paimon_rowid
