#include "paimon_rowid/common/checked_json.h"

#include <gtest/gtest.h>

#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

TEST(CheckedJsonTest, ExceptionsBecomeInvalidWithContext) {
  auto doc = nlohmann::json::parse(R"({"n": "text"})");
  Status st = CatchJsonErrors("malformed thing: ", [&]() -> Status {
    (void)doc.at("n").get<int>();  // type_error
    return Status::OK();
  });
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_EQ(st.message().rfind("malformed thing: ", 0), 0u) << st.message();

  Result<int> missing = CatchJsonErrors("malformed thing: ", [&]() -> Result<int> {
    return doc.at("absent").get<int>();  // out_of_range
  });
  EXPECT_TRUE(missing.status().IsInvalid());

  Result<int> range = CatchJsonErrors(
      "x: ", [&]() -> Result<int> { return JsonInteger<int8_t>(nlohmann::json(1000)); });
  EXPECT_TRUE(range.status().IsInvalid());

  Result<int> fine = CatchJsonErrors("x: ", [&]() -> Result<int> { return 7; });
  EXPECT_EQ(fine.ValueOrDie(), 7);
  // A Status returned by the body passes through unchanged.
  Status own = CatchJsonErrors("x: ", [] { return Status::IOError("disk"); });
  EXPECT_TRUE(own.IsIOError());
}

TEST(CheckedJsonTest, ParseJson) {
  EXPECT_OK(ParseJson(R"({"a": [1, 2]})", "doc"));
  auto bad = ParseJson("{", "the doc");
  EXPECT_TRUE(bad.status().IsInvalid());
  EXPECT_EQ(bad.status().message(), "the doc is not valid JSON");
}

TEST(CheckedJsonTest, TypedFields) {
  auto doc = nlohmann::json::parse(
      R"({"i": 5, "big": 1e30, "neg": -1, "s": "x", "b": true, "null": null, "arr": [1]})");
  EXPECT_EQ(JsonField<int32_t>(doc, "i").ValueOrDie(), 5);
  EXPECT_TRUE(JsonField<int64_t>(doc, "big").status().IsInvalid());
  EXPECT_TRUE(JsonField<uint32_t>(doc, "neg").status().IsInvalid());
  EXPECT_TRUE(JsonField<int32_t>(doc, "s").status().IsInvalid());
  EXPECT_EQ(JsonField<std::string>(doc, "s").ValueOrDie(), "x");
  EXPECT_TRUE(JsonField<std::string>(doc, "i").status().IsInvalid());
  EXPECT_TRUE(JsonField<bool>(doc, "b").ValueOrDie());
  EXPECT_EQ(JsonField<nlohmann::json>(doc, "arr").ValueOrDie().size(), 1u);
  auto missing = JsonField<int32_t>(doc, "nope");
  EXPECT_TRUE(missing.status().IsInvalid());
  EXPECT_EQ(missing.status().message(), "JSON key 'nope' is missing");
  EXPECT_TRUE(JsonField<int32_t>(nlohmann::json::array(), "i").status().IsInvalid());

  EXPECT_EQ(OptionalJsonField<int32_t>(doc, "nope").ValueOrDie(), std::nullopt);
  EXPECT_EQ(OptionalJsonField<int32_t>(doc, "null").ValueOrDie(), std::nullopt);
  EXPECT_EQ(OptionalJsonField<int32_t>(doc, "i").ValueOrDie(), 5);
  EXPECT_TRUE(OptionalJsonField<int32_t>(doc, "s").status().IsInvalid());
}

}  // namespace
}  // namespace paimon_rowid
