#include "paimon_rowid/codec/avro_record.h"

#include <gtest/gtest.h>

#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid::avro {
namespace {

// The writer's schema has a field the reader never asks for (_EXTRA) and lacks one it does
// ask for (_ABSENT): both must be fine, as for manifests written by other Paimon versions.
constexpr const char* kSchema = R"({"type": "record", "name": "R", "fields": [
  {"name": "_ID", "type": "long"},
  {"name": "_NAME", "type": ["null", "string"]},
  {"name": "_EXTRA", "type": "int"},
  {"name": "_TAGS", "type": ["null", {"type": "array", "items": "string"}]},
  {"name": "_IDS", "type": ["null", {"type": "array", "items": "long"}]},
  {"name": "_INNER", "type": ["null", {"type": "record", "name": "R_INNER", "fields": [
    {"name": "x", "type": "int"}]}]},
  {"name": "_PAIRS", "type": {"type": "array", "items": {"type": "record", "name": "P",
    "fields": [{"name": "k", "type": "string"}]}}}]})";

struct Row {
  int64_t id;
  std::optional<std::string> name;
  std::optional<std::vector<std::string>> tags;
  std::optional<std::vector<int64_t>> ids;
  std::optional<int32_t> inner;
};

Result<std::shared_ptr<arrow::Buffer>> Write(const std::vector<Row>& rows) {
  return EncodeRecords(kSchema, rows, "null", 0, [](const Row& r) {
    Value inner = r.inner ? Value(Value::Record{{Value(*r.inner)}}) : Value::Null();
    Value::Array pairs;
    pairs.items.emplace_back(Value::Record{{Value("a")}});
    return Value(Value::Record{{Value(r.id), Opt(r.name), Value(int32_t{7}), Opt(r.tags),
                                Opt(r.ids), inner, Value(std::move(pairs))}});
  });
}

TEST(AvroRecordTest, ReadsFieldsByNameAndNullsAsMissing) {
  std::vector<Row> rows = {
      {1, "one", std::vector<std::string>{"a", "b"}, std::vector<int64_t>{4, 5}, 9},
      {2, std::nullopt, std::nullopt, std::nullopt, std::nullopt}};
  ASSERT_OK_AND_ASSIGN(auto file, Write(rows));
  ASSERT_OK_AND_ASSIGN(
      auto back, DecodeRecords<Row>(file, "row", [](const RecordReader& r) -> Result<Row> {
        Row row;
        ARROW_ASSIGN_OR_RAISE(row.id, r.Long("_ID"));
        ARROW_ASSIGN_OR_RAISE(row.name, r.OptBytes("_NAME"));
        ARROW_ASSIGN_OR_RAISE(row.tags, r.OptStrings("_TAGS"));
        ARROW_ASSIGN_OR_RAISE(row.ids, r.OptLongs("_IDS"));
        if (r.Find("_INNER") != nullptr) {
          ARROW_ASSIGN_OR_RAISE(RecordReader inner, r.Nested("_INNER"));
          ARROW_ASSIGN_OR_RAISE(row.inner, inner.Int("x"));
        }
        ARROW_ASSIGN_OR_RAISE(auto absent, r.OptLong("_ABSENT"));
        if (absent.has_value() || r.FieldNode("_ABSENT") != nullptr) {
          return Status::Invalid("an absent field read as present");
        }
        const Node* pair = ArrayItemRecordNode(r.FieldNode("_PAIRS"));
        ARROW_ASSIGN_OR_RAISE(const Value::Array* pairs, r.Find("_PAIRS")->AsArray());
        ARROW_ASSIGN_OR_RAISE(RecordReader p, RecordReader::Make(pairs->items[0], pair, "pair"));
        ARROW_ASSIGN_OR_RAISE(std::string k, p.Bytes("k"));
        if (k != "a") return Status::Invalid("pair key ", k);
        return row;
      }));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].id, 1);
  EXPECT_EQ(back[0].name, "one");
  EXPECT_EQ(back[0].tags, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(back[0].ids, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(back[0].inner, 9);
  EXPECT_EQ(back[1].id, 2);
  EXPECT_FALSE(back[1].name.has_value());
  EXPECT_FALSE(back[1].tags.has_value());
  EXPECT_FALSE(back[1].ids.has_value());
  EXPECT_FALSE(back[1].inner.has_value());
}

TEST(AvroRecordTest, ErrorsNameTheRecordAndTheField) {
  ASSERT_OK_AND_ASSIGN(auto file, Write({{1, std::nullopt, std::nullopt, std::nullopt, 3}}));
  auto read_one = [&](auto&& decode) {
    return DecodeRecords<int>(file, "row", std::forward<decltype(decode)>(decode));
  };
  // A null field is missing to a required read.
  auto missing = read_one([](const RecordReader& r) -> Result<int> {
    ARROW_ASSIGN_OR_RAISE(std::string name, r.Bytes("_NAME"));
    return 0;
  });
  ASSERT_RAISES(Invalid, missing);
  EXPECT_NE(missing.status().message().find("row: required field _NAME missing"),
            std::string::npos);
  // A type mismatch names the record kind and the field.
  auto mismatch = read_one([](const RecordReader& r) -> Result<int> { return r.Int("_ID"); });
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.status().message().find("row field _ID:"), std::string::npos);
  // A nested reader names its field as its record kind.
  auto nested = read_one([](const RecordReader& r) -> Result<int> {
    ARROW_ASSIGN_OR_RAISE(RecordReader inner, r.Nested("_INNER"));
    return inner.Int("y");
  });
  ASSERT_RAISES(Invalid, nested);
  EXPECT_NE(nested.status().message().find("_INNER: required field y missing"), std::string::npos);
  // A value that is not a record, or a node that is not one, is refused.
  ASSERT_OK_AND_ASSIGN(NodePtr record, ParseSchema(R"({"type": "record", "name": "X",
                                                       "fields": [{"name": "a", "type": "int"}]})"));
  ASSERT_OK_AND_ASSIGN(NodePtr scalar, ParseSchema(R"("int")"));
  EXPECT_FALSE(RecordReader::Make(Value(int32_t{1}), record.get(), "x").ok());
  EXPECT_RAISES(Invalid,
                RecordReader::Make(Value(Value::Record{{Value(int32_t{1})}}), scalar.get(), "x"));
  EXPECT_RAISES(Invalid, RecordReader::Make(Value(Value::Record{}), record.get(), "x"));
  EXPECT_RAISES(Invalid, RecordReader::Make(Value(Value::Record{}), nullptr, "x"));
}

}  // namespace
}  // namespace paimon_rowid::avro
