#include "paimon_rowid/maint/expire.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <numeric>
#include <set>
#include <thread>

#include "paimon_rowid/catalog/snapshot_manager.h"
#include "paimon_rowid/commit/manifest_writer.h"
#include "paimon_rowid/common/clock.h"
#include "paimon_rowid/common/fault_points.h"
#include "paimon_rowid/maint/table_files_internal.h"
#include "paimon_rowid/rowid/delete_by_row_id.h"
#include "paimon_rowid/rowid/update_by_row_id.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

using testing::DeOptions;
using testing::WriteFixture;

// Every snapshot may expire by time; only the counts decide.
ExpireOptions ByCount(std::optional<int32_t> retain_min, std::optional<int32_t> retain_max = {},
                      std::optional<int32_t> max_deletes = {}) {
  ExpireOptions o;
  o.retain_min = retain_min;
  o.retain_max = retain_max;
  o.max_deletes = max_deletes;
  o.older_than_ms = NowMillis() + 60'000;
  return o;
}

std::shared_ptr<arrow::Table> ReadWith(const std::shared_ptr<Table>& table,
                                       std::map<std::string, std::optional<std::string>> opts) {
  auto t = table->Copy(opts).ValueOrDie();
  auto plan = ScanPlanner(t).Plan().ValueOrDie();
  ReadOptions ro;
  ro.fields = {"id", "name", "_ROW_ID"};
  auto read = TableRead::Make(t, ro).ValueOrDie();
  return read->Read(plan.splits).ValueOrDie()->ToTable().ValueOrDie()->CombineChunks().ValueOrDie();
}

std::shared_ptr<arrow::Table> ReadSnapshot(const std::shared_ptr<Table>& table, int64_t id) {
  return ReadWith(table, {{"scan.snapshot-id", std::to_string(id)}});
}

// Rows of every snapshot, to compare after an expiration.
std::map<int64_t, std::shared_ptr<arrow::Table>> ReadEvery(const std::shared_ptr<Table>& table) {
  std::map<int64_t, std::shared_ptr<arrow::Table>> out;
  for (int64_t id : table->ListSnapshotIds().ValueOrDie()) out[id] = ReadSnapshot(table, id);
  return out;
}

// Snapshots >= `from` (all when 0) read as before and every file they name exists.
void ExpectRetainedReadTheSame(const std::shared_ptr<Table>& table,
                               const std::map<int64_t, std::shared_ptr<arrow::Table>>& before,
                               int64_t from = 0) {
  auto ids = table->ListSnapshotIds().ValueOrDie();
  ASSERT_FALSE(ids.empty());
  for (int64_t id : ids) {
    if (id < from) continue;
    ASSERT_TRUE(before.count(id)) << id;
    EXPECT_TRUE(ReadSnapshot(table, id)->Equals(*before.at(id))) << "snapshot " << id;
    // Every file the snapshot names exists.
    Snapshot snap = table->SnapshotById(id).ValueOrDie();
    std::set<std::string> files;
    ASSERT_OK(CollectMetaFiles(*table, snap, /*tolerate_missing=*/false, &files));
    for (const auto& f : files) EXPECT_TRUE(table->file_io()->Exists(f).ValueOrDie()) << f;
  }
}

std::vector<int64_t> Ids(const Table& table) { return table.ListSnapshotIds().ValueOrDie(); }

