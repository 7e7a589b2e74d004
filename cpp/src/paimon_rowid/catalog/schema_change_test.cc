#include "paimon_rowid/catalog/schema_change.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "paimon_rowid/catalog/catalog.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"

namespace paimon_rowid {
namespace {

namespace fs = std::filesystem;

TableSchema BaseSchema() {
  TableSchema schema;
  schema.fields = AssignFieldIds({
      {-1, "id", DataType::Parse("BIGINT").ValueOrDie(), std::nullopt, std::nullopt},
      {-1, "b", DataType::Parse("INT").ValueOrDie(), std::nullopt, std::nullopt},
      {-1, "r", DataType::Parse("ROW<x INT, y STRING>").ValueOrDie(), std::nullopt, std::nullopt},
      {-1, "p", DataType::Parse("STRING").ValueOrDie(), std::nullopt, std::nullopt},
  });
  schema.highest_field_id = HighestFieldId(schema.fields);
  schema.partition_keys = {"p"};
  schema.options = {{"row-tracking.enabled", "true"}, {"data-evolution.enabled", "true"}};
  return schema;
}

std::vector<SchemaChange> Changes(const std::string& json) {
  return SchemaChange::ListFromJson(json).ValueOrDie();
}

Result<TableSchema> Apply(const std::string& json, bool has_snapshot = true) {
  return ApplySchemaChanges(BaseSchema(), Changes(json), has_snapshot);
}

std::string Message(const Result<TableSchema>& r) { return r.status().message(); }

bool HasKind(const Status& st, ErrorKind kind) {
  const ErrorKind* k = GetErrorKind(st);
  return k != nullptr && *k == kind;
}

TEST(SchemaChangeTest, AddColumnTakesIdsAfterHighestAndHonoursMove) {
  // highestFieldId of the base is 5 (id 0, b 1, r 2 with x 3 y 4, p 5).
  ASSERT_OK_AND_ASSIGN(auto s, Apply(R"([
      {"action": "addColumn", "fieldNames": ["c"], "dataType": "STRING"},
      {"action": "addColumn", "fieldNames": ["f"], "dataType": "INT",
       "move": {"fieldName": "f", "type": "FIRST"}},
      {"action": "addColumn", "fieldNames": ["a"], "dataType": "INT",
       "move": {"fieldName": "a", "referenceFieldName": "b", "type": "AFTER"}},
      {"action": "addColumn", "fieldNames": ["q"], "dataType": {"type": "ROW", "fields": [
          {"id": 0, "name": "k", "type": "INT"}]}},
      {"action": "addColumn", "fieldNames": ["r", "z"], "dataType": "DOUBLE"}])"));
  EXPECT_EQ(s.id, 1);
  EXPECT_EQ(s.field_names(), (std::vector<std::string>{"f", "id", "b", "a", "r", "p", "c", "q"}));
  EXPECT_EQ(s.FieldByName("c")->id, 6);
  EXPECT_EQ(s.FieldByName("f")->id, 7);
  EXPECT_EQ(s.FieldByName("a")->id, 8);
  EXPECT_EQ(s.FieldByName("q")->id, 9);
  EXPECT_EQ(s.FieldByName("q")->type->fields()[0].id, 10);
  EXPECT_EQ(s.FieldByName("r")->type->fields().back().name, "z");
  EXPECT_EQ(s.FieldByName("r")->type->fields().back().id, 11);
  EXPECT_EQ(s.highest_field_id, 11);
}

TEST(SchemaChangeTest, AddColumnRefusals) {
  auto not_null = Apply(R"([{"action": "addColumn", "fieldNames": ["c"],
                             "dataType": "INT NOT NULL"}])");
  ASSERT_RAISES(Invalid, not_null);
  EXPECT_EQ(Message(not_null), "Column c cannot specify NOT NULL in the table.");
  auto exists = Apply(R"([{"action": "addColumn", "fieldNames": ["b"], "dataType": "INT"}])");
  EXPECT_TRUE(HasKind(exists.status(), ErrorKind::kColumnAlreadyExist));
  EXPECT_EQ(Message(exists), "Column b already exists");
  auto missing_ref = Apply(R"([{"action": "addColumn", "fieldNames": ["c"], "dataType": "INT",
      "move": {"fieldName": "c", "referenceFieldName": "zzz", "type": "AFTER"}}])");
  EXPECT_TRUE(HasKind(missing_ref.status(), ErrorKind::kColumnNotExist));
  EXPECT_EQ(Message(missing_ref), "Column zzz does not exist");
  auto system = Apply(R"([{"action": "addColumn", "fieldNames": ["_ROW_ID"],
                           "dataType": "BIGINT"}])");
  ASSERT_RAISES(Invalid, system);
}

