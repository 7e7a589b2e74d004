#include "paimon_rowid/maint/compact.h"

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "paimon_rowid/common/identifier.h"
#include "paimon_rowid/read/table_read.h"
#include "paimon_rowid/rowid/update_by_row_id.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/write/append_writer.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

using testing::NameUpdates;
using testing::WriteFixture;

std::unique_ptr<RowIdUpdate> PlanUpdate(WriteFixture& fx, const std::vector<int64_t>& ids,
                                        const std::string& prefix) {
  auto update = RowIdUpdate::Make(fx.table(), {"name"}, "db.t").ValueOrDie();
  EXPECT_OK(update->Add(NameUpdates(ids, prefix)));
  return update;
}

void Update(WriteFixture& fx, const std::vector<int64_t>& ids, const std::string& prefix) {
  auto update = PlanUpdate(fx, ids, prefix);
  ASSERT_OK(CommitUpdate(update.get(), fx.table(), RandomUuid()).status());
}

// Live normal files per group of the latest snapshot.
std::vector<size_t> NormalFilesPerGroup(const WriteFixture& fx) {
  auto plan = ScanPlanner(fx.table()).Plan().ValueOrDie();
  std::vector<size_t> out;
  for (const auto& split : plan.splits) {
    for (const auto& group : split.groups) {
      size_t n = 0;
      for (const auto& f : group) n += f.is_normal_file() ? 1 : 0;
      out.push_back(n);
    }
  }
  return out;
}

const std::vector<std::string> kAllFields = {"id", "name", "dt", "_ROW_ID", "_SEQUENCE_NUMBER"};

TEST(CompactTest, RewritesEachGroupIntoOneFileKeepingRowIdsAndValues) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  fx.Append(WriteFixture::Batch(10, 5));
  for (int i = 0; i < 6; ++i) Update(fx, {1, 3, 12}, "u" + std::to_string(i) + "-");
  Update(fx, {7}, "only-group-0-");  // group 0 has 8 normal files, group 1 has 7
  auto before = fx.ReadAll(kAllFields);
  EXPECT_EQ(NormalFilesPerGroup(fx), (std::vector<size_t>{8, 7}));

  auto result = Compact(fx.table(), {}).ValueOrDie();
  ASSERT_TRUE(result.snapshot_id.has_value());
  EXPECT_EQ(result.groups_total, 2);
  EXPECT_EQ(result.groups_compacted, 2);
  EXPECT_EQ(result.files_removed, 15);
  EXPECT_EQ(result.files_written, 2);
  EXPECT_EQ(result.rows_rewritten, 15);

  auto after = fx.ReadAll(kAllFields);
  EXPECT_TRUE(after->Equals(*before)) << before->ToString() << "\n" << after->ToString();
  EXPECT_EQ(NormalFilesPerGroup(fx), (std::vector<size_t>{1, 1}));

  auto snap = fx.table()->LatestSnapshot().ValueOrDie();
  EXPECT_EQ(snap->commit_kind, "COMPACT");
  EXPECT_EQ(snap->next_row_id, 15);
  EXPECT_EQ(snap->total_record_count, 15);
  auto plan = ScanPlanner(fx.table()).Plan().ValueOrDie();
  const DataFileMeta& first = plan.splits[0].groups[0][0];
  EXPECT_EQ(first.file_source, static_cast<int32_t>(FileSource::kCompact));
  EXPECT_EQ(first.first_row_id, 0);
  EXPECT_EQ(first.row_count, 10);
  EXPECT_EQ(first.min_sequence_number, 1);
  EXPECT_EQ(first.max_sequence_number, 9);
  EXPECT_FALSE(first.write_cols.has_value());

  // Nothing left to do: no snapshot.
  auto again = Compact(fx.table(), {}).ValueOrDie();
  EXPECT_FALSE(again.snapshot_id.has_value());
  EXPECT_EQ(again.groups_compacted, 0);
}