// Commits a snapshot that deletes the live file `file_name` (an overwrite as another engine
// writes it: our committer only adds files).
int64_t CommitDelete(WriteFixture& fx, const std::string& file_name) {
  const Table& table = *fx.table();
  Snapshot latest = *table.LatestSnapshot().ValueOrDie();
  auto live = ReadLiveEntries(table, latest, nullptr).ValueOrDie();
  std::vector<ManifestEntry> entries;
  for (auto e : live) {
    if (e.file.file_name != file_name) continue;
    e.kind = FileKind::kDelete;
    entries.push_back(e);
  }
  EXPECT_EQ(entries.size(), 1u) << file_name;
  auto opts = ManifestWriteOptions::FromTable(table).ValueOrDie();
  std::vector<std::string> written;
  auto delta = WriteManifests(table, entries, opts, &written).ValueOrDie();
  std::vector<ManifestFileMeta> base;
  for (const auto& list : {latest.base_manifest_list, latest.delta_manifest_list}) {
    auto metas = ReadManifestListIfExists(table, list).ValueOrDie();
    base.insert(base.end(), metas.begin(), metas.end());
  }
  Snapshot snap = latest;
  snap.id = latest.id + 1;
  snap.base_manifest_list = "manifest-list-test-" + std::to_string(snap.id) + "-0";
  snap.delta_manifest_list = "manifest-list-test-" + std::to_string(snap.id) + "-1";
  auto base_bytes = EncodeManifestList(base, opts.codec).ValueOrDie();
  auto delta_bytes = EncodeManifestList(delta, opts.codec).ValueOrDie();
  snap.base_manifest_list_size = base_bytes->size();
  snap.delta_manifest_list_size = delta_bytes->size();
  EXPECT_OK(table.file_io()->WriteFile(table.ManifestPath(snap.base_manifest_list),
                                       base_bytes->ToString()));
  EXPECT_OK(table.file_io()->WriteFile(table.ManifestPath(snap.delta_manifest_list),
                                       delta_bytes->ToString()));
  snap.commit_kind = "OVERWRITE";
  snap.time_millis = NowMillis();
  snap.delta_record_count = -entries[0].file.row_count;
  snap.total_record_count = *latest.total_record_count - entries[0].file.row_count;
  EXPECT_OK(table.file_io()->WriteFileNoReplace(table.SnapshotPath(snap.id), snap.ToJson()));
  SnapshotManager(table.file_io(), table.path()).AdvanceLatestHint(snap.id);
  return snap.id;
}

std::string OnlyFileOf(const Table& table, int64_t snapshot_id) {
  Snapshot snap = table.SnapshotById(snapshot_id).ValueOrDie();
  auto delta =
      ReadManifestIfExists(
          table,
          ReadManifestListIfExists(table, snap.delta_manifest_list).ValueOrDie().at(0).file_name)
          .ValueOrDie();
  EXPECT_EQ(delta.size(), 1u);
  return delta.at(0).file.file_name;
}

std::string DataPath(const Table& table, const std::string& file_name) {
  return table.BucketPath("", 0) + "/" + file_name;
}

TEST(ExpireTest, EmptyTableIsANoOp) {
  WriteFixture fx;
  ASSERT_OK_AND_ASSIGN(auto r, ExpireSnapshots(fx.table(), ByCount(1)));
  EXPECT_EQ(r.snapshots_expired, 0);
  EXPECT_FALSE(r.earliest_snapshot_id);
}