TEST(SchemaChangeTest, RenameKeepsIdAndFollowsOptions) {
  TableSchema base = BaseSchema();
  base.options["fields.b.aggregate-function"] = "sum";
  ASSERT_OK_AND_ASSIGN(auto s, ApplySchemaChanges(base, Changes(R"([
      {"action": "renameColumn", "fieldNames": ["b"], "newName": "b2"},
      {"action": "renameColumn", "fieldNames": ["r", "x"], "newName": "xx"}])"),
                                                  true));
  EXPECT_EQ(s.FieldByName("b2")->id, 1);
  EXPECT_EQ(s.FieldByName("r")->type->fields()[0].name, "xx");
  EXPECT_EQ(s.options.count("fields.b.aggregate-function"), 0u);
  EXPECT_EQ(s.options.at("fields.b2.aggregate-function"), "sum");

  auto partition = Apply(R"([{"action": "renameColumn", "fieldNames": ["p"], "newName": "q"}])");
  EXPECT_EQ(Message(partition), "Cannot rename partition column: [p]");
  auto to_existing = Apply(R"([{"action": "renameColumn", "fieldNames": ["b"], "newName": "id"}])");
  EXPECT_EQ(Message(to_existing), "Column id already exists");
  auto missing = Apply(R"([{"action": "renameColumn", "fieldNames": ["zz"], "newName": "q"}])");
  EXPECT_EQ(Message(missing), "Column zz does not exist");
}

TEST(SchemaChangeTest, DropColumnRules) {
  ASSERT_OK_AND_ASSIGN(auto s, Apply(R"([{"action": "dropColumn", "fieldNames": ["b"]},
                                          {"action": "dropColumn", "fieldNames": ["r", "y"]}])"));
  EXPECT_EQ(s.field_names(), (std::vector<std::string>{"id", "r", "p"}));
  EXPECT_EQ(s.highest_field_id, 5);  // ids of dropped columns are never reused
  EXPECT_EQ(Message(Apply(R"([{"action": "dropColumn", "fieldNames": ["p"]}])")),
            "Cannot drop partition key or primary key: [p]");
  EXPECT_EQ(Message(Apply(R"([{"action": "dropColumn", "fieldNames": ["zz"]}])")),
            "Column zz does not exist");
  EXPECT_EQ(Message(Apply(R"([{"action": "dropColumn", "fieldNames": ["r", "x"]},
                               {"action": "dropColumn", "fieldNames": ["r", "y"]}])")),
            "Cannot drop all fields in table");
}

TEST(SchemaChangeTest, TypeChanges) {
  ASSERT_OK_AND_ASSIGN(auto s, Apply(R"([
      {"action": "updateColumnType", "fieldNames": ["b"], "newDataType": "BIGINT"},
      {"action": "updateColumnType", "fieldNames": ["r", "x"], "newDataType": "STRING"}])"));
  EXPECT_EQ(s.FieldByName("b")->type->ToString(), "BIGINT");
  EXPECT_EQ(s.FieldByName("b")->id, 1);
  EXPECT_EQ(s.FieldByName("r")->type->fields()[0].type->ToString(), "STRING");
  // Explicit casts are allowed by default (Java's disable-explicit-type-casting = false).
  EXPECT_OK(Apply(R"([{"action": "updateColumnType", "fieldNames": ["id"],
                        "newDataType": "INT"}])"));
  auto lossy = Apply(R"([{"action": "updateColumnType", "fieldNames": ["b"],
                          "newDataType": "BYTES"}])");
  EXPECT_EQ(Message(lossy),
            "Column type b[INT] cannot be converted to BYTES without losing "
            "information.");
  TableSchema strict = BaseSchema();
  strict.options["disable-explicit-type-casting"] = "true";
  EXPECT_RAISES(Invalid, ApplySchemaChanges(strict, Changes(R"([{"action": "updateColumnType",
      "fieldNames": ["id"], "newDataType": "INT"}])"),
                                            true));
  EXPECT_EQ(Message(Apply(R"([{"action": "updateColumnType", "fieldNames": ["p"],
                               "newDataType": "INT"}])")),
            "Cannot update partition column: [p]");
  auto not_null = Apply(R"([{"action": "updateColumnType", "fieldNames": ["b"],
                             "newDataType": "BIGINT NOT NULL"}])");
  EXPECT_EQ(Message(not_null).rfind("Cannot update column type from nullable to non nullable "
                                    "for b.",
                                    0),
            0u);
  ASSERT_OK_AND_ASSIGN(auto kept, Apply(R"([{"action": "updateColumnType", "fieldNames": ["b"],
      "newDataType": "BIGINT NOT NULL", "keepNullability": true}])"));
  EXPECT_TRUE(kept.FieldByName("b")->type->nullable());
}

