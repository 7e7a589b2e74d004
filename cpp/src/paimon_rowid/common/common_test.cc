#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <string>

#include "paimon_rowid/common/identifier.h"
#include "paimon_rowid/common/options.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {

TEST(IdentifierTest, ParsesAndValidates) {
  auto id = Identifier::Parse("db.tbl");
  ASSERT_OK(id);
  EXPECT_EQ(id->database, "db");
  EXPECT_EQ(id->table, "tbl");
  for (const char* bad :
       {"nodot", ".t", "d.", "../x.t", "d./etc", "d.a/b", "..", "d...", "d.t\x01"}) {
    EXPECT_RAISES(Invalid, Identifier::Parse(bad)) << bad;
  }
}

TEST(OptionsTest, TypedGetters) {
  Options o({{"a", "true"}, {"n", "12"}, {"s", "256 mb"}, {"d", "10 s"}, {"bad", "x"}});
  EXPECT_TRUE(*o.GetBool("a", false));
  EXPECT_EQ(*o.GetInt("n", 0), 12);
  EXPECT_EQ(*o.GetInt("missing", 7), 7);
  EXPECT_EQ(*o.GetMemorySize("s", 0), 256LL << 20);
  EXPECT_EQ(*o.GetDurationMillis("d", 0), 10000);
  EXPECT_RAISES(Invalid, o.GetInt("bad", 0));
  EXPECT_RAISES(Invalid, o.GetBool("bad", false));
}

TEST(UuidTest, Format) {
  std::string u = RandomUuid();
  EXPECT_EQ(u.size(), 36u);
  EXPECT_EQ(u[14], '4');
  EXPECT_NE(u, RandomUuid());
}

// Children of one parent that already drew names draw names of their own: fork(2) copies the
// generator's state, which must not be used again in a child.
TEST(UuidTest, ForkedChildrenDrawTheirOwnNames) {
  (void)RandomUuid();  // the parent's generator is seeded and has been used
  constexpr int kChildren = 4;
  std::set<std::string> names;
  for (int i = 0; i < kChildren; ++i) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      std::string mine = RandomUuid() + RandomUuid();
      ssize_t n = ::write(fds[1], mine.data(), mine.size());
      ::_exit(n == static_cast<ssize_t>(mine.size()) ? 0 : 1);
    }
    ::close(fds[1]);
    char buf[72];
    size_t got = 0;
    while (got < sizeof(buf)) {
      ssize_t n = ::read(fds[0], buf + got, sizeof(buf) - got);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    ::close(fds[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_EQ(got, sizeof(buf));
    names.insert(std::string(buf, 36));
    names.insert(std::string(buf + 36, 36));
  }
  names.insert(RandomUuid());
  names.insert(RandomUuid());
  EXPECT_EQ(names.size(), static_cast<size_t>(2 * kChildren + 2));
}

}  // namespace paimon_rowid

#include "paimon_rowid/common/row_range.h"

namespace paimon_rowid {

TEST(RowRangeTest, SortMergeIntersect) {
  auto merged = SortAndMerge({{10, 12}, {0, 3}, {4, 5}, {11, 20}, {30, 30}});
  ASSERT_EQ(merged.size(), 3u);
  EXPECT_EQ(merged[0], (RowRange{0, 5}));
  EXPECT_EQ(merged[1], (RowRange{10, 20}));
  EXPECT_EQ(merged[2], (RowRange{30, 30}));
  auto strict = SortAndMerge({{0, 3}, {4, 5}}, /*merge_adjacent=*/false);
  EXPECT_EQ(strict.size(), 2u);
  auto in = IntersectRanges(merged, 3, 15);
  ASSERT_EQ(in.size(), 2u);
  EXPECT_EQ(in[0], (RowRange{3, 5}));
  EXPECT_EQ(in[1], (RowRange{10, 15}));
  EXPECT_TRUE(AnyOverlap(merged, 20, 25));
  EXPECT_FALSE(AnyOverlap(merged, 21, 29));
  EXPECT_FALSE(AnyOverlap({}, 0, 100));
}

TEST(RowRangeTest, SubtractValues) {
  std::vector<RowRange> ranges{{0, 4}, {10, 12}};
  EXPECT_EQ(SubtractValues(ranges, {}), ranges);
  EXPECT_EQ(SubtractValues(ranges, {0, 2, 4, 5, 11}),
            (std::vector<RowRange>{{1, 1}, {3, 3}, {10, 10}, {12, 12}}));
  EXPECT_EQ(SubtractValues(ranges, {10, 11, 12}), (std::vector<RowRange>{{0, 4}}));
  EXPECT_TRUE(SubtractValues({{3, 3}}, {3}).empty());
}

TEST(RowRangeTest, ParseJson) {
  auto ranges = ParseRowRangesJson("[[0, 19], [40, 40]]");
  ASSERT_OK(ranges);
  ASSERT_EQ(ranges->size(), 2u);
  EXPECT_EQ((*ranges)[0], (RowRange{0, 19}));
  EXPECT_EQ((*ranges)[1], (RowRange{40, 40}));
  EXPECT_TRUE(ParseRowRangesJson("[]").ValueOrDie().empty());
  for (const char* bad : {"", "{}", "[[1]]", "[[1, 2, 3]]", "[[1, \"2\"]]", "[[1.5, 2]]",
                          "[[0, 18446744073709551615]]", "not json"}) {
    EXPECT_TRUE(ParseRowRangesJson(bad).status().IsInvalid()) << bad;
  }
  EXPECT_EQ(ParseRowRangesJson("[[3, 2]]").status().message(), "Invalid range: from (3) > to (2)");
}

}  // namespace paimon_rowid