TEST(ExpireTest, RetainMinKeepsTheNewestSnapshots) {
  WriteFixture fx;
  for (int i = 0; i < 6; ++i) fx.Append(WriteFixture::Batch(i * 10, 10));
  auto before = ReadEvery(fx.table());
  auto manifests_before = WriteFixture::Files(fx.table_path() + "/manifest").size();
  ASSERT_OK_AND_ASSIGN(auto r, ExpireSnapshots(fx.table(), ByCount(2)));
  EXPECT_EQ(r.snapshots_expired, 4);
  EXPECT_EQ(r.earliest_snapshot_id, 5);
  EXPECT_EQ(r.data_files_deleted, 0);      // appends delete nothing
  EXPECT_EQ(r.manifest_files_deleted, 8);  // two lists per expired snapshot; manifests shared
  EXPECT_GT(r.bytes_freed, 0);
  EXPECT_EQ(Ids(*fx.table()), (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(WriteFixture::Files(fx.table_path() + "/manifest").size(), manifests_before - 8);
  EXPECT_EQ(SnapshotManager(fx.table()->file_io(), fx.table_path()).ReadHint("EARLIEST"), 5);
  ExpectRetainedReadTheSame(fx.table(), before);
  EXPECT_EQ(WriteFixture::Int64s(ReadSnapshot(fx.table(), 6), "_ROW_ID").size(), 60u);
  // Nothing more to do.
  ASSERT_OK_AND_ASSIGN(auto again, ExpireSnapshots(fx.table(), ByCount(2)));
  EXPECT_EQ(again.snapshots_expired, 0);
}

TEST(ExpireTest, RetainMaxExpiresYoungSnapshotsToo) {
  WriteFixture fx;
  for (int i = 0; i < 5; ++i) fx.Append(WriteFixture::Batch(i * 10, 10));
  ExpireOptions o = ByCount(1, 3);
  o.older_than_ms = 0;  // no snapshot is old
  ASSERT_OK_AND_ASSIGN(auto r, ExpireSnapshots(fx.table(), o));
  EXPECT_EQ(r.snapshots_expired, 2);
  EXPECT_EQ(Ids(*fx.table()), (std::vector<int64_t>{3, 4, 5}));
}

TEST(ExpireTest, TheFirstYoungSnapshotStopsTheExpiration) {
  WriteFixture fx;
  for (int i = 0; i < 4; ++i) {
    fx.Append(WriteFixture::Batch(i * 10, 10));
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  ExpireOptions o = ByCount(1);
  o.older_than_ms = fx.table()->SnapshotById(3).ValueOrDie().time_millis;
  ASSERT_OK_AND_ASSIGN(auto r, ExpireSnapshots(fx.table(), o));
  EXPECT_EQ(r.snapshots_expired, 2);
  EXPECT_EQ(Ids(*fx.table()), (std::vector<int64_t>{3, 4}));
}

TEST(ExpireTest, MaxDeletesBoundsOneCall) {
  WriteFixture fx;
  for (int i = 0; i < 6; ++i) fx.Append(WriteFixture::Batch(i * 10, 10));
  ASSERT_OK_AND_ASSIGN(auto r, ExpireSnapshots(fx.table(), ByCount(1, std::nullopt, 2)));
  EXPECT_EQ(r.snapshots_expired, 2);
  EXPECT_EQ(r.earliest_snapshot_id, 3);
  ASSERT_OK_AND_ASSIGN(r, ExpireSnapshots(fx.table(), ByCount(1, std::nullopt, 2)));
  EXPECT_EQ(r.earliest_snapshot_id, 5);
  ASSERT_OK_AND_ASSIGN(r, ExpireSnapshots(fx.table(), ByCount(1, std::nullopt, 2)));
  EXPECT_EQ(r.snapshots_expired, 1);  // the latest always stays
  EXPECT_EQ(Ids(*fx.table()), (std::vector<int64_t>{6}));
}

TEST(ExpireTest, DefaultsComeFromTheTableOptions) {
  WriteFixture fx(DeOptions({{"snapshot.num-retained.min", "2"},
                             {"snapshot.time-retained", "1 ms"},
                             {"snapshot.expire.limit", "1"}}));
  for (int i = 0; i < 4; ++i) fx.Append(WriteFixture::Batch(i * 10, 10));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_OK_AND_ASSIGN(auto r, ExpireSnapshots(fx.table()));
  EXPECT_EQ(r.snapshots_expired, 1);  // snapshot.expire.limit
  ASSERT_OK_AND_ASSIGN(r, ExpireSnapshots(fx.table(), ExpireOptions{.max_deletes = 10}));
  EXPECT_EQ(r.snapshots_expired, 1);  // snapshot.num-retained.min
  EXPECT_EQ(Ids(*fx.table()), (std::vector<int64_t>{3, 4}));
  // The default time retention (1 h) keeps fresh snapshots.
  WriteFixture fresh;
  for (int i = 0; i < 12; ++i) fresh.Append(WriteFixture::Batch(i * 10, 10));
  ASSERT_OK_AND_ASSIGN(r, ExpireSnapshots(fresh.table(), ExpireOptions{.retain_min = 1}));
  EXPECT_EQ(r.snapshots_expired, 0);
}

TEST(ExpireTest, BadOptionsAreInvalidAndDeleteNothing) {
  WriteFixture fx;
  for (int i = 0; i < 3; ++i) fx.Append(WriteFixture::Batch(i * 10, 10));
  auto files = WriteFixture::Files(fx.table_path());
  auto expect_invalid = [&](ExpireOptions o, const std::string& text) {
    auto r = ExpireSnapshots(fx.table(), o);
    ASSERT_RAISES(Invalid, r);
    EXPECT_NE(r.status().message().find(text), std::string::npos) << r.status().ToString();
  };
  expect_invalid(ByCount(0), "retain_min must be at least 1, got 0");
  expect_invalid(ByCount(3, 2), "retain_max (2) must be >= retain_min (3)");
  expect_invalid(ByCount(1, std::nullopt, 0), "max_deletes must be at least 1");
  auto bad = fx.table()->Copy({{"snapshot.num-retained.min", "many"}}).ValueOrDie();
  EXPECT_RAISES(Invalid, ExpireSnapshots(bad, ExpireOptions{}));
  EXPECT_EQ(WriteFixture::Files(fx.table_path()), files);
}

TEST(ExpireTest, ADeletedFileGoesOnlyWhenNoRetainedSnapshotNeedsIt) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));   // 1: A
  fx.Append(WriteFixture::Batch(10, 10));  // 2: B
  const std::string a = OnlyFileOf(*fx.table(), 1);
  const std::string b = OnlyFileOf(*fx.table(), 2);
  ASSERT_EQ(CommitDelete(fx, a), 3);       // 3: -A
  fx.Append(WriteFixture::Batch(20, 10));  // 4: C
  auto before = ReadEvery(fx.table());
  auto io = fx.table()->file_io();

  // Snapshot 2 still holds A: expiring 1 keeps it.
  ASSERT_OK_AND_ASSIGN(auto r, ExpireSnapshots(fx.table(), ByCount(3)));
  EXPECT_EQ(r.snapshots_expired, 1);
  EXPECT_EQ(r.data_files_deleted, 0);
  EXPECT_TRUE(io->Exists(DataPath(*fx.table(), a)).ValueOrDie());
  ExpectRetainedReadTheSame(fx.table(), before);

  // Expiring 2 leaves no snapshot with A.
  ASSERT_OK_AND_ASSIGN(r, ExpireSnapshots(fx.table(), ByCount(2)));
  EXPECT_EQ(r.snapshots_expired, 1);
  EXPECT_EQ(r.data_files_deleted, 1);
  EXPECT_FALSE(io->Exists(DataPath(*fx.table(), a)).ValueOrDie());
  EXPECT_TRUE(io->Exists(DataPath(*fx.table(), b)).ValueOrDie());
  ExpectRetainedReadTheSame(fx.table(), before);
}