TEST(SchemaChangeTest, OptionsAndInvariants) {
  ASSERT_OK_AND_ASSIGN(auto s, Apply(R"([{"action": "setOption", "key": "k", "value": "v"},
                                          {"action": "removeOption", "key": "missing"},
                                          {"action": "updateComment", "comment": "c"}])"));
  EXPECT_EQ(s.options.at("k"), "v");
  EXPECT_EQ(s.comment, "c");
  for (const char* key :
       {"row-tracking.enabled", "data-evolution.enabled", "bucket-key", "partition"}) {
    auto r = Apply(std::string(R"([{"action": "setOption", "key": ")") + key +
                   R"(", "value": "false"}])");
    EXPECT_EQ(Message(r), std::string("Change '") + key + "' is not supported yet.") << key;
    auto removed = Apply(std::string(R"([{"action": "removeOption", "key": ")") + key + R"("}])");
    EXPECT_EQ(Message(removed), std::string("Change '") + key + "' is not supported yet.");
  }
  EXPECT_EQ(Message(Apply(R"([{"action": "setOption", "key": "bucket", "value": "2"}])")),
            "Cannot change bucket when it is -1.");
  EXPECT_EQ(Message(Apply(R"([{"action": "setOption", "key": "type", "value": "x"}])")),
            "Change 'type' is not supported yet.");
  // Unchanged values are no change; without snapshots the invariants are Java's validation.
  EXPECT_OK(Apply(R"([{"action": "setOption", "key": "row-tracking.enabled", "value": "true"}])"));
  auto no_rt = Apply(R"([{"action": "setOption", "key": "row-tracking.enabled",
                          "value": "false"}])",
                     /*has_snapshot=*/false);
  EXPECT_EQ(Message(no_rt), "Data evolution config must enabled with row-tracking.enabled");
  EXPECT_EQ(Message(Apply(R"([{"action": "setOption", "key": "target-file-row-num",
                               "value": "0"}])")),
            "target-file-row-num should be at least 1");
}

TEST(SchemaChangeTest, PathsStepIntoArrayElementAndMapValue) {
  TableSchema base = BaseSchema();
  base.fields.push_back(
      {7, "a", DataType::Parse("ARRAY<ROW<u INT>>").ValueOrDie(), std::nullopt, std::nullopt});
  base.fields.push_back(
      {8, "l", DataType::Parse("ARRAY<INT>").ValueOrDie(), std::nullopt, std::nullopt});
  base.fields.push_back({9, "m", DataType::Parse("MAP<STRING, ROW<k INT>>").ValueOrDie(),
                         std::nullopt, std::nullopt});
  base.highest_field_id = 9;
  ASSERT_OK_AND_ASSIGN(auto s, ApplySchemaChanges(base, Changes(R"([
      {"action": "renameColumn", "fieldNames": ["a", "element", "u"], "newName": "uu"},
      {"action": "addColumn", "fieldNames": ["m", "value", "n"], "dataType": "BIGINT"},
      {"action": "updateColumnType", "fieldNames": ["l", "element"], "newDataType": "BIGINT"}])"),
                                                  true));
  EXPECT_EQ(s.FieldByName("a")->type->element()->fields()[0].name, "uu");
  const auto& value_fields = s.FieldByName("m")->type->value()->fields();
  ASSERT_EQ(value_fields.size(), 2u);
  EXPECT_EQ(value_fields[1].name, "n");
  EXPECT_EQ(value_fields[1].id, 10);
  EXPECT_EQ(s.highest_field_id, 10);
  EXPECT_EQ(s.FieldByName("l")->type->ToString(), "ARRAY<BIGINT>");
  // A wrong wrapper token names the whole path.
  auto wrong = ApplySchemaChanges(
      base, Changes(R"([{"action": "dropColumn", "fieldNames": ["a", "value", "u"]}])"), true);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(Message(wrong), "Column a.value.u does not exist");
}

