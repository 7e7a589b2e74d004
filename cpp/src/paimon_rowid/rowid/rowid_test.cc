#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "arrow/api.h"
#include "paimon_rowid/codec/envelope.h"
#include "paimon_rowid/rowid/read_by_row_id.h"
#include "paimon_rowid/rowid/row_id_index.h"
#include "paimon_rowid/rowid/update_by_row_id.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/write/append_writer.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

using testing::NameUpdates;
using testing::WriteFixture;

std::vector<std::string> Names(const std::shared_ptr<arrow::Table>& t) {
  std::vector<std::string> out;
  for (const auto& chunk : t->GetColumnByName("name")->chunks()) {
    auto arr = std::static_pointer_cast<arrow::StringArray>(chunk);
    for (int64_t i = 0; i < arr->length(); ++i) out.push_back(arr->GetString(i));
  }
  return out;
}

std::unique_ptr<RowIdUpdate> MakeUpdate(WriteFixture& fx, const std::vector<int64_t>& ids,
                                        const std::string& prefix) {
  auto update = RowIdUpdate::Make(fx.table(), {"name"}, "db.t").ValueOrDie();
  EXPECT_OK(update->Add(NameUpdates(ids, prefix)));
  return update;
}

TEST(RowIdIndexTest, RoutesAndRejects) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  fx.Append(WriteFixture::Batch(10, 5));
  auto snap = fx.table()->LatestSnapshot().ValueOrDie();
  auto index = RowIdIndex::Build(fx.table(), *snap).ValueOrDie();
  ASSERT_EQ(index->groups().size(), 2u);
  EXPECT_EQ(index->ValidRangesString(), "['[0, 14]']");
  arrow::Int64Builder b;
  ASSERT_OK(b.AppendValues({14, 0, 9, 10}));
  auto ids = std::static_pointer_cast<arrow::Int64Array>(b.Finish().ValueOrDie());
  auto owners = index->Route(*ids, "ctx").ValueOrDie();
  EXPECT_EQ(owners, (std::vector<int32_t>{1, 0, 0, 1}));
  arrow::Int64Builder bad;
  ASSERT_OK(bad.AppendValues({3, 15}));
  auto bad_ids = std::static_pointer_cast<arrow::Int64Array>(bad.Finish().ValueOrDie());
  auto st = index->Route(*bad_ids, "ctx").status();
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_NE(st.message().find("_ROW_ID 15 does not belong to any valid range"), std::string::npos);
  // Serialization round trip.
  auto copy = RowIdIndex::Deserialize(index->Serialize().ValueOrDie()).ValueOrDie();
  EXPECT_EQ(copy->groups().size(), 2u);
  EXPECT_EQ(copy->valid_ranges(), index->valid_ranges());
}

// Sizes near 2^64 wrapped the bounds check around (seen while writing fuzz_row_id_index).
TEST(RowIdIndexTest, DeserializeRejectsHugeGroupSizes) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  auto snap = fx.table()->LatestSnapshot().ValueOrDie();
  auto bytes = RowIdIndex::Build(fx.table(), *snap).ValueOrDie()->Serialize().ValueOrDie();
  // The envelope RowIdIndex::Serialize seals indexes in (rowid/row_id_index.cc).
  constexpr EnvelopeKind kIndexKind{{'P', 'R', 'I', 'X'}, 1, "row-id index"};
  auto parts = OpenEnvelope(kIndexKind, bytes).ValueOrDie();
  auto header = nlohmann::json::parse(parts.header);
  const uint64_t first = header["sizes"][0].get<uint64_t>();
  for (auto sizes :
       {std::vector<uint64_t>{~uint64_t{0}}, std::vector<uint64_t>{first, ~uint64_t{0}},
        std::vector<uint64_t>{first, ~uint64_t{0} - first}}) {
    header["sizes"] = sizes;
    std::string forged = SealEnvelope(kIndexKind, header.dump(), parts.body);
    EXPECT_TRUE(RowIdIndex::Deserialize(forged).status().IsInvalid()) << header.dump();
  }
}

