// The committer's INSERT OVERWRITE (commit/overwrite.h); the Python suite
// (tests/test_overwrite.py) checks the semantics against pypaimon.
#include "paimon_rowid/commit/overwrite.h"

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "paimon_rowid/commit/committer.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

using testing::DeOptions;
using testing::OrphanManifests;
using testing::WriteFixture;

std::shared_ptr<const Predicate> DtIs(const std::string& value) {
  arrow::StringBuilder literal;
  EXPECT_OK(literal.Append(value));
  return Predicate::Leaf(Predicate::Op::kEqual, "dt", literal.Finish().ValueOrDie()).ValueOrDie();
}

// A static overwrite of partition dt='a' that loses the snapshot race to an append into 'a'
// and 'b': the retry replaces the files of the snapshot it lands on, the racer's 'a' rows
// included, and numbers its own rows after the racer's.
TEST(CommitterTest, OverwriteRecomputesItsDeletesOnEveryAttempt) {
  WriteFixture fx(DeOptions(), {"dt"});
  fx.Append(WriteFixture::Batch(0, 6, {"a", "b"}));  // snapshot 1: ids 0..5
  auto ours = fx.WriteMessages(WriteFixture::Batch(100, 2, {"a"}));
  CommitOptions opts;
  opts.overwrite.emplace();
  opts.overwrite->partitions = DtIs("a");
  opts.before_snapshot_create = [&](int attempt, int64_t id) {
    if (attempt == 0) {
      auto other = Committer::Make(fx.table()).ValueOrDie();
      ASSERT_EQ(
          other->Commit(fx.WriteMessages(WriteFixture::Batch(200, 4, {"a", "b"}))).ValueOrDie(),
          id);
    }
  };
  auto committer = Committer::Make(fx.table(), opts).ValueOrDie();
  ASSERT_EQ(committer->Commit(ours).ValueOrDie(), 3);
  auto snap = fx.table()->LatestSnapshot().ValueOrDie();
  EXPECT_EQ(snap->commit_kind, "OVERWRITE");
  EXPECT_EQ(snap->total_record_count, 3 + 2 + 2);  // b: 1, 3, 5, 201, 203; a: 100, 101
  EXPECT_EQ(snap->next_row_id, 12);
  auto t = fx.ReadAll({"id", "_ROW_ID"});
  EXPECT_EQ(WriteFixture::Int64s(t, "id"), (std::vector<int64_t>{1, 3, 5, 201, 203, 100, 101}));
  // One file per partition and write: a = rows 0..2 and 6..7, b = rows 3..5 and 8..9.
  EXPECT_EQ(WriteFixture::Int64s(t, "_ROW_ID"), (std::vector<int64_t>{3, 4, 5, 8, 9, 10, 11}));
}

TEST(CommitterTest, OverwriteRefusesNewFilesOutsideItsPartitions) {
  WriteFixture fx(DeOptions(), {"dt"});
  fx.Append(WriteFixture::Batch(0, 4, {"a", "b"}));
  auto before = WriteFixture::Files(fx.table_path());
  auto ours = fx.WriteMessages(WriteFixture::Batch(100, 2, {"a", "c"}));
  CommitOptions opts;
  opts.overwrite.emplace();
  opts.overwrite->partitions = DtIs("a");
  opts.overwrite->description = "dt=a";
  auto result = Committer::Make(fx.table(), opts).ValueOrDie()->Commit(ours);
  ASSERT_RAISES(ExecutionError, result);
  EXPECT_NE(result.status().message().find("Trying to overwrite partition dt=a, but the changes "
                                           "in partition 'dt=c'"),
            std::string::npos);
  EXPECT_EQ(WriteFixture::Files(fx.table_path()), before);
  // A dynamic overwrite replaces the partitions it writes: 'a' and 'c' ('c' is new).
  opts.overwrite->partitions = nullptr;
  opts.overwrite->dynamic = true;
  ours = fx.WriteMessages(WriteFixture::Batch(100, 2, {"a", "c"}));
  ASSERT_EQ(Committer::Make(fx.table(), opts).ValueOrDie()->Commit(ours).ValueOrDie(), 2);
  auto t = fx.ReadAll({"id"});
  EXPECT_EQ(WriteFixture::Int64s(t, "id"), (std::vector<int64_t>{1, 3, 100, 101}));
  // With no data it commits nothing.
  EXPECT_EQ(Committer::Make(fx.table(), opts).ValueOrDie()->Commit({}).ValueOrDie(), std::nullopt);
}

// A truncate (skip_if_unchanged) whose first attempt loses to another truncate of the same
// partition: the retry finds nothing to delete, makes no snapshot and leaves no manifest.
TEST(CommitterTest, TruncateThatFindsNothingOnItsRetryCommitsNothing) {
  WriteFixture fx(DeOptions(), {"dt"});
  fx.Append(WriteFixture::Batch(0, 4, {"a", "b"}));
  CommitOptions opts;
  opts.overwrite.emplace();
  opts.overwrite->partitions = DtIs("a");
  opts.overwrite->skip_if_unchanged = true;
  CommitOptions racer = opts;
  opts.before_snapshot_create = [&](int attempt, int64_t id) {
    if (attempt == 0) {
      ASSERT_EQ(Committer::Make(fx.table(), racer).ValueOrDie()->Commit({}).ValueOrDie(), id);
    }
  };
  EXPECT_EQ(Committer::Make(fx.table(), opts).ValueOrDie()->Commit({}).ValueOrDie(), std::nullopt);
  EXPECT_EQ(fx.table()->LatestSnapshot().ValueOrDie()->id, 2);
  EXPECT_EQ(OrphanManifests(*fx.table()), std::vector<std::string>{});
  EXPECT_EQ(WriteFixture::Int64s(fx.ReadAll({"id"}), "id"), (std::vector<int64_t>{1, 3}));
}

TEST(CommitterTest, OverwriteFilterReadsPartitionKeysOnly) {
  WriteFixture fx(DeOptions(), {"dt"});
  arrow::StringBuilder literal;
  ASSERT_OK(literal.Append("name-1"));
  CommitOptions opts;
  opts.overwrite.emplace();
  opts.overwrite->partitions =
      Predicate::Leaf(Predicate::Op::kEqual, "name", literal.Finish().ValueOrDie()).ValueOrDie();
  auto result = Committer::Make(fx.table(), opts)
                    .ValueOrDie()
                    ->Commit(fx.WriteMessages(WriteFixture::Batch(0, 2)));
  ASSERT_RAISES(Invalid, result);
  EXPECT_NE(result.status().message().find("reads 'name', which is not a partition key"),
            std::string::npos);
  EXPECT_EQ(fx.table()->LatestSnapshot().ValueOrDie(), std::nullopt);
  // Dynamic mode takes no filter.
  opts.overwrite->dynamic = true;
  EXPECT_RAISES(Invalid, Committer::Make(fx.table(), opts));
}

}  // namespace
}  // namespace paimon_rowid
