#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <set>

#include "paimon_rowid/commit/commit_delta.h"
#include "paimon_rowid/commit/committer.h"
#include "paimon_rowid/commit/conflict.h"
#include "paimon_rowid/commit/manifest_writer.h"
#include "paimon_rowid/scan/manifest_cache.h"
#include "paimon_rowid/scan/plan.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

using testing::DeOptions;
using testing::OrphanManifests;
using testing::WriteFixture;

std::vector<int64_t> Iota(int64_t start, int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(CommitterTest, EmptyMessagesMakeNoSnapshot) {
  WriteFixture fx;
  auto committer = Committer::Make(fx.table()).ValueOrDie();
  EXPECT_FALSE(committer->Commit({}).ValueOrDie());
  EXPECT_FALSE(committer->Commit({CommitMessage{}}).ValueOrDie());
  EXPECT_FALSE(fx.table()->LatestSnapshot().ValueOrDie());
}

TEST(CommitterTest, RefusesMessagesThatWouldBreakTheTable) {
  WriteFixture fx;
  auto messages = fx.WriteMessages(WriteFixture::Batch(0, 10));
  ASSERT_EQ(Committer::Make(fx.table()).ValueOrDie()->Commit(messages).ValueOrDie(), 1);
  auto files_before = WriteFixture::Files(fx.table()->path());

  // Committed before: refused, and the committed files stay (they are the snapshot's).
  auto again = Committer::Make(fx.table()).ValueOrDie()->Commit(messages);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("already committed"), std::string::npos)
      << again.status().ToString();
  // A copy that went through bytes (as messages travel on Ray) is refused the same way.
  auto copy = CommitMessage::Deserialize(messages[0].Serialize().ValueOrDie()).ValueOrDie();
  EXPECT_EQ(copy.table_path, fx.table()->path());
  EXPECT_FALSE(Committer::Make(fx.table()).ValueOrDie()->Commit({copy}).ok());
  EXPECT_EQ(WriteFixture::Files(fx.table()->path()), files_before);

  // The same file named twice in one commit.
  auto fresh = fx.WriteMessages(WriteFixture::Batch(10, 5));
  auto doubled = fresh;
  doubled.push_back(fresh[0]);
  auto twice = Committer::Make(fx.table()).ValueOrDie()->Commit(doubled);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("named twice"), std::string::npos);

  // Aborted: the files are gone, so the commit is refused before writing anything.
  auto committer = Committer::Make(fx.table()).ValueOrDie();
  ASSERT_OK(committer->Abort(fresh));
  auto aborted = committer->Commit(fresh);
  ASSERT_FALSE(aborted.ok());
  EXPECT_NE(aborted.status().message().find("does not exist"), std::string::npos);

  // Prepared for another table.
  auto foreign = fx.WriteMessages(WriteFixture::Batch(20, 5));
  foreign[0].table_path = "/elsewhere/db.db/other";
  auto other = Committer::Make(fx.table()).ValueOrDie()->Commit(foreign);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("prepared for the table at '/elsewhere"),
            std::string::npos);

  EXPECT_EQ(fx.table()->LatestSnapshot().ValueOrDie()->id, 1);
  EXPECT_EQ(fx.ReadAll({"id"})->num_rows(), 10);
}