// The estimate counts, per group a routed row falls in, the share of each file's bytes the
// columns hold: a partial file holding only the column counts whole, a base file by its
// share of the schema's fields; untouched groups count nothing.
TEST(RowIdIndexTest, EstimateBytesCountsTouchedGroupsColumnShares) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  fx.Append(WriteFixture::Batch(10, 10));
  auto update = MakeUpdate(fx, {3}, "new-");
  ASSERT_OK(CommitUpdate(update.get(), fx.table(), "u1").status());
  auto snap = fx.table()->LatestSnapshot().ValueOrDie();
  auto index = RowIdIndex::Build(fx.table(), *snap).ValueOrDie();
  ASSERT_EQ(index->groups().size(), 2u);
  const double fields = static_cast<double>(fx.table()->schema().fields.size());
  ASSERT_GE(fields, 2);
  double base0 = 0, partial0 = 0, base1 = 0;
  for (const auto& f : index->groups()[0].files) (f.write_cols ? partial0 : base0) += f.file_size;
  for (const auto& f : index->groups()[1].files) base1 += f.file_size;
  ASSERT_GT(partial0, 0);
  EXPECT_EQ(index->EstimateBytes(*fx.table(), {}, {"name"}), 0);
  EXPECT_EQ(index->EstimateBytes(*fx.table(), {1, 1}, {"name"}),
            static_cast<int64_t>(base1 / fields));
  EXPECT_EQ(index->EstimateBytes(*fx.table(), {0}, {"name"}),
            static_cast<int64_t>(base0 / fields + partial0));
  EXPECT_EQ(index->EstimateBytes(*fx.table(), {0}, {"id"}), static_cast<int64_t>(base0 / fields));
  EXPECT_EQ(index->EstimateBytes(*fx.table(), {0, 1}, {"nothing"}), 0);
}

TEST(RowIdUpdateTest, UpdatesOnlyTouchedGroupsAndReads) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  fx.Append(WriteFixture::Batch(10, 10));
  auto update = MakeUpdate(fx, {12, 3, 19}, "new-");
  auto outcome = CommitUpdate(update.get(), fx.table(), "u1").ValueOrDie();
  EXPECT_EQ(outcome.num_updated, 3);
  EXPECT_EQ(outcome.snapshot_id, 3);
  auto names = Names(fx.ReadAll({"name"}));
  ASSERT_EQ(names.size(), 20u);
  EXPECT_EQ(names[3], "new-3");
  EXPECT_EQ(names[4], "name-4");
  EXPECT_EQ(names[12], "new-12");
  EXPECT_EQ(names[19], "new-19");

  auto snap = fx.table()->LatestSnapshot().ValueOrDie();
  auto index = RowIdIndex::Build(fx.table(), *snap).ValueOrDie();
  auto read = RowIdRead::Make(fx.table(), {"name"}, index).ValueOrDie();
  arrow::Int64Builder b;
  ASSERT_OK(b.AppendValues({19, 3, 3, 4}));
  auto reader = read->Read({b.Finish().ValueOrDie()}).ValueOrDie();
  auto got = reader->ToTable().ValueOrDie();
  EXPECT_EQ(Names(got), (std::vector<std::string>{"new-3", "name-4", "new-19"}));
  EXPECT_EQ(WriteFixture::Int64s(got, "_ROW_ID"), (std::vector<int64_t>{3, 4, 19}));
}

TEST(RowIdUpdateTest, DuplicateIdsFailAndLeaveNothing) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  fx.Append(WriteFixture::Batch(10, 10));
  auto before = WriteFixture::Files(fx.table_path());
  auto update = MakeUpdate(fx, {1, 12, 12}, "x-");
  auto st = CommitUpdate(update.get(), fx.table(), "u").status();
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_NE(st.message().find("Deduplicate the source"), std::string::npos);
  EXPECT_EQ(WriteFixture::Files(fx.table_path()), before);
}

TEST(RowIdUpdateTest, RebasesOverAConcurrentUpdateOfOtherRows) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  auto ours = MakeUpdate(fx, {1, 2}, "ours-");   // planned on snapshot 1
  auto theirs = MakeUpdate(fx, {7}, "theirs-");  // the same group and column, other rows
  ASSERT_OK(CommitUpdate(theirs.get(), fx.table(), "them"));
  auto outcome = CommitUpdate(ours.get(), fx.table(), "us");
  ASSERT_OK(outcome);
  EXPECT_EQ(outcome->rebases, 1);
  auto names = Names(fx.ReadAll({"name"}));
  EXPECT_EQ(names[1], "ours-1");
  EXPECT_EQ(names[2], "ours-2");
  EXPECT_EQ(names[7], "theirs-7");  // both writers' rows are kept
  EXPECT_EQ(names[8], "name-8");
}