TEST(SchemaChangeTest, PositionNullabilityCommentDefault) {
  ASSERT_OK_AND_ASSIGN(auto s, Apply(R"([
      {"action": "updateColumnPosition", "move": {"fieldName": "p", "type": "FIRST"}},
      {"action": "updateColumnNullability", "fieldNames": ["b"], "newNullability": true},
      {"action": "updateColumnComment", "fieldNames": ["b"], "newComment": "bee"},
      {"action": "updateColumnDefaultValue", "fieldNames": ["b"], "newDefaultValue": "7"}])"));
  EXPECT_EQ(s.fields[0].name, "p");
  EXPECT_EQ(s.FieldByName("b")->description, "bee");
  EXPECT_EQ(s.FieldByName("b")->default_value, "7");
  EXPECT_EQ(Message(Apply(R"([{"action": "updateColumnPosition",
      "move": {"fieldName": "b", "referenceFieldName": "b", "type": "AFTER"}}])")),
            "Cannot move itself for column b");
  EXPECT_EQ(Message(Apply(R"([{"action": "updateColumnPosition",
      "move": {"fieldName": "zz", "type": "FIRST"}}])")),
            "Column zz does not exist");
  EXPECT_RAISES(Invalid, Apply(R"([{"action": "updateColumnDefaultValue", "fieldNames": ["b"],
                                     "newDefaultValue": "seven"}])"));
  EXPECT_RAISES(NotImplemented, SchemaChange::ListFromJson(R"([{"action": "dropPrimaryKey"}])"));
}

class AlterTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog_ = Catalog::Make({{"warehouse", (fs::path(tmp_.path()) / "wh").string()}}).ValueOrDie();
    ASSERT_OK(catalog_->CreateDatabase("db", false));
    ASSERT_OK(catalog_->CreateTable("db.t", BaseSchema(), false));
  }
  testing::TempDir tmp_;
  std::shared_ptr<Catalog> catalog_;
};

TEST_F(AlterTableTest, WritesOneSchemaPerCallAndNothingWhenRefused) {
  ASSERT_OK_AND_ASSIGN(auto written, catalog_->AlterTable("db.t", Changes(R"([
      {"action": "addColumn", "fieldNames": ["c"], "dataType": "STRING"}])"),
                                                          false));
  ASSERT_TRUE(written.has_value());
  EXPECT_EQ(written->id, 1);
  ASSERT_OK_AND_ASSIGN(auto table, catalog_->GetTable("db.t"));
  EXPECT_EQ(table->schema().id, 1);
  EXPECT_EQ(table->schema().FieldByName("c")->id, 6);
  auto refused = catalog_->AlterTable("db.t", Changes(R"([
      {"action": "addColumn", "fieldNames": ["d"], "dataType": "STRING"},
      {"action": "dropColumn", "fieldNames": ["zz"]}])"),
                                      false);
  EXPECT_TRUE(HasKind(refused.status(), ErrorKind::kColumnNotExist));
  EXPECT_FALSE(fs::exists(fs::path(table->SchemaPath(2))));
  auto missing = catalog_->AlterTable("db.nope", {}, false);
  EXPECT_TRUE(HasKind(missing.status(), ErrorKind::kTableNotExist));
  ASSERT_OK_AND_ASSIGN(auto ignored, catalog_->AlterTable("db.nope", {}, true));
  EXPECT_FALSE(ignored.has_value());
}

TEST_F(AlterTableTest, ConcurrentAltersAreAllApplied) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 10;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        std::string name = "c" + std::to_string(t) + "_" + std::to_string(i);
        auto r = catalog_->AlterTable("db.t",
                                      Changes(R"([{"action": "addColumn", "fieldNames": [")" +
                                              name + R"("], "dataType": "INT"}])"),
                                      false);
        if (!r.ok()) failures++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_OK_AND_ASSIGN(auto table, catalog_->GetTable("db.t"));
  EXPECT_EQ(table->schema().id, kThreads * kRounds);
  EXPECT_EQ(table->schema().fields.size(), 4u + kThreads * kRounds);
  std::set<int32_t> ids;
  for (const auto& f : table->schema().fields) ids.insert(f.id);
  EXPECT_EQ(ids.size(), table->schema().fields.size());
  for (int id = 0; id <= kThreads * kRounds; ++id) {
    EXPECT_TRUE(fs::exists(fs::path(table->SchemaPath(id)))) << id;
  }
}

}  // namespace
}  // namespace paimon_rowid