TEST(CommitterTest, EveryCommitCarriesTheBackfillStateOfTheLatestSnapshot) {
  WriteFixture fx;
  CommitOptions backfill;
  backfill.properties = {{"paimon-rowid.backfill.k", "[[0, 9]]"},
                         {"paimon-rowid.backfill-batch.k", "0-9"},
                         {"other", "x"}};
  ASSERT_OK(Committer::Make(fx.table(), backfill)
                .ValueOrDie()
                ->Commit(fx.WriteMessages(WriteFixture::Batch(0, 10))));
  // A plain commit keeps the progress, not the batch marker nor unrelated properties.
  ASSERT_OK(Committer::Make(fx.table())
                .ValueOrDie()
                ->Commit(fx.WriteMessages(WriteFixture::Batch(10, 5))));
  auto second = fx.table()->LatestSnapshot().ValueOrDie();
  ASSERT_EQ(second->id, 2);
  EXPECT_EQ(second->properties,
            (std::map<std::string, std::string>{{"paimon-rowid.backfill.k", "[[0, 9]]"}}));
  // A commit that sets a key replaces it and still carries the others.
  CommitOptions next;
  next.properties = {{"paimon-rowid.backfill.k", "[[0, 14]]"},
                     {"paimon-rowid.backfill.j", "[[0, 4]]"}};
  ASSERT_OK(Committer::Make(fx.table(), next)
                .ValueOrDie()
                ->Commit(fx.WriteMessages(WriteFixture::Batch(15, 5))));
  ASSERT_OK(Committer::Make(fx.table())
                .ValueOrDie()
                ->Commit(fx.WriteMessages(WriteFixture::Batch(20, 5))));
  EXPECT_EQ(fx.table()->LatestSnapshot().ValueOrDie()->properties,
            (std::map<std::string, std::string>{{"paimon-rowid.backfill.j", "[[0, 4]]"},
                                                {"paimon-rowid.backfill.k", "[[0, 14]]"}}));
}

TEST(CommitterTest, RetriesAfterLosingTheSnapshotRace) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));  // snapshot 1
  auto ours = fx.WriteMessages(WriteFixture::Batch(10, 20));
  auto theirs = fx.WriteMessages(WriteFixture::Batch(30, 5));
  CommitOptions opts;
  int raced = 0;
  opts.before_snapshot_create = [&](int attempt, int64_t id) {
    if (attempt < 2) {
      // Another committer lands snapshot `id` first.
      auto other = Committer::Make(fx.table()).ValueOrDie();
      auto batch = fx.WriteMessages(WriteFixture::Batch(1000 + attempt * 100, 7));
      ASSERT_EQ(other->Commit(batch).ValueOrDie(), id);
      ++raced;
    }
  };
  auto committer = Committer::Make(fx.table(), opts).ValueOrDie();
  auto id = committer->Commit(ours);
  ASSERT_OK(id);
  EXPECT_EQ(**id, 4);
  EXPECT_EQ(raced, 2);
  auto t = fx.ReadAll({"id", "_ROW_ID", "_SEQUENCE_NUMBER"});
  ASSERT_EQ(t->num_rows(), 10 + 7 + 7 + 20);
  EXPECT_EQ(WriteFixture::Int64s(t, "_ROW_ID"), Iota(0, 44));
  auto ids = WriteFixture::Int64s(t, "id");
  auto seqs = WriteFixture::Int64s(t, "_SEQUENCE_NUMBER");
  // Our rows come last, stamped with the snapshot that finally landed.
  for (int i = 24; i < 44; ++i) {
    EXPECT_EQ(ids[i], 10 + (i - 24));
    EXPECT_EQ(seqs[i], 4);
  }
  auto snap = fx.table()->LatestSnapshot().ValueOrDie();
  EXPECT_EQ(snap->next_row_id, 44);
  EXPECT_EQ(snap->total_record_count, 44);
  EXPECT_TRUE(OrphanManifests(*fx.table()).empty());
  (void)theirs;
}