TEST(RowIdUpdateTest, TrueConflictFailsAndLeavesNothing) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  auto ours = MakeUpdate(fx, {1, 2}, "ours-");
  auto theirs = MakeUpdate(fx, {2}, "theirs-");  // changes one of our rows
  ASSERT_OK(CommitUpdate(theirs.get(), fx.table(), "them"));
  auto before = WriteFixture::Files(fx.table_path());
  auto st = CommitUpdate(ours.get(), fx.table(), "us").status();
  ASSERT_FALSE(st.ok());
  ASSERT_NE(GetErrorKind(st), nullptr);
  EXPECT_EQ(*GetErrorKind(st), ErrorKind::kCommitConflict);
  EXPECT_NE(st.message().find("changed some of the same rows"), std::string::npos);
  EXPECT_EQ(WriteFixture::Files(fx.table_path()), before);
  EXPECT_EQ(Names(fx.ReadAll({"name"}))[2], "theirs-2");
}

// The shape of a Ray update: each round routes the rows afresh with the index it is given
// (a rebased round: the latest, checked against the previous base) instead of rebasing
// routed rows. Both writers' rows land; the conflict is still caught.
Result<UpdateOutcome> CommitLikeRay(WriteFixture& fx, const std::vector<int64_t>& ids,
                                    const std::string& prefix,
                                    std::shared_ptr<const RowIdIndex> base_index) {
  std::shared_ptr<const RowIdIndex> previous;
  return CommitWithRebase(
      fx.table(), CommitOptions{}, /*max_rebases=*/3, static_cast<int64_t>(ids.size()),
      [&](const RebaseStep* step) -> Result<std::vector<CommitMessage>> {
        std::shared_ptr<const RowIdIndex> index = step ? step->latest_index : base_index;
        ARROW_ASSIGN_OR_RAISE(auto update, RowIdUpdate::Make(fx.table(), {"name"}, "db.t", index));
        ARROW_RETURN_NOT_OK(update->Add(NameUpdates(ids, prefix)));
        if (step) {
          EXPECT_EQ(step->previous_base_id, previous->snapshot_id());
          ARROW_RETURN_NOT_OK(update->VerifyUnchangedSince(previous));
        }
        previous = index;
        return update->Finish(1);
      });
}

TEST(RowIdUpdateTest, RoundsRoutedAfreshRebaseOverOtherRows) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  auto base =
      RowIdIndex::Build(fx.table(), *fx.table()->LatestSnapshot().ValueOrDie()).ValueOrDie();
  auto theirs = MakeUpdate(fx, {7}, "theirs-");
  ASSERT_OK(CommitUpdate(theirs.get(), fx.table(), "them"));
  auto outcome = CommitLikeRay(fx, {1, 2}, "ours-", base);
  ASSERT_OK(outcome);
  EXPECT_EQ(outcome->rebases, 1);
  EXPECT_EQ(outcome->snapshot_id, 3);
  EXPECT_EQ(outcome->num_updated, 2);
  auto names = Names(fx.ReadAll({"name"}));
  EXPECT_EQ(names[1], "ours-1");
  EXPECT_EQ(names[7], "theirs-7");
}

TEST(RowIdUpdateTest, RoundsRoutedAfreshDetectTrueConflicts) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  auto base =
      RowIdIndex::Build(fx.table(), *fx.table()->LatestSnapshot().ValueOrDie()).ValueOrDie();
  auto theirs = MakeUpdate(fx, {2}, "theirs-");
  ASSERT_OK(CommitUpdate(theirs.get(), fx.table(), "them"));
  auto before = WriteFixture::Files(fx.table_path());
  auto st = CommitLikeRay(fx, {1, 2}, "ours-", base).status();
  ASSERT_NE(GetErrorKind(st), nullptr) << st.ToString();
  EXPECT_EQ(*GetErrorKind(st), ErrorKind::kCommitConflict);
  EXPECT_NE(st.message().find("changed some of the same rows"), std::string::npos);
  EXPECT_EQ(WriteFixture::Files(fx.table_path()), before);
}

