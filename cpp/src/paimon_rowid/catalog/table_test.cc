#include "paimon_rowid/catalog/table.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "paimon_rowid/catalog/catalog.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"

namespace paimon_rowid {
namespace {

namespace fs = std::filesystem;

// A row-tracking table with schema-0 (id, v), schema-1 (id, v, extra) and snapshots 1..3:
// snapshot 1 on schema 0 at t=1000, snapshots 2, 3 on schema 1 at t=2000, 3000; tag "t1"
// on snapshot 1.
class TableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog_ = Catalog::Make({{"warehouse", tmp_.path()}}).ValueOrDie();
    ASSERT_OK(catalog_->CreateDatabase("db", false));
    TableSchema schema;
    schema.fields = AssignFieldIds({
        {-1, "id", DataType::Parse("BIGINT").ValueOrDie(), std::nullopt, std::nullopt},
        {-1, "v", DataType::Parse("STRING").ValueOrDie(), std::nullopt, std::nullopt},
    });
    schema.options = {{"row-tracking.enabled", "true"},
                      {"data-evolution.enabled", "true"},
                      {"blob-field", "old_blob"}};
    ASSERT_OK(catalog_->CreateTable("db.t", schema, false));
    table_ = catalog_->GetTable("db.t").ValueOrDie();

    TableSchema evolved = table_->schema();
    evolved.id = 1;
    evolved.fields.push_back(
        {2, "extra", DataType::Parse("INT").ValueOrDie(), std::nullopt, std::nullopt});
    evolved.highest_field_id = 2;
    evolved.options.erase("blob-field");
    evolved.options["file.format"] = "parquet";
    ASSERT_OK(io()->WriteFileNoReplace(table_->SchemaPath(1), evolved.ToJson()));

    for (int64_t id = 1; id <= 3; ++id) WriteSnapshot(id, id == 1 ? 0 : 1, id * 1000);
    Tag tag;
    tag.snapshot = table_->SnapshotById(1).ValueOrDie();
    ASSERT_OK(io()->WriteFileNoReplace(table_->TagPath("t1"), tag.ToJson()));
    WriteLatest("3");
  }

  const std::shared_ptr<FileIO>& io() const { return catalog_->file_io(); }

  void WriteSnapshot(int64_t id, int64_t schema_id, int64_t time_millis) {
    Snapshot s;
    s.id = id;
    s.schema_id = schema_id;
    s.base_manifest_list = "manifest-list-base-" + std::to_string(id);
    s.delta_manifest_list = "manifest-list-delta-" + std::to_string(id);
    s.commit_user = "u";
    s.time_millis = time_millis;
    s.total_record_count = id;
    s.delta_record_count = 1;
    s.next_row_id = id;
    ASSERT_OK(io()->WriteFileNoReplace(table_->SnapshotPath(id), s.ToJson()));
  }

  void WriteLatest(const std::string& text) {
    ASSERT_OK(io()->WriteFile(table_->path() + "/snapshot/LATEST", text));
  }

  std::optional<int64_t> Latest() { return table_->LatestSnapshotId().ValueOrDie(); }

  std::shared_ptr<Table> OpenWith(std::map<std::string, std::string> options) {
    auto r = Table::Open(io(), table_->identifier(), table_->path(), std::move(options));
    EXPECT_OK(r);
    return r.ok() ? *r : nullptr;
  }

  Status OpenError(std::map<std::string, std::string> options) {
    return Table::Open(io(), table_->identifier(), table_->path(), std::move(options)).status();
  }

  testing::TempDir tmp_;
  std::shared_ptr<Catalog> catalog_;
  std::shared_ptr<Table> table_;
};

