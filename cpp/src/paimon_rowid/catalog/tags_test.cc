#include "paimon_rowid/catalog/tags.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

#include "paimon_rowid/catalog/catalog.h"
#include "paimon_rowid/common/clock.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"

namespace paimon_rowid {
namespace {

// A table with snapshots 1 and 2 (hand-written: tags need only the snapshot files).
class TagsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog_ = Catalog::Make({{"warehouse", tmp_.path()}}).ValueOrDie();
    ASSERT_OK(catalog_->CreateDatabase("db", false));
    TableSchema schema;
    schema.fields = AssignFieldIds(
        {{-1, "id", DataType::Parse("BIGINT").ValueOrDie(), std::nullopt, std::nullopt}});
    ASSERT_OK(catalog_->CreateTable("db.t", schema, false));
    table_ = catalog_->GetTable("db.t").ValueOrDie();
    empty_ = table_;
    for (int64_t id = 1; id <= 2; ++id) {
      Snapshot s;
      s.id = id;
      s.base_manifest_list = "manifest-list-base-" + std::to_string(id);
      s.delta_manifest_list = "manifest-list-delta-" + std::to_string(id);
      s.commit_user = "u";
      s.time_millis = id * 1000;
      ASSERT_OK(io().WriteFileNoReplace(table_->SnapshotPath(id), s.ToJson()));
    }
  }
  const FileIO& io() const { return *catalog_->file_io(); }
  std::string Text(const std::string& tag) {
    return io().ReadText(table_->TagPath(tag)).ValueOrDie();
  }

  testing::TempDir tmp_;
  std::shared_ptr<Catalog> catalog_;
  std::shared_ptr<Table> table_, empty_;
};

void ExpectInvalid(const Status& st, const std::string& message) {
  EXPECT_TRUE(st.IsInvalid()) << st.ToString();
  EXPECT_EQ(st.message(), message);
}

// java.time.Duration's toString, as a REST server answers a tag's retention.
TEST(IsoDurationTest, JavaDurationTextAndErrors) {
  EXPECT_EQ(IsoDurationNanos("PT24H").ValueOrDie(), 86400000000000LL);
  EXPECT_EQ(IsoDurationNanos("PT1H30M").ValueOrDie(), 5400000000000LL);
  EXPECT_EQ(IsoDurationNanos("PT0.5S").ValueOrDie(), 500000000LL);
  EXPECT_EQ(IsoDurationNanos("PT0.000000007S").ValueOrDie(), 7);
  EXPECT_EQ(IsoDurationNanos("P2DT3H").ValueOrDie(), (48 + 3) * 3600000000000LL);
  EXPECT_EQ(IsoDurationNanos("PT-1S").ValueOrDie(), -1000000000LL);
  EXPECT_EQ(IsoDurationNanos("-PT1M").ValueOrDie(), -60000000000LL);
  for (const char* bad :
       {"", "P", "PT", "24H", "PT1D", "P1H", "PTT1H", "PT1X", "PT1", "1 d", "P999999999999D"}) {
    EXPECT_TRUE(IsoDurationNanos(bad).status().IsInvalid()) << bad;
  }
}

TEST(ParseDurationTest, JavaUnitsAndErrors) {
  EXPECT_EQ(ParseDurationNanos("1d").ValueOrDie(), 86400000000000LL);
  EXPECT_EQ(ParseDurationNanos(" 12 H ").ValueOrDie(), 12 * 3600000000000LL);
  EXPECT_EQ(ParseDurationNanos("30 min").ValueOrDie(), 30 * 60000000000LL);
  EXPECT_EQ(ParseDurationNanos("500").ValueOrDie(), 500000000LL);  // bare = ms
  EXPECT_EQ(ParseDurationNanos("7ns").ValueOrDie(), 7);
  EXPECT_TRUE(ParseDurationNanos("").status().IsInvalid());
  EXPECT_TRUE(ParseDurationNanos("d").status().IsInvalid());
  EXPECT_TRUE(ParseDurationNanos("-1d").status().IsInvalid());
  EXPECT_TRUE(ParseDurationNanos("3 weeks").status().IsInvalid());
  EXPECT_TRUE(ParseDurationNanos("99999999999999999999").status().IsInvalid());
  EXPECT_TRUE(ParseDurationNanos("9999999999d").status().IsInvalid());
}