TEST(RowIdUpdateTest, RoundErrorsReachTheCallerAndNothingIsCommitted) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  auto st = CommitWithRebase(fx.table(), CommitOptions{}, 3, 1,
                             [](const RebaseStep*) -> Result<std::vector<CommitMessage>> {
                               return Status::IOError("worker lost");
                             })
                .status();
  EXPECT_TRUE(st.IsIOError());
  EXPECT_EQ(fx.table()->LatestSnapshot().ValueOrDie()->id, 1);
}

TEST(RowIdUpdateTest, FileStemNamesTheFilesOfAnUpdate) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  fx.Append(WriteFixture::Batch(10, 10));
  auto stemmed = fx.table()->Copy({{AppendWriter::kFileStemOption, "job42"}}).ValueOrDie();
  auto update = RowIdUpdate::Make(stemmed, {"name"}, "db.t").ValueOrDie();
  ASSERT_OK(update->Add(NameUpdates({3, 12}, "n-")));
  auto messages = update->Finish(1).ValueOrDie();
  ASSERT_EQ(messages.size(), 2u);
  auto index =
      RowIdIndex::Build(fx.table(), *fx.table()->LatestSnapshot().ValueOrDie()).ValueOrDie();
  auto paths = UpdateFilePaths(stemmed, {"name"}, *index, {0, 1}).ValueOrDie();
  ASSERT_EQ(paths.size(), 2u);
  for (size_t g = 0; g < 2; ++g) {
    const std::string& name = messages[g].new_files[0].file_name;
    EXPECT_EQ(name, "data-job42-g" + std::to_string(g * 10) + "-0.parquet");
    EXPECT_EQ(paths[g].substr(paths[g].size() - name.size()), name);
    EXPECT_TRUE(fx.table()->file_io()->Exists(paths[g]).ValueOrDie()) << paths[g];
  }
  // A rerun (a retried task) writes the same names.
  auto again = RowIdUpdate::Make(stemmed, {"name"}, "db.t").ValueOrDie();
  ASSERT_OK(again->Add(NameUpdates({3}, "m-")));
  EXPECT_EQ(again->Finish(1).ValueOrDie()[0].new_files[0].file_name,
            messages[0].new_files[0].file_name);
  // Without a stem the paths are unknown.
  EXPECT_TRUE(UpdateFilePaths(fx.table(), {"name"}, *index, {0}).status().IsInvalid());
  EXPECT_TRUE(UpdateFilePaths(stemmed, {"name"}, *index, {5}).status().IsIndexError());
}

// A budget of one byte makes every routed batch spill; the result must not change and the
// spill files must be gone once the update is.
std::shared_ptr<const Table> WithSpilling(WriteFixture& fx, const testing::TempDir& spill) {
  return fx.table()
      ->Copy(
          {{RowIdUpdate::kMemoryBudgetOption, "1 b"}, {RowIdUpdate::kSpillDirOption, spill.path()}})
      .ValueOrDie();
}

TEST(RowIdUpdateTest, SpillsBeyondTheMemoryBudget) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  fx.Append(WriteFixture::Batch(10, 10));
  fx.Append(WriteFixture::Batch(20, 10));
  testing::TempDir spill;
  auto table = WithSpilling(fx, spill);
  {
    auto update = RowIdUpdate::Make(table, {"name"}, "db.t").ValueOrDie();
    // Interleaved groups across batches: every group gets rows from several spill files.
    ASSERT_OK(update->Add(NameUpdates({21, 2}, "s-")));
    ASSERT_OK(update->Add(NameUpdates({5, 29, 15}, "s-")));
    ASSERT_OK(update->Add(NameUpdates({0, 22}, "s-")));
    EXPECT_EQ(update->num_spills(), 3);
    EXPECT_EQ(WriteFixture::Files(spill.path()).size(), 3u);
    auto outcome = CommitUpdate(update.get(), table, "u").ValueOrDie();
    EXPECT_EQ(outcome.num_updated, 7);
  }
  EXPECT_TRUE(WriteFixture::Files(spill.path()).empty());
  auto names = Names(fx.ReadAll({"name"}));
  ASSERT_EQ(names.size(), 30u);
  for (int64_t id : {0, 2, 5, 15, 21, 22, 29}) EXPECT_EQ(names[id], "s-" + std::to_string(id));
  EXPECT_EQ(names[1], "name-1");
  EXPECT_EQ(names[28], "name-28");
}