TEST(CommitterTest, FinalFailureRemovesEverything) {
  WriteFixture fx(DeOptions({{"commit.max-retries", "1"}, {"commit.min-retry-wait", "1 ms"}}));
  fx.Append(WriteFixture::Batch(0, 10));
  auto before = WriteFixture::Files(fx.table_path());
  auto msgs = fx.WriteMessages(WriteFixture::Batch(10, 10));
  CommitOptions opts;
  opts.before_snapshot_create = [&](int, int64_t id) {
    // Squat on the snapshot id with a copy of snapshot 1 (as a foreign committer would).
    auto s1 = fx.table()->SnapshotById(1).ValueOrDie();
    s1.id = id;
    ASSERT_OK(fx.table()->file_io()->WriteFileNoReplace(fx.table()->SnapshotPath(id), s1.ToJson()));
  };
  auto committer = Committer::Make(fx.table(), opts).ValueOrDie();
  auto result = committer->Commit(msgs);
  ASSERT_FALSE(result.ok());
  ASSERT_NE(GetErrorKind(result.status()), nullptr);
  EXPECT_EQ(*GetErrorKind(result.status()), ErrorKind::kCommitConflict);
  auto after = WriteFixture::Files(fx.table_path());
  std::vector<std::string> added;
  for (const auto& f : after) {
    if (!std::binary_search(before.begin(), before.end(), f)) added.push_back(f);
  }
  // Only the squatters' snapshot files (and LATEST) are new: no data or manifest files.
  for (const auto& f : added) EXPECT_EQ(f.rfind("snapshot/", 0), 0u) << f;
}

TEST(CommitterTest, AFileSystemRefusingTheCommitIsACommitIOError) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  auto before = WriteFixture::Files(fx.table_path());
  auto msgs = fx.WriteMessages(WriteFixture::Batch(10, 10));
  const std::string dir = fx.table_path() + "/snapshot";
  CommitOptions opts;
  opts.before_snapshot_create = [&](int, int64_t) {
    // The snapshot directory becomes a file: creating snapshot-2 fails with an I/O error.
    std::filesystem::rename(dir, dir + ".away");
    std::ofstream(dir) << "x";
  };
  auto result = Committer::Make(fx.table(), opts).ValueOrDie()->Commit(msgs);
  ASSERT_TRUE(result.status().IsIOError()) << result.status().ToString();
  ASSERT_NE(GetErrorKind(result.status()), nullptr);
  EXPECT_EQ(*GetErrorKind(result.status()), ErrorKind::kCommitIO);
  EXPECT_EQ(result.status().message().rfind("Failed to commit: ", 0), 0u)
      << result.status().message();
  std::filesystem::remove(dir);
  std::filesystem::rename(dir + ".away", dir);
  // Nothing of the commit: snapshot 1 is the latest, no data or manifest file is left.
  EXPECT_EQ(fx.table()->LatestSnapshot().ValueOrDie()->id, 1);
  EXPECT_EQ(WriteFixture::Files(fx.table_path()), before);
  // Other errors keep their kind; an IOError with a kind is left alone.
  EXPECT_EQ(*GetErrorKind(AsCommitIOError(
                MakeKindError(arrow::StatusCode::IOError, ErrorKind::kTableNoPermission, "no"))),
            ErrorKind::kTableNoPermission);
  EXPECT_EQ(GetErrorKind(AsCommitIOError(Status::Invalid("bad"))), nullptr);
}

TEST(CommitterTest, DuplicateCommitIsDetectedOnRetry) {
  WriteFixture fx;
  auto msgs = fx.WriteMessages(WriteFixture::Batch(0, 5));
  CommitOptions opts;
  opts.commit_user = "user-1";
  opts.commit_identifier = 42;
  std::unique_ptr<Committer> twin;
  opts.before_snapshot_create = [&](int attempt, int64_t) {
    if (attempt == 0) {
      // The "same" commit lands through another path first (e.g. an ambiguous earlier try).
      CommitOptions o;
      o.commit_user = "user-1";
      o.commit_identifier = 42;
      auto c = Committer::Make(fx.table(), o).ValueOrDie();
      ASSERT_EQ(c->Commit(fx.WriteMessages(WriteFixture::Batch(100, 1))).ValueOrDie(), 1);
    }
  };
  auto committer = Committer::Make(fx.table(), opts).ValueOrDie();
  EXPECT_EQ(committer->Commit(msgs).ValueOrDie(), 1);
  EXPECT_EQ(fx.table()->ListSnapshotIds().ValueOrDie().size(), 1u);
}