TEST_F(TagsTest, CreateWritesPlainSnapshotJsonWithoutRetention) {
  ASSERT_OK(CreateTag(*table_, "a", 1, false, std::nullopt));
  EXPECT_EQ(Text("a"), table_->SnapshotById(1).ValueOrDie().ToJson());
  ASSERT_OK(CreateTag(*table_, "latest", std::nullopt, false, std::nullopt));
  EXPECT_EQ(table_->TagByName("latest").ValueOrDie().snapshot.id, 2);
  ASSERT_OK(CreateTag(*table_, "ttl", 1, false, std::string("1 d")));
  Tag ttl = table_->TagByName("ttl").ValueOrDie();
  ASSERT_TRUE(ttl.tag_create_time_json && ttl.tag_time_retained);
  EXPECT_NE(Text("ttl").find("\"tagTimeRetained\" : 86400"), std::string::npos) << Text("ttl");
  EXPECT_EQ(table_->ListTags().ValueOrDie(), (std::vector<std::string>{"a", "latest", "ttl"}));
  TagTimes times = TagTimesOf(ttl).ValueOrDie();
  EXPECT_EQ(times.time_retained_nanos, 86400000000000LL);
  ASSERT_TRUE(times.create_time_millis);
  EXPECT_LT(std::llabs(*times.create_time_millis - NowMillis()), 60000);
  Tag java;  // Java's forms: trailing zero parts omitted, Duration with nanos
  java.tag_create_time_json = "[2026,1,2,3,4]";
  java.tag_time_retained = "1.500000000";
  times = TagTimesOf(java).ValueOrDie();
  EXPECT_EQ(times.time_retained_nanos, 1500000000LL);
  std::tm local{};
  local.tm_year = 126;
  local.tm_mon = 0;
  local.tm_mday = 2;
  local.tm_hour = 3;
  local.tm_min = 4;
  local.tm_isdst = -1;
  EXPECT_EQ(times.create_time_millis, static_cast<int64_t>(mktime(&local)) * 1000);
  EXPECT_FALSE(TagTimesOf(Tag{}).ValueOrDie().create_time_millis);
}

TEST_F(TagsTest, CreateRefusals) {
  ExpectInvalid(CreateTag(*table_, "x", 9, false, std::nullopt),
                "Snapshot with id 9 doesn't exist.");
  ExpectInvalid(CreateTag(*table_, "  ", 1, false, std::nullopt), "Tag name shouldn't be blank.");
  ASSERT_FALSE(CreateTag(*table_, "a/b", 1, false, std::nullopt).ok());
  Status bad_ttl = CreateTag(*table_, "x", 1, false, std::string("1 fortnight"));
  EXPECT_TRUE(bad_ttl.IsInvalid());
  EXPECT_EQ(bad_ttl.message().rfind("Time interval unit label 'fortnight'", 0), 0u);
  EXPECT_TRUE(table_->ListTags().ValueOrDie().empty());
  ASSERT_OK(CreateTag(*table_, "a", 1, false, std::nullopt));
  ExpectInvalid(CreateTag(*table_, "a", 2, false, std::nullopt), "Tag 'a' already exists.");
  ASSERT_OK(CreateTag(*table_, "a", 2, true, std::nullopt));
  EXPECT_EQ(table_->TagByName("a").ValueOrDie().snapshot.id, 1);  // not replaced
  EXPECT_EQ(table_->ListTags().ValueOrDie(), std::vector<std::string>{"a"});
}

TEST_F(TagsTest, CreateOnATableWithoutSnapshots) {
  ASSERT_OK(catalog_->CreateTable("db.e", table_->schema(), false));
  auto e = catalog_->GetTable("db.e").ValueOrDie();
  ExpectInvalid(CreateTag(*e, "a", std::nullopt, false, std::nullopt),
                "No snapshot exists in this table.");
  ExpectInvalid(ReplaceTag(*e, "a", std::nullopt, std::nullopt),
                "Cannot replace tag because latest snapshot doesn't exist.");
}

TEST_F(TagsTest, ReplaceRenameDelete) {
  ASSERT_OK(CreateTag(*table_, "a", 1, false, std::nullopt));
  ASSERT_OK(ReplaceTag(*table_, "a", std::nullopt, std::nullopt));
  EXPECT_EQ(table_->TagByName("a").ValueOrDie().snapshot.id, 2);
  ExpectInvalid(ReplaceTag(*table_, "b", 1, std::nullopt), "Tag 'b' doesn't exist.");
  ExpectInvalid(ReplaceTag(*table_, "a", 5, std::nullopt), "Snapshot id '5' doesn't exist.");

  std::string content = Text("a");
  ASSERT_OK(RenameTag(*table_, "a", "b"));
  EXPECT_EQ(Text("b"), content);
  EXPECT_EQ(table_->ListTags().ValueOrDie(), std::vector<std::string>{"b"});
  ExpectInvalid(RenameTag(*table_, "a", "c"), "Tag 'a' doesn't exist.");
  ASSERT_OK(CreateTag(*table_, "c", 1, false, std::nullopt));
  ExpectInvalid(RenameTag(*table_, "b", "c"), "Tag 'c' already exists.");
  ExpectInvalid(RenameTag(*table_, "", "c"), "Old tag name shouldn't be blank.");
  ExpectInvalid(RenameTag(*table_, "b", " "), "New tag name shouldn't be blank.");
  EXPECT_EQ(table_->TagByName("c").ValueOrDie().snapshot.id, 1);

  EXPECT_TRUE(DeleteTag(*table_, "b").ValueOrDie());
  EXPECT_FALSE(DeleteTag(*table_, "b").ValueOrDie());
  ExpectInvalid(DeleteTag(*table_, " ").status(), "Tag name shouldn't be blank.");
  EXPECT_EQ(table_->ListTags().ValueOrDie(), std::vector<std::string>{"c"});
}

}  // namespace
}  // namespace paimon_rowid