TEST(CompactTest, ThresholdAndFull) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  Update(fx, {2}, "x");
  EXPECT_FALSE(Compact(fx.table(), {}).ValueOrDie().snapshot_id.has_value());
  CompactOptions two;
  two.min_file_num = 2;
  EXPECT_TRUE(Compact(fx.table(), two).ValueOrDie().snapshot_id.has_value());
  Update(fx, {3}, "y");
  CompactOptions full;
  full.full = true;
  EXPECT_TRUE(Compact(fx.table(), full).ValueOrDie().snapshot_id.has_value());
  EXPECT_EQ(NormalFilesPerGroup(fx), (std::vector<size_t>{1}));

  CompactOptions bad;
  bad.min_file_num = 1;
  EXPECT_TRUE(Compact(fx.table(), bad).status().IsInvalid());
}

TEST(CompactTest, CountsGroupsAndStopsCleanlyWhenCancelled) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  fx.Append(WriteFixture::Batch(10, 5));
  Update(fx, {1, 12}, "x");
  const int64_t snapshot_before = fx.table()->LatestSnapshot().ValueOrDie()->id;
  auto files_before = WriteFixture::Files(fx.table_path());

  ProgressCounter cancelled;
  cancelled.Cancel();
  CompactOptions full;
  full.full = true;
  full.progress = &cancelled;
  auto stopped = Compact(fx.table(), full);
  ASSERT_TRUE(stopped.status().IsCancelled()) << stopped.status().ToString();
  EXPECT_EQ(cancelled.total(), 2);
  EXPECT_EQ(cancelled.done(), 0);
  EXPECT_EQ(fx.table()->LatestSnapshot().ValueOrDie()->id, snapshot_before);
  EXPECT_EQ(WriteFixture::Files(fx.table_path()), files_before);  // nothing left behind

  ProgressCounter counter;
  full.progress = &counter;
  auto result = Compact(fx.table(), full).ValueOrDie();
  EXPECT_EQ(result.groups_compacted, 2);
  EXPECT_EQ(counter.total(), 2);
  EXPECT_EQ(counter.done(), 2);
}

TEST(CompactTest, RefusesTablesWithoutDataEvolution) {
  WriteFixture fx(std::map<std::string, std::string>{{"row-tracking.enabled", "true"}});
  fx.Append(WriteFixture::Batch(0, 3));
  auto st = Compact(fx.table(), {}).status();
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_NE(st.message().find("data-evolution.enabled"), std::string::npos);
}

TEST(CompactTest, RefusesBlobCompaction) {
  WriteFixture fx(testing::DeOptions({{"blob-compaction.enabled", "true"}}));
  fx.Append(WriteFixture::Batch(0, 3));
  auto st = Compact(fx.table(), {}).status();
  EXPECT_TRUE(st.IsNotImplemented()) << st.ToString();
  EXPECT_EQ(fx.table()->LatestSnapshot().ValueOrDie()->id, 1);
}

TEST(CompactTest, PartitionedTableKeepsPartitionValues) {
  WriteFixture fx(testing::DeOptions(), {"dt"});
  fx.Append(WriteFixture::Batch(0, 12, {"a", "b", "c"}));
  for (int i = 0; i < 3; ++i) Update(fx, {0, 1, 5, 9}, "p" + std::to_string(i));
  auto before = fx.ReadAll(kAllFields);
  CompactOptions full;
  full.full = true;
  auto result = Compact(fx.table(), full).ValueOrDie();
  EXPECT_EQ(result.groups_compacted, 3);
  auto after = fx.ReadAll(kAllFields);
  EXPECT_TRUE(after->Equals(*before)) << before->ToString() << "\n" << after->ToString();
}