TEST(ExpireTest, ATagKeepsItsFilesButNotItsSnapshotFile) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  fx.Append(WriteFixture::Batch(10, 10));
  const std::string a = OnlyFileOf(*fx.table(), 1);
  ASSERT_OK(fx.table()->CreateTag("t1", 1, false));
  auto tagged = ReadWith(fx.table(), {{"scan.tag-name", "t1"}});
  CommitDelete(fx, a);
  fx.Append(WriteFixture::Batch(20, 10));
  auto before = ReadEvery(fx.table());
  ASSERT_OK_AND_ASSIGN(auto r, ExpireSnapshots(fx.table(), ByCount(1)));
  EXPECT_EQ(r.snapshots_expired, 3);
  EXPECT_EQ(r.data_files_deleted, 0);
  EXPECT_EQ(Ids(*fx.table()), (std::vector<int64_t>{4}));
  EXPECT_TRUE(fx.table()->file_io()->Exists(DataPath(*fx.table(), a)).ValueOrDie());
  EXPECT_TRUE(ReadWith(fx.table(), {{"scan.tag-name", "t1"}})->Equals(*tagged));
  ExpectRetainedReadTheSame(fx.table(), before);
  // Without the tag, the next expiration finds nothing to do for A (its snapshots are gone):
  // A is an orphan now, for RemoveOrphanFiles.
  ASSERT_OK(fx.table()->DeleteTag("t1").status());
  ASSERT_OK_AND_ASSIGN(r, ExpireSnapshots(fx.table(), ByCount(1)));
  EXPECT_EQ(r.snapshots_expired, 0);
}

