#include <gtest/gtest.h>

#include <filesystem>

#include "paimon_rowid/fs/file_io.h"
#include "paimon_rowid/testing/temp_dir.h"

namespace paimon_rowid {

TEST(FileIOTest, NoReplaceNeverOverwrites) {
  testing::TempDir dir;
  auto io = FileIO::Local();
  std::string path = JoinPath(dir.path(), "snapshot/snapshot-1");
  ASSERT_TRUE(io->WriteFileNoReplace(path, "first").ok());
  Status st = io->WriteFileNoReplace(path, "second");
  EXPECT_TRUE(st.IsAlreadyExists()) << st.ToString();
  EXPECT_EQ(*io->ReadText(path), "first");
  // No temp files are left behind.
  auto entries = io->List(JoinPath(dir.path(), "snapshot"));
  ASSERT_TRUE(entries.ok());
  EXPECT_EQ(entries->size(), 1u);
}

TEST(FileIOTest, WriteListDelete) {
  testing::TempDir dir;
  auto io = FileIO::Local();
  std::string path = JoinPath(dir.path(), "a/b/LATEST");
  ASSERT_TRUE(io->WriteFile(path, "1").ok());
  ASSERT_TRUE(io->WriteFile(path, "2").ok());
  EXPECT_EQ(*io->ReadText(path), "2");
  EXPECT_TRUE(*io->Exists(path));
  EXPECT_EQ(*io->FileSize(path), 1);
  ASSERT_TRUE(io->DeleteFile(path).ok());
  EXPECT_FALSE(*io->Exists(path));
  EXPECT_TRUE(io->DeleteFile(path).ok());
  EXPECT_TRUE(io->List(JoinPath(dir.path(), "missing"))->empty());
}

}  // namespace paimon_rowid