// An update of column `name` for the group [0, 9] planned on snapshot `base`.
std::vector<CommitMessage> NameUpdate(WriteFixture& fx, int64_t base, int64_t rows = 10,
                                      std::string column = "name") {
  auto batch = WriteFixture::Batch(0, rows);
  auto col = batch->schema()->GetFieldIndex(column);
  auto partial = arrow::RecordBatch::Make(arrow::schema({batch->schema()->field(col)}), rows,
                                          {batch->column(col)});
  auto msgs = fx.WriteMessages(partial, std::vector<std::string>{column});
  for (auto& m : msgs) {
    m.check_from_snapshot = base;
    for (auto& f : m.new_files) f.first_row_id = 0;
  }
  return msgs;
}

TEST(ConflictTest, UpdatesOfTheSameColumnConflict) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));  // snapshot 1, rows 0..9
  auto first = NameUpdate(fx, 1);
  auto second = NameUpdate(fx, 1);
  auto other_column = NameUpdate(fx, 1, 10, "dt");
  ASSERT_EQ(Committer::Make(fx.table()).ValueOrDie()->Commit(first).ValueOrDie(), 2);
  auto result = Committer::Make(fx.table()).ValueOrDie()->Commit(second);
  ASSERT_FALSE(result.ok());
  ASSERT_NE(GetErrorKind(result.status()), nullptr);
  EXPECT_EQ(*GetErrorKind(result.status()), ErrorKind::kRowIdConflict);
  // The failed update's files are gone.
  for (const auto& f : second[0].new_files) {
    auto path = DataFilePath(*fx.table(), second[0].partition, 0, f).ValueOrDie();
    EXPECT_FALSE(fx.table()->file_io()->Exists(path).ValueOrDie());
  }
  // A different column does not conflict; next_row_id is unchanged.
  ASSERT_EQ(Committer::Make(fx.table()).ValueOrDie()->Commit(other_column).ValueOrDie(), 3);
  auto snap = fx.table()->LatestSnapshot().ValueOrDie();
  EXPECT_EQ(snap->next_row_id, 10);
  auto t = fx.ReadAll({"id", "_ROW_ID", "_SEQUENCE_NUMBER"});
  EXPECT_EQ(WriteFixture::Int64s(t, "_ROW_ID"), Iota(0, 10));
}

TEST(ConflictTest, RowIdExistence) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 10));
  auto wrong_range = NameUpdate(fx, 1, 7);  // 7 rows for a 10-row group
  auto result = Committer::Make(fx.table()).ValueOrDie()->Commit(wrong_range);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(*GetErrorKind(result.status()), ErrorKind::kRowIdConflict);
  EXPECT_OK(Committer::Make(fx.table()).ValueOrDie()->Commit(NameUpdate(fx, 1)));
}

}  // namespace

TEST(CommitterTest, RecommitsWhenACheckThenRenameWriterReplacesOurSnapshot) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 5));
  auto msgs = fx.WriteMessages(WriteFixture::Batch(100, 3));
  CommitOptions opts;
  opts.after_snapshot_create = [&](int attempt, int64_t id) {
    if (attempt != 0) return;
    // Another engine renames its own snapshot-N over ours (rename replaces).
    auto foreign = fx.table()->SnapshotById(1).ValueOrDie();
    foreign.id = id;
    foreign.uuid = "foreign";
    foreign.commit_user = "someone-else";
    std::string path = fx.table()->SnapshotPath(id);
    ASSERT_OK(fx.table()->file_io()->WriteFile(path, foreign.ToJson()));
  };
  auto committer = Committer::Make(fx.table(), opts).ValueOrDie();
  auto id = committer->Commit(msgs);
  ASSERT_OK(id);
  EXPECT_EQ(**id, 3);  // snapshot 2 was taken over; ours landed again as 3
  auto ids = WriteFixture::Int64s(fx.ReadAll({"id"}), "id");
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 100), 1);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 102), 1);
}

static std::vector<ManifestFileMeta> ListedManifests(const Table& table, const std::string& list) {
  return DecodeManifestList(table.file_io()->ReadFile(table.ManifestPath(list)).ValueOrDie())
      .ValueOrDie();
}