TEST(ExpireTest, AReaderThatPlannedARetainedSnapshotStillReadsIt) {
  WriteFixture fx;
  for (int i = 0; i < 4; ++i) fx.Append(WriteFixture::Batch(i * 10, 10));
  auto pinned = fx.table()->Copy({{"scan.snapshot-id", "3"}}).ValueOrDie();
  auto plan = ScanPlanner(pinned).Plan().ValueOrDie();
  ReadOptions ro;
  ro.fields = {"id", "_ROW_ID"};
  auto expected = TableRead::Make(pinned, ro)
                      .ValueOrDie()
                      ->Read(plan.splits)
                      .ValueOrDie()
                      ->ToTable()
                      .ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto r, ExpireSnapshots(fx.table(), ByCount(2)));
  EXPECT_EQ(r.snapshots_expired, 2);
  auto got = TableRead::Make(pinned, ro)
                 .ValueOrDie()
                 ->Read(plan.splits)
                 .ValueOrDie()
                 ->ToTable()
                 .ValueOrDie();
  EXPECT_TRUE(got->Equals(*expected));
}

TEST(ExpireTest, AnUpdateWhoseBaseExpiredIsARowIdConflict) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));  // 1
  auto batch = WriteFixture::Batch(0, 10);
  auto col = batch->schema()->GetFieldIndex("name");
  auto partial = arrow::RecordBatch::Make(arrow::schema({batch->schema()->field(col)}), 10,
                                          {batch->column(col)});
  auto msgs = fx.WriteMessages(partial, std::vector<std::string>{"name"});
  for (auto& m : msgs) {
    m.check_from_snapshot = 1;
    for (auto& f : m.new_files) f.first_row_id = 0;
  }
  fx.Append(WriteFixture::Batch(10, 10));  // 2
  fx.Append(WriteFixture::Batch(20, 10));  // 3
  ASSERT_OK(ExpireSnapshots(fx.table(), ByCount(1)).status());
  auto committed = Committer::Make(fx.table()).ValueOrDie()->Commit(msgs);
  ASSERT_FALSE(committed.ok());
  ASSERT_NE(GetErrorKind(committed.status()), nullptr) << committed.status().ToString();
  EXPECT_EQ(*GetErrorKind(committed.status()), ErrorKind::kRowIdConflict);
  EXPECT_NE(committed.status().message().find("expired"), std::string::npos)
      << committed.status().ToString();
}

// The update rows of the two tests below: rows 3 and 7 get new names.
std::shared_ptr<arrow::RecordBatch> NamesOfThreeAndSeven() {
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  EXPECT_OK(ids.AppendValues({3, 7}));
  EXPECT_OK(names.AppendValues(std::vector<std::string>{"three", "seven"}));
  return arrow::RecordBatch::Make(
      arrow::schema({arrow::field("_ROW_ID", arrow::int64()), arrow::field("name", arrow::utf8())}),
      2, {ids.Finish().ValueOrDie(), names.Finish().ValueOrDie()});
}

// The whole update path: planned on snapshot 1, which expires before the commit; the commit's
// conflict check reports a row-id conflict, the update rebases onto the latest snapshot and
// lands.
TEST(ExpireTest, AnUpdatePlannedBeforeAnExpirationRebasesAndLands) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));  // 1
  ASSERT_OK_AND_ASSIGN(auto update, RowIdUpdate::Make(fx.table(), {"name"}, "db.t"));
  ASSERT_OK(update->Add(NamesOfThreeAndSeven()));
  fx.Append(WriteFixture::Batch(10, 10));  // 2
  fx.Append(WriteFixture::Batch(20, 10));  // 3
  ASSERT_OK(ExpireSnapshots(fx.table(), ByCount(1)).status());
  ASSERT_EQ(Ids(*fx.table()), (std::vector<int64_t>{3}));
  ASSERT_OK_AND_ASSIGN(auto outcome, CommitUpdate(update.get(), fx.table(), RandomUuid()));
  EXPECT_EQ(outcome.rebases, 1);
  EXPECT_EQ(outcome.snapshot_id, 4);
  auto t = ReadSnapshot(fx.table(), 4);
  auto name = std::static_pointer_cast<arrow::StringArray>(t->GetColumnByName("name")->chunk(0));
  EXPECT_EQ(name->GetString(3), "three");
  EXPECT_EQ(name->GetString(7), "seven");
  EXPECT_EQ(name->GetString(8), "name-8");
  EXPECT_EQ(t->num_rows(), 30);
}

