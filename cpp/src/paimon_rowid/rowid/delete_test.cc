// Deletes through deletion vectors: the messages, the commit (OVERWRITE, index manifest),
// the read paths that hide deleted rows, and the conflicts of stale deletes.
#include <gtest/gtest.h>

#include "arrow/api.h"
#include "paimon_rowid/commit/committer.h"
#include "paimon_rowid/rowid/delete_by_row_id.h"
#include "paimon_rowid/rowid/read_by_row_id.h"
#include "paimon_rowid/rowid/update_by_row_id.h"
#include "paimon_rowid/scan/deletion_files.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

using testing::WriteFixture;

bool HasKind(const Status& st, ErrorKind kind) {
  const ErrorKind* k = GetErrorKind(st);
  return k != nullptr && *k == kind;
}

std::map<std::string, std::string> DvOptions() {
  auto options = testing::DeOptions();
  options["deletion-vectors.enabled"] = "true";
  return options;
}

std::optional<int64_t> Commit(const WriteFixture& fx, const std::vector<CommitMessage>& messages) {
  auto committer = Committer::Make(fx.table()).ValueOrDie();
  return committer->Commit(messages).ValueOrDie();
}

TEST(DeleteByRowIdTest, HidesRowsFromEveryReadAndMergesVectors) {
  WriteFixture fx(DvOptions());
  fx.Append(WriteFixture::Batch(0, 10));
  fx.Append(WriteFixture::Batch(10, 10));
  auto messages = DeleteByRowId(fx.table(), {3, 15, 3, 0}).ValueOrDie();
  ASSERT_EQ(messages.size(), 1u);  // one (partition, bucket)
  ASSERT_EQ(messages[0].new_index_files.size(), 1u);
  EXPECT_EQ(messages[0].new_index_files[0].row_count, 2);  // two anchors hold vectors
  EXPECT_EQ(Commit(fx, messages), 3);
  auto snap = fx.table()->LatestSnapshot().ValueOrDie();
  EXPECT_EQ(snap->commit_kind, "OVERWRITE");
  EXPECT_EQ(snap->delta_record_count, 0);
  EXPECT_EQ(snap->total_record_count, 20);
  EXPECT_EQ(WriteFixture::Int64s(fx.ReadAll({"id", "_ROW_ID"}), "_ROW_ID").size(), 17u);

  // A second delete merges with the first: one index file, the old one replaced.
  auto more = DeleteByRowId(fx.table(), {4, 15}).ValueOrDie();
  ASSERT_EQ(more.size(), 1u);
  ASSERT_EQ(more[0].deleted_index_files.size(), 1u);
  EXPECT_EQ(Commit(fx, more), 4);
  auto live =
      ReadLiveIndexEntries(*fx.table(), *fx.table()->LatestSnapshot().ValueOrDie()).ValueOrDie();
  ASSERT_EQ(live.size(), 1u);
  auto ids = WriteFixture::Int64s(fx.ReadAll({"name", "_ROW_ID"}), "_ROW_ID");
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 20; ++i) {
    if (i != 0 && i != 3 && i != 4 && i != 15) expected.push_back(i);
  }
  EXPECT_EQ(ids, expected);

  // Already deleted ids change nothing; read_by_row_id skips deleted ids.
  EXPECT_TRUE(DeleteByRowId(fx.table(), {3, 4}).ValueOrDie().empty());
  auto index =
      RowIdIndex::Build(fx.table(), *fx.table()->LatestSnapshot().ValueOrDie()).ValueOrDie();
  auto read = RowIdRead::Make(fx.table(), {"name"}, index).ValueOrDie();
  arrow::Int64Builder b;
  ASSERT_OK(b.AppendValues({2, 3, 15, 16}));
  auto got = read->Read({b.Finish().ValueOrDie()}).ValueOrDie()->ToTable().ValueOrDie();
  EXPECT_EQ(WriteFixture::Int64s(got, "_ROW_ID"), (std::vector<int64_t>{2, 16}));
}

