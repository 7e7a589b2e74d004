#include "paimon_rowid/fs/file_io.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "arrow/io/file.h"
#include "paimon_rowid/fs/local_file_io.h"
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

// Every file the engine creates as new (data, .blob, manifests, manifest lists, deletion
// vectors, spills) is refused, naming it, when the name is taken; the file there is kept.
TEST(FileIOTest, NewFilesNeverReplaceAnExistingOne) {
  testing::TempDir dir;
  auto io = FileIO::Local();
  const std::string data = JoinPath(dir.path(), "bucket-0/data-1.parquet");
  ASSERT_OK_AND_ASSIGN(auto out, io->OpenOutput(data));
  ASSERT_OK(out->Write("committed", 9));
  ASSERT_OK(out->Close());
  auto again = io->OpenOutput(data);
  EXPECT_RAISES(AlreadyExists, again);
  EXPECT_NE(again.status().message().find(data), std::string::npos);
  const std::string manifest = JoinPath(dir.path(), "manifest/manifest-1-0");
  ASSERT_OK(io->WriteFileUnsynced(manifest, "first"));
  EXPECT_RAISES(AlreadyExists, io->WriteFileUnsynced(manifest, "second"));
  const std::string index = JoinPath(dir.path(), "index/index-1-1");
  ASSERT_OK(io->WriteNewFile(index, "first"));
  EXPECT_RAISES(AlreadyExists, io->WriteNewFile(index, "second"));
  EXPECT_EQ(*io->ReadText(data), "committed");
  EXPECT_EQ(*io->ReadText(manifest), "first");
  EXPECT_EQ(*io->ReadText(index), "first");
  // A name one job owns (a retried task's) is replaced on purpose.
  ASSERT_OK_AND_ASSIGN(auto retried, io->OpenOutputReplacing(data));
  ASSERT_OK(retried->Write("retry", 5));
  ASSERT_OK(retried->Close());
  EXPECT_EQ(*io->ReadText(data), "retry");
}

