// RestTokenFileIO's refresh rule and its pickled form, on the local filesystem with a token
// loader that counts its calls. Against a real token-serving server and an S3 store checking
// credentials: tests/test_rest_data_tokens.py.
#include "paimon_rowid/catalog/rest_token_file_io.h"

#include <gtest/gtest.h>

#include <chrono>

#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"

namespace paimon_rowid {
namespace {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST(RestTokenFileIO, RefreshesOnlyATokenWithinTheSafeTimeOfItsExpiry) {
  testing::TempDir dir;
  int64_t lifetime = 2 * RestTokenFileIO::kSafeTimeMillis;
  int calls = 0;
  auto loader = [&]() -> Result<RestDataToken> {
    ++calls;
    return RestDataToken{{{"fs.s3.accessKeyId", "id" + std::to_string(calls)}},
                         NowMillis() + lifetime};
  };
  ASSERT_OK_AND_ASSIGN(auto io, RestTokenFileIO::Make(dir.path(), {}, loader, std::nullopt));
  EXPECT_EQ(calls, 1);
  ASSERT_OK(io->WriteFile(dir.path() + "/a", "x"));
  ASSERT_OK_AND_ASSIGN(bool exists, io->Exists(dir.path() + "/a"));
  EXPECT_TRUE(exists);
  EXPECT_EQ(calls, 1);  // fresh: no request
  EXPECT_EQ(io->options().at("fs.s3.accessKeyId"), "id1");
  // The next token expires within the safe time: every call asks again.
  lifetime = RestTokenFileIO::kSafeTimeMillis - 1000;
  ASSERT_OK(RestTokenFileIO::Make(dir.path(), {}, loader, std::nullopt).status());
  EXPECT_EQ(calls, 2);
  ASSERT_OK_AND_ASSIGN(auto stale, RestTokenFileIO::Make(dir.path(), {}, loader, std::nullopt));
  ASSERT_OK(stale->ReadFile(dir.path() + "/a").status());
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(stale->refreshes(), 2);
  EXPECT_EQ(stale->options().at("fs.s3.accessKeyId"), "id4");
}

TEST(RestTokenFileIO, ShipsItsTokenInItsOptions) {
  testing::TempDir dir;
  int calls = 0;
  auto loader = [&]() -> Result<RestDataToken> {
    ++calls;
    return RestDataToken{{{"fs.s3.accessKeyId", "k"}, {"fs.s3.accessKeySecret", "s"}},
                         NowMillis() + 2 * RestTokenFileIO::kSafeTimeMillis};
  };
  ASSERT_OK_AND_ASSIGN(
      auto io, RestTokenFileIO::Make(dir.path(), {{"fs.s3.region", "r"}}, loader, std::nullopt));
  std::map<std::string, std::string> base;
  auto shipped = RestTokenFileIO::ShippedToken(io->options(), &base);
  ASSERT_TRUE(shipped.has_value());
  EXPECT_EQ(shipped->token.size(), 2u);
  EXPECT_EQ(shipped->token.at("fs.s3.accessKeySecret"), "s");
  EXPECT_EQ(base, (std::map<std::string, std::string>{{"fs.s3.region", "r"}}));
  // A process given the fresh token uses it without asking the server.
  ASSERT_OK_AND_ASSIGN(auto copy, RestTokenFileIO::Make(dir.path(), base, loader, shipped));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(copy->refreshes(), 0);
  EXPECT_FALSE(RestTokenFileIO::ShippedToken(base, nullptr).has_value());
}

TEST(RestTokenFileIO, DlfOssEndpointOverTheTokens) {
  testing::TempDir dir;
  auto loader = [&]() -> Result<RestDataToken> {
    return RestDataToken{
        {{"fs.oss.endpoint", "oss-cn-hangzhou.aliyuncs.com"}, {"fs.oss.accessKeyId", "id"}},
        NowMillis() + 2 * RestTokenFileIO::kSafeTimeMillis};
  };
  ASSERT_OK_AND_ASSIGN(auto io, RestTokenFileIO::Make(dir.path(), {}, loader, std::nullopt));
  EXPECT_EQ(io->options().at("fs.oss.endpoint"), "oss-cn-hangzhou.aliyuncs.com");
  ASSERT_OK_AND_ASSIGN(
      io, RestTokenFileIO::Make(dir.path(),
                                {{"dlf.oss-endpoint", "oss-cn-hangzhou-internal.aliyuncs.com"}},
                                loader, std::nullopt));
  EXPECT_EQ(io->options().at("fs.oss.endpoint"), "oss-cn-hangzhou-internal.aliyuncs.com");
  EXPECT_EQ(io->options().at("fs.oss.accessKeyId"), "id");
  // A process given the table (a Ray worker) reaches the files by the same endpoint.
  std::map<std::string, std::string> base;
  auto shipped = RestTokenFileIO::ShippedToken(io->options(), &base);
  ASSERT_TRUE(shipped.has_value());
  ASSERT_OK_AND_ASSIGN(auto copy, RestTokenFileIO::Make(dir.path(), base, loader, shipped));
  EXPECT_EQ(copy->refreshes(), 0);
  EXPECT_EQ(copy->options().at("fs.oss.endpoint"), "oss-cn-hangzhou-internal.aliyuncs.com");
  ASSERT_OK_AND_ASSIGN(
      io, RestTokenFileIO::Make(dir.path(), {{"dlf.oss-endpoint", " "}}, loader, std::nullopt));
  EXPECT_EQ(io->options().at("fs.oss.endpoint"), "oss-cn-hangzhou.aliyuncs.com");
}

TEST(RestTokenFileIO, ALoaderErrorIsTheCallsError) {
  testing::TempDir dir;
  auto loader = []() -> Result<RestDataToken> { return Status::IOError("no token for you"); };
  Status st = RestTokenFileIO::Make(dir.path(), {}, loader, std::nullopt).status();
  EXPECT_RAISES(IOError, st);
  EXPECT_NE(st.message().find("no token for you"), std::string::npos);
}

}  // namespace
}  // namespace paimon_rowid