// An update planned before a compaction commits after it: it lands, on the compacted file.
TEST(CompactTest, UpdatePlannedBeforeCompactionLandsAfterIt) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  for (int i = 0; i < 5; ++i) Update(fx, {1}, "v" + std::to_string(i));
  auto pending = PlanUpdate(fx, {4, 5}, "late-");
  CompactOptions full;
  full.full = true;
  ASSERT_TRUE(Compact(fx.table(), full).ValueOrDie().snapshot_id.has_value());
  auto outcome = CommitUpdate(pending.get(), fx.table(), RandomUuid()).ValueOrDie();
  EXPECT_TRUE(outcome.snapshot_id.has_value());
  auto rows = fx.ReadAll({"_ROW_ID", "name"});
  auto names =
      std::static_pointer_cast<arrow::StringArray>(rows->GetColumnByName("name")->chunk(0));
  EXPECT_EQ(names->GetString(1), "v41");
  EXPECT_EQ(names->GetString(4), "late-4");
  EXPECT_EQ(names->GetString(5), "late-5");
  EXPECT_EQ(names->GetString(6), "name-6");
}

// An update committed between a compaction's plan and its commit is not lost.
TEST(CompactTest, UpdateCommittedWhileCompactingIsKept) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  for (int i = 0; i < 5; ++i) Update(fx, {1}, "v" + std::to_string(i));
  CompactOptions full;
  full.full = true;
  auto plan = PlanCompaction(fx.table(), full).ValueOrDie();
  ASSERT_EQ(plan.groups.size(), 1u);
  auto msg = CompactGroup(fx.table(), plan.groups[0]).ValueOrDie();
  Update(fx, {2, 3}, "mid-");
  auto committed = CommitCompaction(fx.table(), {msg}, RandomUuid()).ValueOrDie();
  ASSERT_TRUE(committed.has_value());
  auto rows = fx.ReadAll({"_ROW_ID", "name"});
  auto names =
      std::static_pointer_cast<arrow::StringArray>(rows->GetColumnByName("name")->chunk(0));
  EXPECT_EQ(names->GetString(1), "v41");
  EXPECT_EQ(names->GetString(2), "mid-2");
  EXPECT_EQ(names->GetString(3), "mid-3");
  EXPECT_EQ(NormalFilesPerGroup(fx), (std::vector<size_t>{2}));
}

// Two compactions of the same group: the second loses, cleanly, and leaves no file.
TEST(CompactTest, LosingCompactionFailsCleanly) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  for (int i = 0; i < 2; ++i) Update(fx, {1}, "v" + std::to_string(i));
  CompactOptions full;
  full.full = true;
  auto plan = PlanCompaction(fx.table(), full).ValueOrDie();
  auto first = CompactGroup(fx.table(), plan.groups[0]).ValueOrDie();
  auto second = CompactGroup(fx.table(), plan.groups[0]).ValueOrDie();
  ASSERT_TRUE(CommitCompaction(fx.table(), {first}, RandomUuid()).ValueOrDie().has_value());
  auto files_before = WriteFixture::Files(fx.table_path());
  auto lost = CommitCompaction(fx.table(), {second}, RandomUuid());
  ASSERT_FALSE(lost.ok());
  const ErrorKind* kind = GetErrorKind(lost.status());
  ASSERT_NE(kind, nullptr);
  EXPECT_EQ(*kind, ErrorKind::kCommitConflict);
  EXPECT_NE(lost.status().message().find("no longer live"), std::string::npos);
  auto files_after = WriteFixture::Files(fx.table_path());
  EXPECT_EQ(files_after.size() + 1, files_before.size());  // the loser's file is gone
  EXPECT_EQ(fx.table()->LatestSnapshot().ValueOrDie()->id, 4);
}