// A deletion-vector table: the update is planned on snapshot 2, whose deletion-vector file a
// later delete replaces; an expiration then removes snapshot 2 and that file before the update
// writes (it reads the base's vector to refuse deleted rows) and rebases (it reads the base's
// values). Both take the rebase path and the update lands, instead of an I/O error naming the
// expired index file (issue 44 §5).
TEST(ExpireTest, AnUpdateWhoseBaseDeletionVectorsExpiredMovesOnAndLands) {
  WriteFixture fx(DeOptions({{"deletion-vectors.enabled", "true"}}));
  fx.Append(WriteFixture::Batch(0, 10));  // 1
  auto commit = [&](std::vector<CommitMessage> messages) {
    ASSERT_OK(Committer::Make(fx.table()).ValueOrDie()->Commit(messages).status());
  };
  commit(DeleteByRowId(fx.table(), {1}).ValueOrDie());  // 2: the group's first vector
  ASSERT_OK_AND_ASSIGN(auto update, RowIdUpdate::Make(fx.table(), {"name"}, "db.t"));
  ASSERT_OK(update->Add(NamesOfThreeAndSeven()));
  commit(DeleteByRowId(fx.table(), {5}).ValueOrDie());  // 3: replaces the vector file
  fx.Append(WriteFixture::Batch(10, 10));               // 4
  ASSERT_OK(ExpireSnapshots(fx.table(), ByCount(1)).status());
  ASSERT_EQ(Ids(*fx.table()), (std::vector<int64_t>{4}));
  ASSERT_OK_AND_ASSIGN(auto outcome, CommitUpdate(update.get(), fx.table(), RandomUuid()));
  EXPECT_EQ(outcome.snapshot_id, 5);
  auto t = ReadSnapshot(fx.table(), 5);
  EXPECT_EQ(t->num_rows(), 18);  // rows 1 and 5 deleted
  auto id = std::static_pointer_cast<arrow::Int64Array>(t->GetColumnByName("id")->chunk(0));
  auto name = std::static_pointer_cast<arrow::StringArray>(t->GetColumnByName("name")->chunk(0));
  for (int64_t i = 0; i < t->num_rows(); ++i) {
    const int64_t k = id->Value(i);
    EXPECT_EQ(name->GetString(i), k == 3   ? "three"
                                  : k == 7 ? "seven"
                                           : "name-" + std::to_string(k));
  }
}

// The same race in the shape of a Ray update: each round makes its update from the index it
// is given (the base built before the job, then the latest), and is checked against the
// index of the round before. The first round fails because the base's vector file is gone;
// CommitWithRebase moves it onto the latest snapshot (RebaseStep.previous_base_id is -1: the
// failed round reported no base) and the update lands.
TEST(ExpireTest, ARoundWhoseBaseDeletionVectorsExpiredMovesOnAndLands) {
  WriteFixture fx(DeOptions({{"deletion-vectors.enabled", "true"}}));
  fx.Append(WriteFixture::Batch(0, 10));  // 1
  auto commit = [&](std::vector<CommitMessage> messages) {
    ASSERT_OK(Committer::Make(fx.table()).ValueOrDie()->Commit(messages).status());
  };
  commit(DeleteByRowId(fx.table(), {1}).ValueOrDie());  // 2: the group's first vector
  ASSERT_OK_AND_ASSIGN(auto base_snapshot, fx.table()->SnapshotById(2));
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const RowIdIndex> base,
                       RowIdIndex::Build(fx.table(), base_snapshot));
  commit(DeleteByRowId(fx.table(), {5}).ValueOrDie());  // 3: replaces the vector file
  fx.Append(WriteFixture::Batch(10, 10));               // 4
  ASSERT_OK(ExpireSnapshots(fx.table(), ByCount(1)).status());
  std::shared_ptr<const RowIdIndex> previous;
  std::vector<int64_t> previous_base_ids;
  ASSERT_OK_AND_ASSIGN(
      auto outcome,
      CommitWithRebase(fx.table(), CommitOptions{}, /*max_rebases=*/3, 2,
                       [&](const RebaseStep* step) -> Result<std::vector<CommitMessage>> {
                         std::shared_ptr<const RowIdIndex> index = step ? step->latest_index : base;
                         if (step) previous_base_ids.push_back(step->previous_base_id);
                         ARROW_ASSIGN_OR_RAISE(
                             auto update, RowIdUpdate::Make(fx.table(), {"name"}, "db.t", index));
                         ARROW_RETURN_NOT_OK(update->Add(NamesOfThreeAndSeven()));
                         if (previous) ARROW_RETURN_NOT_OK(update->VerifyUnchangedSince(previous));
                         previous = index;
                         return update->Finish(1);
                       }));
  EXPECT_EQ(previous_base_ids, (std::vector<int64_t>{-1}));
  EXPECT_EQ(outcome.rebases, 1);
  EXPECT_EQ(outcome.snapshot_id, 5);
  auto t = ReadSnapshot(fx.table(), 5);
  EXPECT_EQ(t->num_rows(), 18);
  auto name = std::static_pointer_cast<arrow::StringArray>(t->GetColumnByName("name")->chunk(0));
  auto id = std::static_pointer_cast<arrow::Int64Array>(t->GetColumnByName("id")->chunk(0));
  for (int64_t i = 0; i < t->num_rows(); ++i) {
    if (id->Value(i) == 3) EXPECT_EQ(name->GetString(i), "three");
    if (id->Value(i) == 7) EXPECT_EQ(name->GetString(i), "seven");
  }
}

