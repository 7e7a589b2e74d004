#include "paimon_rowid/meta/snapshot.h"

#include <gtest/gtest.h>

#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

Snapshot FullSnapshot() {
  Snapshot s;
  s.uuid = "0b3c8d0e-2f1a-4c55-9a51-6a3d2e1f0a11";
  s.id = 7;
  s.schema_id = 2;
  s.base_manifest_list = "manifest-list-a-0";
  s.base_manifest_list_size = 1234;
  s.delta_manifest_list = "manifest-list-a-1";
  s.delta_manifest_list_size = 987;
  s.changelog_manifest_list = "manifest-list-a-changelog";
  s.changelog_manifest_list_size = 55;
  s.index_manifest = "index-manifest-b-0";
  s.commit_user = "user-1";
  s.writer_version = "1.2.3";
  s.commit_identifier = 42;
  s.commit_kind = "OVERWRITE";
  s.time_millis = 1715680000123;
  s.total_record_count = 100;
  s.delta_record_count = -3;
  s.changelog_record_count = 0;
  s.watermark = -9223372036854775807LL - 1;
  s.statistics = "stat-x-0";
  s.properties = {{"k", "v"}, {"a", "b"}};
  s.next_row_id = 100;
  s.operation = "UPDATE";
  return s;
}

void ExpectSnapshotEq(const Snapshot& a, const Snapshot& b) {
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.uuid, b.uuid);
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.schema_id, b.schema_id);
  EXPECT_EQ(a.base_manifest_list, b.base_manifest_list);
  EXPECT_EQ(a.base_manifest_list_size, b.base_manifest_list_size);
  EXPECT_EQ(a.delta_manifest_list, b.delta_manifest_list);
  EXPECT_EQ(a.delta_manifest_list_size, b.delta_manifest_list_size);
  EXPECT_EQ(a.changelog_manifest_list, b.changelog_manifest_list);
  EXPECT_EQ(a.changelog_manifest_list_size, b.changelog_manifest_list_size);
  EXPECT_EQ(a.index_manifest, b.index_manifest);
  EXPECT_EQ(a.commit_user, b.commit_user);
  EXPECT_EQ(a.writer_version, b.writer_version);
  EXPECT_EQ(a.commit_identifier, b.commit_identifier);
  EXPECT_EQ(a.commit_kind, b.commit_kind);
  EXPECT_EQ(a.time_millis, b.time_millis);
  EXPECT_EQ(a.total_record_count, b.total_record_count);
  EXPECT_EQ(a.delta_record_count, b.delta_record_count);
  EXPECT_EQ(a.changelog_record_count, b.changelog_record_count);
  EXPECT_EQ(a.watermark, b.watermark);
  EXPECT_EQ(a.statistics, b.statistics);
  EXPECT_EQ(a.properties, b.properties);
  EXPECT_EQ(a.next_row_id, b.next_row_id);
  EXPECT_EQ(a.operation, b.operation);
}

TEST(SnapshotTest, FullRoundTrip) {
  Snapshot s = FullSnapshot();
  std::string text = s.ToJson();
  auto back = Snapshot::FromJson(text);
  ASSERT_OK(back) << "\n" << text;
  ExpectSnapshotEq(*back, s);
  EXPECT_EQ(back->ToJson(), text);
}

TEST(SnapshotTest, MinimalLayoutInJavaOrder) {
  Snapshot s;
  s.id = 1;
  s.schema_id = 0;
  s.base_manifest_list = "b";
  s.delta_manifest_list = "d";
  s.commit_user = "u";
  s.time_millis = 5;
  s.total_record_count = 3;
  s.delta_record_count = 3;
  s.next_row_id = 3;
  EXPECT_EQ(s.ToJson(), R"({
  "version" : 3,
  "id" : 1,
  "schemaId" : 0,
  "baseManifestList" : "b",
  "deltaManifestList" : "d",
  "commitUser" : "u",
  "commitIdentifier" : 9223372036854775807,
  "commitKind" : "APPEND",
  "timeMillis" : 5,
  "totalRecordCount" : 3,
  "deltaRecordCount" : 3,
  "nextRowId" : 3
})");
  s.next_row_id.reset();
  EXPECT_EQ(s.ToJson().find("nextRowId"), std::string::npos);
  EXPECT_EQ(s.ToJson().find("properties"), std::string::npos);
}

TEST(SnapshotTest, ReadsOtherWritersAndIgnoresUnknownKeys) {
  // pypaimon-like: nulls for absent optionals, no sizes, an unknown key.
  const char* text = R"({
    "version": 3, "id": 2, "schemaId": 0, "baseManifestList": "b", "deltaManifestList": "d",
    "totalRecordCount": 10, "deltaRecordCount": 5, "commitUser": "u",
    "commitIdentifier": 9223372036854775807, "commitKind": "APPEND", "timeMillis": 1,
    "changelogManifestList": null, "indexManifest": null, "watermark": null,
    "properties": null, "nextRowId": 10, "uuid": "x", "logOffsets": {"0": 1},
    "somethingNew": [1, {"a": 2}]
  })";
  auto s = Snapshot::FromJson(text);
  ASSERT_OK(s);
  EXPECT_EQ(s->id, 2);
  EXPECT_FALSE(s->changelog_manifest_list.has_value());
  EXPECT_FALSE(s->index_manifest.has_value());
  EXPECT_FALSE(s->watermark.has_value());
  EXPECT_TRUE(s->properties.empty());
  EXPECT_EQ(s->next_row_id, 10);
  EXPECT_FALSE(s->base_manifest_list_size.has_value());

  // No "version": a legacy version-1 snapshot.
  auto legacy = Snapshot::FromJson(R"({"id": 1, "schemaId": 0, "baseManifestList": "b",
      "deltaManifestList": "d", "commitUser": "u", "commitIdentifier": 1,
      "commitKind": "APPEND", "timeMillis": 1})");
  ASSERT_OK(legacy);
  EXPECT_EQ(legacy->version, 1);
  EXPECT_FALSE(legacy->total_record_count.has_value());
}