// The manifests of a snapshot's lists, base list first.
std::vector<ManifestFileMeta> SnapshotManifests(const Table& table, const Snapshot& s) {
  auto out = ListedManifests(table, s.base_manifest_list);
  auto delta = ListedManifests(table, s.delta_manifest_list);
  out.insert(out.end(), delta.begin(), delta.end());
  return out;
}

TEST(ManifestCacheTest, SharesEntriesWhileTheBytesStayTheSame) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 4));
  fx.Append(WriteFixture::Batch(4, 4));
  const Table& table = *fx.table();
  auto manifests = SnapshotManifests(table, *table.LatestSnapshot().ValueOrDie());
  ASSERT_EQ(manifests.size(), 2u);
  const std::string a = table.ManifestPath(manifests[0].file_name);
  const std::string b = table.ManifestPath(manifests[1].file_name);
  auto bytes_a = table.file_io()->ReadFile(a).ValueOrDie();
  auto bytes_b = table.file_io()->ReadFile(b).ValueOrDie();

  ManifestCache cache;
  ASSERT_OK_AND_ASSIGN(auto first, cache.Decode(a, bytes_a));
  EXPECT_EQ(*first, DecodeManifest(bytes_a).ValueOrDie());
  // A fresh read of the same bytes is a hit: the same decoded entries.
  auto again_bytes = table.file_io()->ReadFile(a).ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto second, cache.Decode(a, again_bytes));
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(cache.stats().hits, 1);
  EXPECT_EQ(cache.stats().misses, 1);
  EXPECT_EQ(cache.stats().manifests, 1);

  // Other bytes at the same path (the file was replaced) decode anew.
  ASSERT_OK_AND_ASSIGN(auto replaced, cache.Decode(a, bytes_b));
  EXPECT_NE(replaced.get(), first.get());
  EXPECT_EQ(*replaced, DecodeManifest(bytes_b).ValueOrDie());
  EXPECT_EQ(cache.stats().misses, 2);
  EXPECT_EQ(cache.stats().manifests, 1);

  // Corrupt bytes fail as an uncached decode does, and the cached bytes still hit.
  std::string corrupt = bytes_b->ToString();
  corrupt[corrupt.size() / 2] ^= 0x5a;
  auto decoded_corrupt = DecodeManifest(arrow::Buffer::FromString(corrupt));
  auto cached_corrupt = cache.Decode(a, arrow::Buffer::FromString(corrupt));
  EXPECT_EQ(cached_corrupt.ok(), decoded_corrupt.ok());
  if (!decoded_corrupt.ok()) {
    EXPECT_EQ(cached_corrupt.status().code(), decoded_corrupt.status().code());
  }
  ASSERT_OK_AND_ASSIGN(auto after, cache.Decode(a, bytes_b));
  if (decoded_corrupt.ok()) {
    EXPECT_EQ(*after, DecodeManifest(bytes_b).ValueOrDie());
  } else {
    EXPECT_EQ(after.get(), replaced.get());
  }
}