TEST(RowIdUpdateTest, NoSpillUnderTheDefaultBudget) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  auto update = MakeUpdate(fx, {1, 2}, "m-");
  EXPECT_EQ(update->num_spills(), 0);
  EXPECT_GT(update->peak_routed_bytes(), 0);
  ASSERT_OK(CommitUpdate(update.get(), fx.table(), "u"));
}

TEST(RowIdUpdateTest, SpilledUpdateRebasesAndDuplicatesAcrossSpillsFail) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  testing::TempDir spill;
  auto table = WithSpilling(fx, spill);
  auto ours = RowIdUpdate::Make(table, {"name"}, "db.t").ValueOrDie();
  ASSERT_OK(ours->Add(NameUpdates({1}, "ours-")));
  ASSERT_OK(ours->Add(NameUpdates({2}, "ours-")));
  auto theirs = MakeUpdate(fx, {7}, "theirs-");
  ASSERT_OK(CommitUpdate(theirs.get(), fx.table(), "them"));
  auto outcome = CommitUpdate(ours.get(), table, "us");
  ASSERT_OK(outcome);
  EXPECT_EQ(outcome->rebases, 1);
  auto names = Names(fx.ReadAll({"name"}));
  EXPECT_EQ(names[1], "ours-1");
  EXPECT_EQ(names[2], "ours-2");
  EXPECT_EQ(names[7], "theirs-7");
  ours.reset();
  EXPECT_TRUE(WriteFixture::Files(spill.path()).empty());

  // The same id in two spill files is still a duplicate; nothing is left behind.
  auto before = WriteFixture::Files(fx.table_path());
  auto dup = RowIdUpdate::Make(table, {"name"}, "db.t").ValueOrDie();
  ASSERT_OK(dup->Add(NameUpdates({4}, "d-")));
  ASSERT_OK(dup->Add(NameUpdates({4}, "d-")));
  auto st = CommitUpdate(dup.get(), table, "d").status();
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_NE(st.message().find("Deduplicate the source"), std::string::npos);
  EXPECT_EQ(WriteFixture::Files(fx.table_path()), before);
}

TEST(RowIdReadTest, ParallelStreamKeepsPlanOrderAndReportsErrors) {
  WriteFixture fx;
  for (int64_t c = 0; c < 12; ++c) fx.Append(WriteFixture::Batch(c * 5, 5));
  auto snap = fx.table()->LatestSnapshot().ValueOrDie();
  auto index = RowIdIndex::Build(fx.table(), *snap).ValueOrDie();
  auto read = RowIdRead::Make(fx.table(), {"name"}, index).ValueOrDie();
  arrow::Int64Builder b;
  for (int64_t id = 59; id >= 0; id -= 3) ASSERT_OK(b.Append(id));
  auto ids = b.Finish().ValueOrDie();
  for (int threads : {1, 3, 8}) {
    auto got = read->Read({ids}, threads).ValueOrDie()->ToTable().ValueOrDie();
    std::vector<int64_t> expected;
    for (int64_t id = 2; id < 60; id += 3) expected.push_back(id);  // ascending, group order
    EXPECT_EQ(WriteFixture::Int64s(got, "_ROW_ID"), expected) << threads << " threads";
  }
  // A group whose data file is gone: the stream fails with that error, and stops cleanly
  // even though other groups are still being read.
  auto victim = index->groups()[5].bucket_dir + "/" + index->groups()[5].files.front().file_name;
  ASSERT_TRUE(std::filesystem::remove(victim));
  auto reader = read->Read({ids}, 4).ValueOrDie();
  Status st;
  std::shared_ptr<arrow::RecordBatch> batch;
  int batches = 0;
  while ((st = reader->ReadNext(&batch)).ok() && batch) ++batches;
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(batches, 5);  // groups 0..4 came out, in order, before the failing one
}

}  // namespace
}  // namespace paimon_rowid