TEST(FileIOTest, ListGivesModificationTimesAndDeleteEmptyDirKeepsFiles) {
  testing::TempDir dir;
  auto io = FileIO::Local();
  std::string path = JoinPath(dir.path(), "d/f");
  ASSERT_OK(io->WriteFile(path, "x"));
  auto old = std::filesystem::file_time_type::clock::now() - std::chrono::hours(48);
  std::filesystem::last_write_time(path, old);
  ASSERT_OK_AND_ASSIGN(auto entries, io->List(JoinPath(dir.path(), "d")));
  ASSERT_EQ(entries.size(), 1u);
  auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  EXPECT_NEAR(static_cast<double>(now_ms - entries[0].mtime_millis), 48.0 * 3600 * 1000, 60'000);
  EXPECT_FALSE(*io->DeleteEmptyDir(JoinPath(dir.path(), "d")));  // holds a file
  EXPECT_TRUE(io->Exists(path).ValueOrDie());
  ASSERT_OK(io->DeleteFile(path));
  EXPECT_TRUE(*io->DeleteEmptyDir(JoinPath(dir.path(), "d")));
  EXPECT_FALSE(*io->DeleteEmptyDir(JoinPath(dir.path(), "d")));  // gone
}

TEST(FileIOTest, DataFilesOnALocalDiskAreReadThroughOneMapping) {
  testing::TempDir dir;
  auto io = FileIO::Local();
  const std::string path = JoinPath(dir.path(), "bucket-0/data-0.parquet");
  std::string bytes(1 << 20, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 + i / 4096);
  ASSERT_OK(io->WriteFile(path, bytes));
  for (const std::string& uri : {path, "file://" + path}) {
    ASSERT_OK_AND_ASSIGN(auto file, io->OpenInputMapped(uri, static_cast<int64_t>(bytes.size())));
    EXPECT_NE(dynamic_cast<arrow::io::MemoryMappedFile*>(file.get()), nullptr) << uri;
    ASSERT_OK_AND_ASSIGN(auto a, file->ReadAt(123'456, 100'000));
    ASSERT_OK_AND_ASSIGN(auto b, file->ReadAt(123'456 + 4'000, 10));
    EXPECT_EQ(a->ToString(), bytes.substr(123'456, 100'000));
    // Slices of the one mapping: no copy, no buffer of its own.
    EXPECT_EQ(b->data(), a->data() + 4'000);
    ASSERT_OK_AND_ASSIGN(auto tail, file->ReadAt(bytes.size() - 10, 100));
    EXPECT_EQ(tail->ToString(), bytes.substr(bytes.size() - 10));  // short at the end
  }
  // A file below LocalFileIO::kMinMappedFileBytes is read with pread: its mapping would cost
  // more than the copy it spares. An unknown size (0) maps.
  const std::string small_path = JoinPath(dir.path(), "bucket-0/data-1.parquet");
  const std::string small(LocalFileIO::kMinMappedFileBytes - 1, 'y');
  ASSERT_OK(io->WriteFile(small_path, small));
  ASSERT_OK_AND_ASSIGN(auto small_file,
                       io->OpenInputMapped(small_path, static_cast<int64_t>(small.size())));
  EXPECT_EQ(dynamic_cast<arrow::io::MemoryMappedFile*>(small_file.get()), nullptr);
  ASSERT_OK_AND_ASSIGN(auto small_tail, small_file->ReadAt(small.size() - 3, 10));
  EXPECT_EQ(small_tail->ToString(), "yyy");
  ASSERT_OK_AND_ASSIGN(auto unknown_size, io->OpenInputMapped(small_path, 0));
  EXPECT_NE(dynamic_cast<arrow::io::MemoryMappedFile*>(unknown_size.get()), nullptr);
  // A filesystem whose pages are not this machine's (here procfs) is read with pread: a
  // mapped page it failed to supply would kill the process (SIGBUS) instead of failing a read.
  ASSERT_OK_AND_ASSIGN(auto proc, io->OpenInputMapped("/proc/self/status", -1));
  EXPECT_EQ(dynamic_cast<arrow::io::MemoryMappedFile*>(proc.get()), nullptr);
  ASSERT_OK_AND_ASSIGN(auto status, proc->ReadAt(0, 5));
  EXPECT_EQ(status->ToString(), "Name:");
  EXPECT_RAISES(IOError, io->OpenInputMapped(JoinPath(dir.path(), "missing"), 10).status());
  // PAIMON_ROWID_MMAP=0: pread everywhere.
  ::setenv("PAIMON_ROWID_MMAP", "0", 1);
  auto unmapped = io->OpenInputMapped(path, static_cast<int64_t>(bytes.size()));
  ::unsetenv("PAIMON_ROWID_MMAP");
  ASSERT_OK(unmapped);
  EXPECT_EQ(dynamic_cast<arrow::io::MemoryMappedFile*>(unmapped->get()), nullptr);
  ASSERT_OK_AND_ASSIGN(auto head, (*unmapped)->ReadAt(0, 64));
  EXPECT_EQ(head->ToString(), bytes.substr(0, 64));
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

TEST(FileIOTest, UnsyncedWritesSyncAndHintsLeaveOnlyTheirFiles) {
  testing::TempDir dir;
  auto io = FileIO::Local();
  const std::string a = JoinPath(dir.path(), "manifest/manifest-a-0");
  const std::string b = JoinPath(dir.path(), "manifest/manifest-list-b-0");
  ASSERT_OK(io->WriteFileUnsynced(a, "first"));
  ASSERT_OK(io->WriteFileUnsynced(b, std::string(1 << 20, 'x')));
  EXPECT_RAISES(AlreadyExists, io->WriteFileUnsynced(a, "again"));  // never a rewrite
  ASSERT_OK(io->Sync({a, b}));
  EXPECT_EQ(*io->ReadText(a), "first");
  EXPECT_EQ(*io->FileSize(b), 1 << 20);
  ASSERT_OK_AND_ASSIGN(auto entries, io->List(JoinPath(dir.path(), "manifest")));
  EXPECT_EQ(entries.size(), 2u);  // no temp files
  // A file that is not there cannot be made durable: the commit must not go on.
  EXPECT_RAISES(IOError, io->Sync({a, JoinPath(dir.path(), "manifest/missing")}));
  EXPECT_OK(io->Sync({}));

  const std::string hint = JoinPath(dir.path(), "snapshot/LATEST");
  ASSERT_OK(io->WriteHint(hint, "7"));
  ASSERT_OK(io->WriteHint(hint, "8"));
  EXPECT_EQ(*io->ReadText(hint), "8");
  ASSERT_OK_AND_ASSIGN(entries, io->List(JoinPath(dir.path(), "snapshot")));
  EXPECT_EQ(entries.size(), 1u);
}

}  // namespace paimon_rowid