// Issue 44 §5, the append side: a commit chooses the latest snapshot, then (a hook at
// "commit_after_choosing_latest") two other commits land and an expiration keeps only the
// newest, so the chosen snapshot and the one after it are gone. The commit retries on the
// latest (its look for an earlier landing skips the expired snapshot) and lands once.
TEST(ExpireTest, ACommitWhoseChosenLatestExpiresUnderItRetriesAndLands) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));  // 1
  auto ours = fx.WriteMessages(WriteFixture::Batch(10, 10));
  int hook_runs = 0;
  ArmFaultHook("commit_after_choosing_latest", [&] {
    ++hook_runs;
    fx.Append(WriteFixture::Batch(20, 10));  // 2
    fx.Append(WriteFixture::Batch(30, 10));  // 3
    EXPECT_OK(ExpireSnapshots(fx.table(), ByCount(1)).status());
  });
  auto committed = Committer::Make(fx.table()).ValueOrDie()->Commit(ours);
  ArmFaultHook("", nullptr);
  ASSERT_OK(committed);
  EXPECT_EQ(hook_runs, 1);
  EXPECT_EQ(*committed, 4);
  EXPECT_EQ(Ids(*fx.table()), (std::vector<int64_t>{3, 4}));
  auto ids = WriteFixture::Int64s(ReadSnapshot(fx.table(), 4), "id");
  std::sort(ids.begin(), ids.end());
  std::vector<int64_t> expected(40);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(ids, expected);  // every row once: nothing lost, nothing twice
}

// A crash at each step of an expiration (SIGKILL at a fault point) leaves every retained
// snapshot readable, and the next expiration finishes the work.
TEST(ExpireDeathTest, ACrashAnywhereLeavesTheRetainedSnapshotsReadable) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  testing::ScopedTempRoot scratch;  // the killed children's tables are left in here
  for (const char* point :
       {"expire_after_data_files", "expire_after_manifests", "expire_after_snapshot_file"}) {
    SCOPED_TRACE(point);
    WriteFixture fx;
    fx.Append(WriteFixture::Batch(0, 10));
    fx.Append(WriteFixture::Batch(10, 10));
    const std::string a = OnlyFileOf(*fx.table(), 1);
    CommitDelete(fx, a);
    fx.Append(WriteFixture::Batch(20, 10));
    fx.Append(WriteFixture::Batch(30, 10));
    auto before = ReadEvery(fx.table());
    EXPECT_EXIT(
        {
          ArmCrashPoint(point);
          (void)ExpireSnapshots(fx.table(), ByCount(2));
          std::exit(0);
        },
        ::testing::KilledBySignal(SIGKILL), "");
    ExpectRetainedReadTheSame(fx.table(), before, /*from=*/4);
    ASSERT_OK_AND_ASSIGN(auto r, ExpireSnapshots(fx.table(), ByCount(2)));
    EXPECT_EQ(Ids(*fx.table()), (std::vector<int64_t>{4, 5}));
    EXPECT_FALSE(fx.table()->file_io()->Exists(DataPath(*fx.table(), a)).ValueOrDie());
    ExpectRetainedReadTheSame(fx.table(), before);
  }
}

}  // namespace
}  // namespace paimon_rowid
