#include "paimon_rowid/types/table_schema.h"

#include <gtest/gtest.h>

#include "arrow/type.h"
#include "arrow/util/key_value_metadata.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

TableSchema SampleSchema() {
  TableSchema schema;
  schema.id = 2;
  schema.fields = AssignFieldIds({
      {-1, "id", DataType::Parse("BIGINT NOT NULL").ValueOrDie(), std::nullopt, std::nullopt},
      {-1, "dt", DataType::Parse("STRING").ValueOrDie(), std::string("day"), std::nullopt},
      {-1, "tags", DataType::Parse("ARRAY<STRING>").ValueOrDie(), std::nullopt, std::nullopt},
      {-1, "attrs", DataType::Parse("MAP<STRING, DOUBLE>").ValueOrDie(), std::nullopt,
       std::nullopt},
      {-1, "pt", DataType::Parse("ROW<x INT, y ROW<z TIMESTAMP(3)>>").ValueOrDie(), std::nullopt,
       std::string("0")},
      {-1, "emb", DataType::Parse("VECTOR<FLOAT, 3>").ValueOrDie(), std::nullopt, std::nullopt},
      {-1, "img", DataType::Parse("BLOB").ValueOrDie(), std::nullopt, std::nullopt},
  });
  schema.highest_field_id = HighestFieldId(schema.fields);
  schema.partition_keys = {"dt"};
  schema.options = {
      {"row-tracking.enabled", "true"}, {"data-evolution.enabled", "true"}, {"bucket", "-1"}};
  schema.comment = "a \"quoted\" comment";
  schema.time_millis = 1715680000123;
  return schema;
}

void ExpectSchemaEq(const TableSchema& a, const TableSchema& b) {
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.id, b.id);
  ASSERT_EQ(a.fields.size(), b.fields.size());
  for (size_t i = 0; i < a.fields.size(); ++i) {
    EXPECT_TRUE(a.fields[i].Equals(b.fields[i])) << a.fields[i].name;
  }
  EXPECT_EQ(a.highest_field_id, b.highest_field_id);
  EXPECT_EQ(a.partition_keys, b.partition_keys);
  EXPECT_EQ(a.primary_keys, b.primary_keys);
  EXPECT_EQ(a.options, b.options);
  EXPECT_EQ(a.comment, b.comment);
  EXPECT_EQ(a.time_millis, b.time_millis);
}

TEST(TableSchemaTest, JsonRoundTrip) {
  TableSchema schema = SampleSchema();
  EXPECT_EQ(schema.highest_field_id, 9);
  std::string text = schema.ToJson();
  auto back = TableSchema::FromJson(text);
  ASSERT_OK(back) << "\n" << text;
  ExpectSchemaEq(*back, schema);
  EXPECT_EQ(back->ToJson(), text);

  schema.comment.reset();
  text = schema.ToJson();
  EXPECT_EQ(text.find("\"comment\""), std::string::npos);
  back = TableSchema::FromJson(text);
  ASSERT_OK(back);
  EXPECT_FALSE(back->comment.has_value());
}

TEST(TableSchemaTest, JavaLayout) {
  TableSchema schema;
  schema.fields = {
      {0, "a", DataType::Parse("INT").ValueOrDie(), std::nullopt, std::nullopt},
      {1, "b", DataType::Parse("ARRAY<STRING NOT NULL>").ValueOrDie(), std::nullopt, std::nullopt}};
  schema.highest_field_id = 1;
  schema.time_millis = 7;
  // Jackson's DefaultPrettyPrinter, as Java's SchemaManager writes it.
  EXPECT_EQ(schema.ToJson(), R"({
  "version" : 3,
  "id" : 0,
  "fields" : [ {
    "id" : 0,
    "name" : "a",
    "type" : "INT"
  }, {
    "id" : 1,
    "name" : "b",
    "type" : {
      "type" : "ARRAY",
      "element" : "STRING NOT NULL"
    }
  } ],
  "highestFieldId" : 1,
  "partitionKeys" : [ ],
  "primaryKeys" : [ ],
  "options" : { },
  "timeMillis" : 7
})");
}