TEST(ManifestCacheTest, EvictsTheLeastRecentlyUsedBeyondItsCapacity) {
  WriteFixture fx;
  for (int64_t c = 0; c < 3; ++c) fx.Append(WriteFixture::Batch(c * 4, 4));
  const Table& table = *fx.table();
  auto manifests = SnapshotManifests(table, *table.LatestSnapshot().ValueOrDie());
  ASSERT_EQ(manifests.size(), 3u);
  std::vector<std::string> paths;
  std::vector<std::shared_ptr<arrow::Buffer>> bytes;
  for (const auto& m : manifests) {
    paths.push_back(table.ManifestPath(m.file_name));
    bytes.push_back(table.file_io()->ReadFile(paths.back()).ValueOrDie());
  }
  ManifestCache probe;
  ASSERT_OK(probe.Decode(paths[0], bytes[0]).status());
  const int64_t one = probe.stats().bytes;
  ASSERT_GT(one, bytes[0]->size());  // the file's bytes and the decoded entries

  ManifestCache cache(one * 2 + one / 2);  // room for two of the three
  for (size_t i = 0; i < 3; ++i) ASSERT_OK(cache.Decode(paths[i], bytes[i]).status());
  EXPECT_EQ(cache.stats().manifests, 2);
  EXPECT_LE(cache.stats().bytes, cache.capacity());
  ASSERT_OK(cache.Decode(paths[2], bytes[2]).status());  // kept: a hit
  EXPECT_EQ(cache.stats().hits, 1);
  ASSERT_OK(cache.Decode(paths[0], bytes[0]).status());  // evicted first: decoded again
  EXPECT_EQ(cache.stats().misses, 4);

  cache.SetCapacity(0);  // nothing held, nothing kept
  EXPECT_EQ(cache.stats().manifests, 0);
  EXPECT_EQ(cache.stats().bytes, 0);
  ASSERT_OK(cache.Decode(paths[1], bytes[1]).status());
  EXPECT_EQ(cache.stats().manifests, 0);
}

TEST(ManifestCacheTest, LiveEntriesAreDecodedOnceAndACorruptedManifestStillFails) {
  WriteFixture fx;
  fx.Append(WriteFixture::Batch(0, 4));
  fx.Append(WriteFixture::Batch(4, 4));
  const Table& table = *fx.table();
  Snapshot s = *table.LatestSnapshot().ValueOrDie();
  ManifestCache* cache = ManifestCache::Default();
  ASSERT_OK_AND_ASSIGN(auto live, ReadLiveEntries(table, s, nullptr));
  ASSERT_EQ(live.size(), 2u);
  const auto before = cache->stats();
  ASSERT_OK_AND_ASSIGN(auto again, ReadLiveEntries(table, s, nullptr));
  EXPECT_EQ(again, live);
  EXPECT_EQ(cache->stats().hits - before.hits, 2);
  EXPECT_EQ(cache->stats().misses - before.misses, 0);

  // Truncate one manifest: the read fails as it would without a cache.
  const std::string path = table.ManifestPath(SnapshotManifests(table, s)[0].file_name);
  std::string bytes = table.file_io()->ReadFile(path).ValueOrDie()->ToString();
  ASSERT_OK(table.file_io()->WriteFile(path, bytes.substr(0, bytes.size() / 2)));
  EXPECT_FALSE(ReadLiveEntries(table, s, nullptr).ok());
  ASSERT_OK(table.file_io()->WriteFile(path, bytes));
  ASSERT_OK_AND_ASSIGN(auto restored, ReadLiveEntries(table, s, nullptr));
  EXPECT_EQ(restored, live);
}

TEST(ManifestMergeTest, SmallManifestsAreMergedOnceEnoughAccumulate) {
  WriteFixture fx(DeOptions({{"manifest.merge-min-count", "3"}}));
  for (int64_t c = 0; c < 8; ++c) {
    fx.Append(WriteFixture::Batch(c * 2, 2));
    Snapshot s = *fx.table()->LatestSnapshot().ValueOrDie();
    auto base = ListedManifests(*fx.table(), s.base_manifest_list);
    // Without merging the base list of snapshot n holds n-1 manifests.
    EXPECT_LT(base.size(), 3u) << "snapshot " << s.id;
    // The snapshot still reads every row, in row-id order.
    auto all = fx.ReadAll({"id", "_ROW_ID"});
    EXPECT_EQ(WriteFixture::Int64s(all, "id"), Iota(0, (c + 1) * 2));
    EXPECT_EQ(WriteFixture::Int64s(all, "_ROW_ID"), Iota(0, (c + 1) * 2));
  }
  Snapshot s4 = fx.table()->SnapshotById(4).ValueOrDie();
  auto merged = ListedManifests(*fx.table(), s4.base_manifest_list);
  ASSERT_EQ(merged.size(), 1u);  // snapshots 1..3 folded into one manifest
  EXPECT_EQ(merged[0].num_added_files, 3);
  EXPECT_EQ(merged[0].min_row_id, 0);
  EXPECT_EQ(merged[0].max_row_id, 5);
  EXPECT_TRUE(OrphanManifests(*fx.table()).empty());
}