TEST(SnapshotTest, RejectsMalformed) {
  const std::string good = FullSnapshot().ToJson();
  for (const char* bad : {"", "{", "[]", "\"x\"", "{}", R"({"id": 1})"}) {
    EXPECT_RAISES(Invalid, Snapshot::FromJson(bad)) << bad;
  }
  // Each required key missing, and each key with the wrong type.
  for (const char* key : {"id", "schemaId", "baseManifestList", "deltaManifestList", "commitUser",
                          "commitIdentifier", "commitKind", "timeMillis"}) {
    std::string pattern = std::string("\"") + key + "\" : ";
    size_t pos = good.find(pattern);
    ASSERT_NE(pos, std::string::npos) << key;
    std::string renamed = good;
    renamed.replace(pos + 1, 1, "X");  // "id" -> "Xd"
    EXPECT_RAISES(Invalid, Snapshot::FromJson(renamed)) << key;
    std::string wrong_type = good;
    wrong_type.insert(pos + pattern.size(), "[0], \"ignored\" : ");
    EXPECT_RAISES(Invalid, Snapshot::FromJson(wrong_type)) << key;
  }
  EXPECT_TRUE(Snapshot::FromJson(R"({"id": 1.5, "schemaId": 0, "baseManifestList": "b",
      "deltaManifestList": "d", "commitUser": "u", "commitIdentifier": 1,
      "commitKind": "APPEND", "timeMillis": 1})")
                  .status()
                  .IsInvalid());
  EXPECT_TRUE(Snapshot::FromJson(R"({"id": 18446744073709551615, "schemaId": 0,
      "baseManifestList": "b", "deltaManifestList": "d", "commitUser": "u",
      "commitIdentifier": 1, "commitKind": "APPEND", "timeMillis": 1})")
                  .status()
                  .IsInvalid());
  EXPECT_TRUE(Snapshot::FromJson(R"({"id": 1, "schemaId": 0, "baseManifestList": "b",
      "deltaManifestList": "d", "commitUser": "u", "commitIdentifier": 1,
      "commitKind": "APPEND", "timeMillis": 1, "properties": {"a": 1}})")
                  .status()
                  .IsInvalid());
}

TEST(SnapshotTest, FuzzTruncationAndBitFlips) {
  const std::string text = FullSnapshot().ToJson();
  for (size_t cut = 0; cut < text.size(); ++cut) {
    EXPECT_RAISES(Invalid, Snapshot::FromJson(std::string_view(text).substr(0, cut))) << cut;
  }
  for (size_t i = 0; i < text.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string mutated = text;
      mutated[i] = static_cast<char>(mutated[i] ^ (1 << bit));
      auto r = Snapshot::FromJson(mutated);
      if (r.ok()) {
        EXPECT_OK(Snapshot::FromJson(r->ToJson()));
      } else {
        EXPECT_RAISES(Invalid, r);
      }
    }
  }
}

TEST(TagTest, RoundTripWithTagFields) {
  Tag tag;
  tag.snapshot = FullSnapshot();
  tag.tag_create_time_json = "[2024,5,14,10,30,1,123000000]";
  tag.tag_time_retained = "86400.0";
  std::string text = tag.ToJson();
  EXPECT_NE(text.find("\"tagCreateTime\" : [ 2024, 5, 14, 10, 30, 1, 123000000 ]"),
            std::string::npos)
      << text;
  auto back = Tag::FromJson(text);
  ASSERT_OK(back);
  ExpectSnapshotEq(back->snapshot, tag.snapshot);
  EXPECT_EQ(back->tag_create_time_json, tag.tag_create_time_json);
  EXPECT_EQ(back->tag_time_retained, tag.tag_time_retained);
  EXPECT_EQ(back->ToJson(), text);

  // A plain snapshot file is a valid tag without tag fields.
  auto plain = Tag::FromJson(FullSnapshot().ToJson());
  ASSERT_OK(plain);
  EXPECT_FALSE(plain->tag_create_time_json.has_value());
  EXPECT_FALSE(plain->tag_time_retained.has_value());

  std::string base = FullSnapshot().ToJson();
  base.pop_back();  // drop the closing brace
  for (const char* extra : {R"(, "tagCreateTime" : "2024")", R"(, "tagCreateTime" : [1, 2])",
                            R"(, "tagCreateTime" : [2024, 5, 14, 10, "x"])",
                            R"(, "tagTimeRetained" : [1])", R"(, "tagTimeRetained" : "abc")"}) {
    EXPECT_RAISES(Invalid, Tag::FromJson(base + extra + "}")) << extra;
  }
  auto retained_string = Tag::FromJson(base + R"(, "tagTimeRetained" : "3600.5"})");
  ASSERT_OK(retained_string);
  EXPECT_EQ(retained_string->tag_time_retained, "3600.5");
}

}  // namespace
}  // namespace paimon_rowid