TEST(TableSchemaTest, ReadsPypaimonStyleJson) {
  // pypaimon: "comment": null, "nullable" keys, TIMESTAMP_LTZ, MAP<K, V> type string.
  const char* text = R"json({
    "version": 3, "id": 0,
    "fields": [
      {"id": 0, "name": "k", "type": "BIGINT NOT NULL"},
      {"id": 1, "name": "ts", "type": "TIMESTAMP_LTZ(6)"},
      {"id": 2, "name": "m", "type": {"type": "MAP<STRING, INT>", "key": "STRING NOT NULL",
                                      "value": "INT", "nullable": true}},
      {"id": 3, "name": "r", "type": {"type": "ROW", "fields": [
          {"id": 4, "name": "z", "type": "DOUBLE"}], "nullable": true}}
    ],
    "highestFieldId": 4, "partitionKeys": [], "primaryKeys": [],
    "options": {"row-tracking.enabled": "true"}, "comment": null, "timeMillis": 123,
    "someFutureKey": {"x": [1, 2]}
  })json";
  auto r = TableSchema::FromJson(text);
  ASSERT_OK(r);
  EXPECT_FALSE(r->comment.has_value());
  EXPECT_EQ(r->fields[1].type->ToString(), "TIMESTAMP(6) WITH LOCAL TIME ZONE");
  EXPECT_EQ(r->fields[2].type->ToString(), "MAP<STRING NOT NULL, INT>");
  EXPECT_EQ(r->FieldByName("r")->type->fields()[0].id, 4);
  EXPECT_EQ(r->FieldIndex("m"), 2);
  EXPECT_EQ(r->FieldIndex("nope"), -1);
  EXPECT_EQ(r->FieldById(3)->name, "r");
  EXPECT_EQ(r->FieldById(4), nullptr);  // nested ids are not top-level fields
  EXPECT_TRUE(*r->table_options().GetBool("row-tracking.enabled", false));
}

TEST(TableSchemaTest, OldVersionsGetJavaDefaults) {
  const char* v1 = R"({"id": 0, "fields": [], "highestFieldId": -1, "partitionKeys": [],
                       "primaryKeys": [], "options": {}})";
  auto r = TableSchema::FromJson(v1);
  ASSERT_OK(r);
  EXPECT_EQ(r->version, 1);
  EXPECT_EQ(r->options.at("bucket"), "1");
  EXPECT_EQ(r->options.at("file.format"), "orc");
  EXPECT_EQ(r->time_millis, 0);

  const char* v2 = R"({"version": 2, "id": 0, "fields": [], "highestFieldId": -1,
                       "partitionKeys": [], "primaryKeys": [],
                       "options": {"file.format": "parquet", "bucket": "4"}})";
  r = TableSchema::FromJson(v2);
  ASSERT_OK(r);
  EXPECT_EQ(r->options.at("bucket"), "4");
  EXPECT_EQ(r->options.at("file.format"), "parquet");

  const char* v3 = R"({"version": 3, "id": 0, "fields": [], "highestFieldId": -1,
                       "partitionKeys": [], "primaryKeys": [], "options": {}})";
  r = TableSchema::FromJson(v3);
  ASSERT_OK(r);
  EXPECT_TRUE(r->options.empty());
}