TEST(ManifestMergeTest, FoldsAddAndDeleteInsideTheRunAndKeepsOtherDeletes) {
  WriteFixture fx;
  const Table& table = *fx.table();
  auto entry = [](FileKind kind, const std::string& name) {
    ManifestEntry e;
    e.kind = kind;
    e.partition = SimpleStats::Empty().min_values;  // an empty BinaryRow
    e.file.file_name = name;
    e.file.row_count = 1;
    e.file.first_row_id = 0;
    return e;
  };
  ManifestWriteOptions opts;
  std::vector<std::string> written;
  std::vector<ManifestEntry> many;
  for (int i = 0; i < 200; ++i) many.push_back(entry(FileKind::kAdd, "old-" + std::to_string(i)));
  auto big = WriteManifests(table, many, opts, &written).ValueOrDie();
  std::vector<ManifestFileMeta> metas = big;
  for (const auto& part : std::vector<std::vector<ManifestEntry>>{
           {entry(FileKind::kAdd, "a"), entry(FileKind::kAdd, "b")},
           {entry(FileKind::kDelete, "a")},
           {entry(FileKind::kDelete, "old-7"), entry(FileKind::kAdd, "c")}}) {
    auto m = WriteManifests(table, part, opts, &written).ValueOrDie();
    metas.insert(metas.end(), m.begin(), m.end());
  }
  opts.target_file_size = big[0].file_size;  // the big manifest is not small; the run is 3 long
  opts.merge_min_count = 3;
  auto out = MergeSmallManifests(table, metas, opts, &written).ValueOrDie();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], big[0]);
  EXPECT_EQ(out[1].num_added_files, 2);
  EXPECT_EQ(out[1].num_deleted_files, 1);
  auto entries =
      DecodeManifest(table.file_io()->ReadFile(table.ManifestPath(out[1].file_name)).ValueOrDie())
          .ValueOrDie();
  std::vector<std::string> got;
  for (const auto& e : entries) {
    got.push_back((e.kind == FileKind::kAdd ? "+" : "-") + e.file.file_name);
  }
  EXPECT_EQ(got, (std::vector<std::string>{"+b", "-old-7", "+c"}));
  // A run shorter than the minimum is left alone.
  opts.merge_min_count = 4;
  EXPECT_EQ(MergeSmallManifests(table, metas, opts, &written).ValueOrDie(), metas);
}