TEST_F(TableTest, OpensLatestSchema) {
  // table_ was opened before schema-1 existed; a fresh handle sees it.
  EXPECT_EQ(table_->schema().id, 0);
  ASSERT_OK_AND_ASSIGN(auto fresh, catalog_->GetTable("db.t"));
  EXPECT_EQ(fresh->schema().id, 1);
  EXPECT_EQ(fresh->schema().fields.size(), 3u);
  EXPECT_EQ(fresh->LatestSchema().ValueOrDie()->id, 1);
  EXPECT_EQ(fresh->SchemaById(0).ValueOrDie().fields.size(), 2u);
  auto missing = fresh->SchemaById(7);
  EXPECT_RAISES(Invalid, missing);
  // Temp files and junk in schema/ are ignored.
  ASSERT_OK(io()->WriteFile(fresh->path() + "/schema/.schema-9.abc.tmp", "{"));
  ASSERT_OK(io()->WriteFile(fresh->path() + "/schema/schema-x", "{"));
  EXPECT_EQ(catalog_->GetTable("db.t").ValueOrDie()->schema().id, 1);
}

TEST_F(TableTest, LatestHintIsTrustedOnlyWhenConsistent) {
  EXPECT_EQ(Latest(), 3);
  for (const char* garbage :
       {"", "   ", "abc", "-1", "0", "3x", "99999999999999999999999", "\x01\x02"}) {
    WriteLatest(garbage);
    EXPECT_EQ(Latest(), 3) << "'" << garbage << "'";
  }
  WriteLatest("1");  // stale: snapshot-2 exists
  EXPECT_EQ(Latest(), 3);
  WriteLatest("7");  // points past the end
  EXPECT_EQ(Latest(), 3);
  WriteLatest("3\n");
  EXPECT_EQ(Latest(), 3);
  ASSERT_OK(io()->DeleteFile(table_->path() + "/snapshot/LATEST"));
  EXPECT_EQ(Latest(), 3);
  // Temp files of a concurrent commit are not snapshots.
  ASSERT_OK(io()->WriteFile(table_->path() + "/snapshot/.snapshot-4.uuid.tmp", "{"));
  EXPECT_EQ(Latest(), 3);
  EXPECT_EQ(table_->ListSnapshotIds().ValueOrDie(), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(table_->LatestSnapshot().ValueOrDie()->id, 3);
  EXPECT_EQ(table_->ResolveSnapshot().ValueOrDie()->id, 3);
}

TEST_F(TableTest, EmptyTableHasNoSnapshot) {
  ASSERT_OK(catalog_->CreateTable("db.empty", table_->schema(), false));
  ASSERT_OK_AND_ASSIGN(auto empty, catalog_->GetTable("db.empty"));
  EXPECT_FALSE(empty->LatestSnapshotId().ValueOrDie().has_value());
  EXPECT_FALSE(empty->ResolveSnapshot().ValueOrDie().has_value());
  EXPECT_TRUE(empty->ListTags().ValueOrDie().empty());
  auto travel = empty->Copy({{"scan.snapshot-id", "1"}});
  EXPECT_RAISES(Invalid, travel);
}

TEST_F(TableTest, SnapshotAndTagLookups) {
  EXPECT_EQ(table_->SnapshotById(2).ValueOrDie().schema_id, 1);
  auto missing = table_->SnapshotById(9);
  ASSERT_RAISES(Invalid, missing);
  EXPECT_EQ(missing.status().message(), "Snapshot id '9' doesn't exist.");

  EXPECT_EQ(table_->TagByName("t1").ValueOrDie().snapshot.id, 1);
  auto no_tag = table_->TagByName("nope");
  ASSERT_RAISES(Invalid, no_tag);
  EXPECT_EQ(no_tag.status().message(), "Tag 'nope' doesn't exist.");
  EXPECT_RAISES(Invalid, table_->TagByName("../snapshot/snapshot-1"));
  EXPECT_RAISES(Invalid, table_->TagByName(""));
  EXPECT_EQ(table_->ListTags().ValueOrDie(), (std::vector<std::string>{"t1"}));

  // A corrupt snapshot file is Invalid and names the file.
  ASSERT_OK(io()->WriteFile(table_->SnapshotPath(2), "{\"id\": 2, \"sch"));
  auto corrupt = table_->SnapshotById(2);
  ASSERT_RAISES(Invalid, corrupt);
  EXPECT_NE(corrupt.status().message().find("snapshot-2"), std::string::npos);
}

TEST_F(TableTest, TimeTravelBySnapshotIdUsesItsSchema) {
  auto t = OpenWith({{"scan.snapshot-id", "1"}});
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->schema().id, 0);
  EXPECT_EQ(t->schema().fields.size(), 2u);
  EXPECT_EQ(t->ResolveSnapshot().ValueOrDie()->id, 1);
  // Effective options: latest schema's options plus the dynamic ones, but the options that
  // declare columns come from the travelled schema.
  EXPECT_EQ(t->options().GetOr("file.format", ""), "parquet");
  EXPECT_EQ(t->options().GetOr("blob-field", ""), "old_blob");
  EXPECT_EQ(t->options().GetOr("scan.snapshot-id", ""), "1");
  EXPECT_EQ(t->schema().options, t->options().values());

  auto t2 = OpenWith({{"scan.snapshot-id", "2"}});
  EXPECT_EQ(t2->schema().id, 1);
  EXPECT_FALSE(t2->options().Contains("blob-field"));

  auto missing = OpenError({{"scan.snapshot-id", "42"}});
  ASSERT_RAISES(Invalid, missing);
  EXPECT_EQ(missing.message(), "Snapshot id '42' doesn't exist.");
  EXPECT_RAISES(Invalid, OpenError({{"scan.snapshot-id", "x"}}));
}