TEST(TableSchemaTest, RejectsMalformed) {
  for (
      const char* bad : {
          "",
          "{",
          "[]",
          "null",
          "3",
          R"({"version": 3})",
          R"({"id": "0", "fields": [], "highestFieldId": 0, "partitionKeys": [], "primaryKeys": []})",
          R"({"id": 0, "fields": {}, "highestFieldId": 0, "partitionKeys": [], "primaryKeys": []})",
          R"({"id": 0, "fields": [], "partitionKeys": [], "primaryKeys": []})",
          R"({"id": 0, "fields": [], "highestFieldId": 0, "primaryKeys": []})",
          R"({"id": 0, "fields": [], "highestFieldId": 0, "partitionKeys": [1], "primaryKeys": []})",
          R"({"id": 0, "fields": [], "highestFieldId": 0, "partitionKeys": [], "primaryKeys": [], "options": []})",
          R"({"id": 0, "fields": [], "highestFieldId": 0, "partitionKeys": [], "primaryKeys": [], "options": {"a": {}}})",
          R"({"id": 0, "fields": [], "highestFieldId": 0, "partitionKeys": [], "primaryKeys": [], "comment": 5})",
          R"({"id": 0, "fields": [], "highestFieldId": 0, "partitionKeys": [], "primaryKeys": [], "timeMillis": "x"})",
          R"({"id": 0, "fields": [{"id": 0, "name": "a", "type": "NOPE"}], "highestFieldId": 0, "partitionKeys": [], "primaryKeys": []})",
          R"({"id": 18446744073709551615, "fields": [], "highestFieldId": 0, "partitionKeys": [], "primaryKeys": []})",
          R"({"version": 99999999999, "id": 0, "fields": [], "highestFieldId": 0, "partitionKeys": [], "primaryKeys": []})",
      }) {
    auto r = TableSchema::FromJson(bad);
    EXPECT_RAISES(Invalid, r) << bad;
  }
}

// Every truncation and every single-bit flip of a valid file parses or fails with Invalid;
// nothing throws or crashes.
TEST(TableSchemaTest, FuzzTruncationAndBitFlips) {
  const std::string text = SampleSchema().ToJson();
  for (size_t cut = 0; cut < text.size(); ++cut) {
    auto r = TableSchema::FromJson(std::string_view(text).substr(0, cut));
    EXPECT_RAISES(Invalid, r) << "cut at " << cut;
  }
  int parsed = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string mutated = text;
      mutated[i] = static_cast<char>(mutated[i] ^ (1 << bit));
      auto r = TableSchema::FromJson(mutated);
      if (r.ok()) {
        ++parsed;
        // Whatever parsed must serialize and re-parse.
        EXPECT_OK(TableSchema::FromJson(r->ToJson()));
      } else {
        EXPECT_RAISES(Invalid, r);
      }
    }
  }
  EXPECT_GT(parsed, 0);  // e.g. flips inside string values
}

TEST(TableSchemaTest, ArrowSchemaAndProjection) {
  TableSchema schema = SampleSchema();
  auto arrow_schema = schema.ArrowSchema();
  ASSERT_EQ(arrow_schema->num_fields(), 7);
  EXPECT_EQ(arrow_schema->field(0)->ToString(), "id: int64 not null");
  EXPECT_EQ(arrow_schema->field(1)->metadata()->Get("description").ValueOrDie(), "day");
  EXPECT_EQ(arrow_schema->field(0)->metadata(), nullptr);
  auto with_ids = schema.ArrowSchemaWithFieldIds();
  EXPECT_EQ(with_ids->field(4)->metadata()->Get("PARQUET:field_id").ValueOrDie(),
            std::to_string(schema.fields[4].id));
  EXPECT_TRUE(with_ids->Equals(*arrow_schema, /*check_metadata=*/false));

  auto projected = schema.Project({"img", "id"});
  ASSERT_OK(projected);
  EXPECT_EQ((*projected)[0].name, "img");
  EXPECT_EQ((*projected)[1].name, "id");
  auto missing = schema.Project({"id", "nope"});
  EXPECT_RAISES(Invalid, missing);
  EXPECT_NE(missing.status().message().find("nope"), std::string::npos);
  EXPECT_TRUE(schema.IsPartitionKey("dt"));
  EXPECT_FALSE(schema.IsPartitionKey("id"));
  EXPECT_EQ(schema.field_names().size(), 7u);
}

}  // namespace
}  // namespace paimon_rowid