namespace {

ManifestEntry DataEntry(const std::string& file, FileKind kind = FileKind::kAdd) {
  ManifestEntry e;
  e.kind = kind;
  e.file.file_name = file;
  e.file.row_count = 10;
  return e;
}

// An index file of bucket 0 holding one deletion vector per data file in `keyed`.
IndexManifestEntry VectorsFile(const std::string& name, const std::vector<std::string>& keyed) {
  IndexManifestEntry e;
  e.index_type = kDeletionVectorsIndex;
  e.file_name = name;
  std::vector<DeletionVectorRange> ranges;
  for (const auto& f : keyed) ranges.push_back(DeletionVectorRange{f, 0, 8, 1});
  e.dv_ranges = ranges;
  return e;
}

bool IsConflict(const Status& st) {
  return !st.ok() && GetErrorKind(st) && *GetErrorKind(st) == ErrorKind::kCommitConflict;
}

TEST(CommitDeltaTest, DeltaOfMessagesKeepsTheOldestBaseSnapshot) {
  CommitMessage a;
  a.partition = "p";
  a.bucket = 3;
  a.new_files.push_back(DataEntry("new").file);
  a.deleted_files.push_back(DataEntry("old").file);
  a.check_from_snapshot = 7;
  CommitMessage b;
  b.new_index_files.push_back(VectorsFile("idx", {"new"}));
  b.check_from_snapshot = 5;
  const CommitDelta delta = DeltaOf({a, b});
  ASSERT_EQ(delta.entries.size(), 2u);
  EXPECT_EQ(delta.entries[0].kind, FileKind::kAdd);
  EXPECT_EQ(delta.entries[1].kind, FileKind::kDelete);
  EXPECT_EQ(delta.entries[1].bucket, 3);
  EXPECT_EQ(delta.entries[1].partition, "p");
  EXPECT_TRUE(delta.deletes_files());
  EXPECT_TRUE(delta.changes_index());
  EXPECT_EQ(delta.check_from, 5);
  EXPECT_TRUE(DeltaOf({}).empty());
}

TEST(CommitDeltaTest, DataFilesAgainstTheLatestSnapshot) {
  const std::vector<ManifestEntry> live = {DataEntry("d1"), DataEntry("d2")};
  // Adding a live file again: the messages were committed before (no conflict kind).
  Status twice = CheckNotCommitted(live, {DataEntry("d2")}, 4);
  EXPECT_TRUE(twice.IsInvalid());
  EXPECT_EQ(GetErrorKind(twice), nullptr);
  EXPECT_NE(twice.message().find("snapshot 4"), std::string::npos) << twice.message();
  EXPECT_OK(CheckNotCommitted(live, {DataEntry("d3")}, 4));
  // Replacing a file that is no longer live: a conflict.
  EXPECT_OK(CheckDeletesLive(live, {DataEntry("d1", FileKind::kDelete)}, 4));
  EXPECT_TRUE(IsConflict(CheckDeletesLive(live, {DataEntry("gone", FileKind::kDelete)}, 4)));
}

TEST(CommitDeltaTest, DeletionVectorChangesAgainstTheLatestSnapshot) {
  const std::vector<ManifestEntry> live = {DataEntry("d1"), DataEntry("d2")};
  const std::vector<IndexManifestEntry> live_index = {VectorsFile("idx1", {"d1"})};
  CommitDelta replace;  // a delete that rewrites d1's vector and adds one for d2
  replace.index_deletes = {VectorsFile("idx1", {"d1"})};
  replace.index_adds = {VectorsFile("idx2", {"d1", "d2"})};
  ASSERT_OK(CheckIndexChanges(live, live_index, replace, 4));
  auto after = ApplyIndexChanges(live_index, replace);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].file_name, "idx2");

  CommitDelta stale = replace;  // planned on an index file a concurrent delete replaced
  stale.index_deletes = {VectorsFile("idx0", {"d1"})};
  EXPECT_TRUE(IsConflict(CheckIndexChanges(live, live_index, stale, 4)));

  CommitDelta second;  // a second vector for d1 while idx1's survives
  second.index_adds = {VectorsFile("idx2", {"d1"})};
  EXPECT_TRUE(IsConflict(CheckIndexChanges(live, live_index, second, 4)));

  CommitDelta orphan;  // a vector for a data file a compaction replaced
  orphan.index_adds = {VectorsFile("idx2", {"gone"})};
  EXPECT_TRUE(IsConflict(CheckIndexChanges(live, live_index, orphan, 4)));

  CommitDelta compaction;  // replaces d1, whose deleted rows would come back
  compaction.entries = {DataEntry("d1", FileKind::kDelete), DataEntry("d1c")};
  EXPECT_TRUE(IsConflict(CheckIndexChanges(live, live_index, compaction, 4)));
  compaction.entries = {DataEntry("d2", FileKind::kDelete), DataEntry("d2c")};
  EXPECT_OK(CheckIndexChanges(live, live_index, compaction, 4));

  CommitDelta again;  // the same index file committed twice: not a conflict, a repeat
  again.index_adds = {VectorsFile("idx1", {"d1"})};
  Status repeat = CheckIndexChanges(live, live_index, again, 4);
  EXPECT_TRUE(repeat.IsInvalid());
  EXPECT_EQ(GetErrorKind(repeat), nullptr);
}

}  // namespace

}  // namespace paimon_rowid