TEST_F(TableTest, TimeTravelByTagVersionAndTimestamp) {
  auto by_tag = OpenWith({{"scan.tag-name", "t1"}});
  EXPECT_EQ(by_tag->ResolveSnapshot().ValueOrDie()->id, 1);
  EXPECT_EQ(by_tag->schema().id, 0);
  auto no_tag = OpenError({{"scan.tag-name", "t9"}});
  EXPECT_EQ(no_tag.message(), "Tag 't9' doesn't exist.");

  EXPECT_EQ(OpenWith({{"scan.version", "t1"}})->ResolveSnapshot().ValueOrDie()->id, 1);
  EXPECT_EQ(OpenWith({{"scan.version", "2"}})->ResolveSnapshot().ValueOrDie()->id, 2);
  EXPECT_RAISES(Invalid, OpenError({{"scan.version", "zzz"}}));

  struct Case {
    const char* millis;
    int64_t expected;
  } cases[] = {{"1000", 1}, {"1999", 1}, {"2000", 2}, {"2500", 2}, {"3000", 3}, {"99999", 3}};
  for (const auto& c : cases) {
    auto t = OpenWith({{"scan.timestamp-millis", c.millis}});
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->ResolveSnapshot().ValueOrDie()->id, c.expected) << c.millis;
  }
  auto too_early = OpenError({{"scan.timestamp-millis", "999"}});
  EXPECT_RAISES(Invalid, too_early);
  EXPECT_EQ(too_early.message(),
            "No snapshot found with timestamp earlier than or equal to 999ms.");

  EXPECT_RAISES(NotImplemented, OpenError({{"scan.watermark", "5"}}));
  EXPECT_RAISES(NotImplemented, OpenError({{"scan.timestamp", "2024-01-01 00:00:00"}}));
  Status two = OpenError({{"scan.snapshot-id", "1"}, {"scan.tag-name", "t1"}});
  EXPECT_RAISES(Invalid, two);
  EXPECT_NE(two.message().find("Only one of the following parameters may be set"),
            std::string::npos);
}