// One file for all groups of the only split (as Java 1.4.2's compaction merges adjacent
// groups), as a COMPACT message deleting every normal input.
CommitMessage MergeAllGroups(WriteFixture& fx) {
  auto plan = ScanPlanner(fx.table()).Plan().ValueOrDie();
  EXPECT_EQ(plan.splits.size(), 1u);
  const DataSplit& split = plan.splits[0];
  auto writer = AppendWriter::MakeForCompaction(fx.table(), split.partition, split.bucket_dir, 0)
                    .ValueOrDie();
  ReadOptions read_options;
  for (const auto& f : writer->write_schema()->fields()) read_options.fields.push_back(f->name());
  auto read = TableRead::Make(fx.table(), read_options).ValueOrDie();
  int64_t max_seq = 0;
  for (const auto& group : split.groups) {
    EXPECT_OK(writer->Write(read->ReadGroup(split, group).ValueOrDie()));
    for (const auto& f : group) max_seq = std::max(max_seq, f.max_sequence_number);
  }
  auto msg = writer->PrepareCommit().ValueOrDie().at(0);
  msg.new_files[0].file_source = static_cast<int32_t>(FileSource::kCompact);
  msg.new_files[0].min_sequence_number = 1;
  msg.new_files[0].max_sequence_number = max_seq;
  for (const auto& group : split.groups) {
    for (const auto& f : group) msg.deleted_files.push_back(f);
  }
  return msg;
}

// A compaction that merges groups moves group boundaries under an update planned before it:
// the update's commit loses the row-id existence check and is rebased onto the merged group.
TEST(CompactTest, UpdateRebasesOverAGroupMergingCompaction) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  fx.Append(WriteFixture::Batch(10, 5));
  Update(fx, {3}, "before-");
  auto pending = PlanUpdate(fx, {1, 12}, "late-");
  ASSERT_TRUE(
      CommitCompaction(fx.table(), {MergeAllGroups(fx)}, RandomUuid()).ValueOrDie().has_value());
  EXPECT_EQ(NormalFilesPerGroup(fx), (std::vector<size_t>{1}));

  auto outcome = CommitUpdate(pending.get(), fx.table(), RandomUuid()).ValueOrDie();
  EXPECT_EQ(outcome.rebases, 1);
  auto rows = fx.ReadAll({"_ROW_ID", "name"});
  auto names =
      std::static_pointer_cast<arrow::StringArray>(rows->GetColumnByName("name")->chunk(0));
  EXPECT_EQ(names->GetString(1), "late-1");
  EXPECT_EQ(names->GetString(3), "before-3");
  EXPECT_EQ(names->GetString(12), "late-12");
  EXPECT_EQ(names->GetString(13), "name-13");
}

// The reverse: an update lands while a group-merging compaction runs. Committing the merge
// would leave overlapping normal files of different ranges (unreadable), so it is refused
// and the table still reads the update.
TEST(CompactTest, GroupMergingCompactionLosesToAnUpdate) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  fx.Append(WriteFixture::Batch(10, 5));
  auto merge = MergeAllGroups(fx);
  Update(fx, {2}, "mid-");
  auto lost = CommitCompaction(fx.table(), {merge}, RandomUuid());
  ASSERT_FALSE(lost.ok());
  EXPECT_NE(lost.status().message().find("would overlap"), std::string::npos);
  auto rows = fx.ReadAll({"_ROW_ID", "name"});
  auto names =
      std::static_pointer_cast<arrow::StringArray>(rows->GetColumnByName("name")->chunk(0));
  EXPECT_EQ(names->GetString(2), "mid-2");
  EXPECT_EQ(fx.table()->LatestSnapshot().ValueOrDie()->commit_kind, "APPEND");
}

TEST(CompactTest, CompactionMessagesSerialize) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  Update(fx, {1}, "v");
  CompactOptions full;
  full.full = true;
  auto plan = PlanCompaction(fx.table(), full).ValueOrDie();
  auto msg = CompactGroup(fx.table(), plan.groups[0]).ValueOrDie();
  auto copy = CommitMessage::Deserialize(msg.Serialize().ValueOrDie()).ValueOrDie();
  EXPECT_EQ(copy.new_files, msg.new_files);
  EXPECT_EQ(copy.deleted_files, msg.deleted_files);
  ASSERT_EQ(copy.deleted_files.size(), 2u);
}

}  // namespace
}  // namespace paimon_rowid