TEST(DeleteByRowIdTest, ValidatesTheTableAndTheIds) {
  WriteFixture plain;
  EXPECT_EQ(DeleteByRowId(plain.table(), {}).status().message(),
            "delete requires 'deletion-vectors.enabled' = 'true'.");
  WriteFixture fx(DvOptions());
  EXPECT_EQ(DeleteByRowId(fx.table(), {1}).status().message(),
            "Row ID 1 does not belong to any valid range []");
  fx.Append(WriteFixture::Batch(0, 5));
  fx.Append(WriteFixture::Batch(5, 3));
  auto before = WriteFixture::Files(fx.table_path());
  EXPECT_EQ(DeleteByRowId(fx.table(), {2, 8}).status().message(),
            "Row ID 8 does not belong to any valid range ['[0, 4]', '[5, 7]']");
  EXPECT_EQ(WriteFixture::Files(fx.table_path()), before);
}

TEST(DeleteByRowIdTest, StaleDeletesConflictAndLeaveNothing) {
  WriteFixture fx(DvOptions());
  fx.Append(WriteFixture::Batch(0, 10));
  // Both planned on snapshot 1, same anchor: the second finds a newer vector.
  auto first = DeleteByRowId(fx.table(), {1}).ValueOrDie();
  auto second = DeleteByRowId(fx.table(), {2}).ValueOrDie();
  EXPECT_EQ(Commit(fx, first), 2);
  // (second's index file was written when it was planned; a failed commit deletes it)
  const std::string staged = IndexEntryPath(*fx.table(), second[0].new_index_files[0]);
  auto before = WriteFixture::Files(fx.table_path());
  std::erase_if(before, [&](const std::string& f) { return staged.find(f) != std::string::npos; });
  auto committer = Committer::Make(fx.table()).ValueOrDie();
  auto st = committer->Commit(second).status();
  ASSERT_TRUE(HasKind(st, ErrorKind::kCommitConflict)) << st.ToString();
  EXPECT_NE(st.message().find("already has a newer deletion vector index file"), std::string::npos);
  EXPECT_EQ(WriteFixture::Files(fx.table_path()), before);  // its index file was removed
  EXPECT_EQ(fx.table()->LatestSnapshot().ValueOrDie()->id, 2);
  // Planned again, it commits; then a delete planned before that one conflicts on the
  // replaced index file.
  auto stale = DeleteByRowId(fx.table(), {5}).ValueOrDie();
  EXPECT_EQ(Commit(fx, DeleteByRowId(fx.table(), {2}).ValueOrDie()), 3);
  st = Committer::Make(fx.table()).ValueOrDie()->Commit(stale).status();
  ASSERT_TRUE(HasKind(st, ErrorKind::kCommitConflict)) << st.ToString();
  EXPECT_NE(st.message().find("is not present in the latest snapshot"), std::string::npos);
}

TEST(DeleteByRowIdTest, UpdatesKeepDeletedRowsDeletedOrRefuseThem) {
  WriteFixture fx(DvOptions());
  fx.Append(WriteFixture::Batch(0, 10));
  EXPECT_EQ(Commit(fx, DeleteByRowId(fx.table(), {4}).ValueOrDie()), 2);
  RowIdUpdateOptions refuse;
  refuse.reject_deleted_rows = true;
  auto update = RowIdUpdate::Make(fx.table(), {"name"}, "db.t", refuse).ValueOrDie();
  ASSERT_OK(update->Add(testing::NameUpdates({3, 4}, "new-")));
  auto st = update->Finish().status();
  EXPECT_EQ(st.message(), "Cannot update deleted _ROW_ID 4.");
  // The table-level update writes the whole group; the row stays deleted.
  auto writes = RowIdUpdate::Make(fx.table(), {"name"}, "db.t").ValueOrDie();
  ASSERT_OK(writes->Add(testing::NameUpdates({3, 4}, "new-")));
  EXPECT_EQ(Commit(fx, writes->Finish().ValueOrDie()), 3);
  auto ids = WriteFixture::Int64s(fx.ReadAll({"name", "_ROW_ID"}), "_ROW_ID");
  EXPECT_EQ(ids.size(), 9u);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 4), 0);
}

}  // namespace
}  // namespace paimon_rowid