TEST_F(TableTest, CopyOverlaysAndRemovesOptions) {
  ASSERT_OK_AND_ASSIGN(auto fresh, catalog_->GetTable("db.t"));
  auto copy = fresh->Copy({{"read.batch-size", "16"}, {"blob-field", std::nullopt}});
  ASSERT_OK(copy);
  EXPECT_EQ((*copy)->options().GetOr("read.batch-size", ""), "16");
  EXPECT_FALSE((*copy)->options().Contains("blob-field"));
  EXPECT_TRUE((*copy)->row_tracking_enabled());
  // Removing a schema option.
  ASSERT_OK_AND_ASSIGN(auto no_rt, (*copy)->Copy({{"row-tracking.enabled", std::nullopt}}));
  EXPECT_FALSE(no_rt->row_tracking_enabled());
  EXPECT_EQ(no_rt->options().GetOr("read.batch-size", ""), "16");  // cumulative
  EXPECT_TRUE(fresh->row_tracking_enabled());                      // original untouched

  auto bucket = fresh->Copy({{"bucket", "4"}});
  ASSERT_RAISES(Invalid, bucket);
  EXPECT_EQ(bucket.status().message(), "Cannot change bucket number");
  EXPECT_OK(fresh->Copy({{"bucket", "-1"}}));
  EXPECT_RAISES(Invalid, fresh->Copy({{"bucket", std::nullopt}}));

  // Time travel through Copy, kept across non-travel copies, dropped when the key goes.
  ASSERT_OK_AND_ASSIGN(auto travelled, fresh->Copy({{"scan.snapshot-id", "1"}}));
  EXPECT_EQ(travelled->schema().id, 0);
  ASSERT_OK_AND_ASSIGN(auto still, travelled->Copy({{"read.batch-size", "8"}}));
  EXPECT_EQ(still->schema().id, 0);
  EXPECT_EQ(still->ResolveSnapshot().ValueOrDie()->id, 1);
  ASSERT_OK_AND_ASSIGN(auto back, still->Copy({{"scan.snapshot-id", std::nullopt}}));
  EXPECT_EQ(back->schema().id, 1);
  EXPECT_EQ(back->ResolveSnapshot().ValueOrDie()->id, 3);
  ASSERT_OK_AND_ASSIGN(auto retravel, travelled->Copy({{"scan.snapshot-id", "2"}}));
  EXPECT_EQ(retravel->schema().id, 1);
  EXPECT_RAISES(Invalid, travelled->Copy({{"scan.tag-name", "t1"}}));  // two keys
}

TEST_F(TableTest, NewestSnapshotPropertyWalksNewestFirst) {
  EXPECT_EQ(table_->NewestSnapshotProperty("k").ValueOrDie(), std::nullopt);
  auto with_property = [&](int64_t id, const std::string& value) {
    Snapshot s = table_->SnapshotById(id).ValueOrDie();
    s.properties["k"] = value;
    ASSERT_OK(io()->WriteFile(table_->SnapshotPath(id), s.ToJson()));
  };
  with_property(1, "one");
  EXPECT_EQ(table_->NewestSnapshotProperty("k").ValueOrDie(), "one");  // walked 3, 2, 1
  with_property(2, "two");
  EXPECT_EQ(table_->NewestSnapshotProperty("k").ValueOrDie(), "two");  // the newest one wins
  EXPECT_EQ(table_->NewestSnapshotProperty("other").ValueOrDie(), std::nullopt);
  // An expired snapshot ends the walk: older properties are not looked at.
  ASSERT_OK(io()->DeleteFile(table_->SnapshotPath(2)));
  EXPECT_EQ(table_->NewestSnapshotProperty("k").ValueOrDie(), std::nullopt);
}

TEST_F(TableTest, PathHelpers) {
  const std::string& p = table_->path();
  EXPECT_EQ(table_->SnapshotPath(5), p + "/snapshot/snapshot-5");
  EXPECT_EQ(table_->SchemaPath(0), p + "/schema/schema-0");
  EXPECT_EQ(table_->TagPath("t1"), p + "/tag/tag-t1");
  EXPECT_EQ(table_->ManifestPath("manifest-list-x-0"), p + "/manifest/manifest-list-x-0");
  EXPECT_EQ(table_->BucketPath("", 0), p + "/bucket-0");
  EXPECT_EQ(table_->BucketPath("dt=2024-01-01/h=3", 0), p + "/dt=2024-01-01/h=3/bucket-0");
  ASSERT_OK_AND_ASSIGN(auto with_dir, table_->Copy({{"data-file.path-directory", "data"}}));
  EXPECT_EQ(with_dir->BucketPath("", 0), p + "/data/bucket-0");
}

}  // namespace
}  // namespace paimon_rowid
