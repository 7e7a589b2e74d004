#include "paimon_rowid/fs/s3_options.h"

#include <gtest/gtest.h>

#include "paimon_rowid/fs/file_io.h"
#include "paimon_rowid/fs/s3_put.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {

TEST(S3OptionsTest, PypaimonNames) {
  auto c = S3Config::FromOptions("s3", {{"warehouse", "s3://b/w"},
                                        {"fs.s3.endpoint", "http://127.0.0.1:9000/"},
                                        {"fs.s3.accessKeyId", "ak"},
                                        {"fs.s3.accessKeySecret", "sk"},
                                        {"fs.s3.securityToken", "tok"},
                                        {"fs.s3.region", "eu-west-1"}});
  ASSERT_OK(c);
  EXPECT_EQ(c->endpoint, "127.0.0.1:9000");
  EXPECT_FALSE(c->use_https);
  EXPECT_EQ(c->access_key, "ak");
  EXPECT_EQ(c->secret_key, "sk");
  EXPECT_EQ(c->session_token, "tok");
  EXPECT_EQ(c->region, "eu-west-1");
  EXPECT_TRUE(c->path_style);  // a custom endpoint defaults to path style
  EXPECT_EQ(c->put_if_absent, PutIfAbsentMode::kAuto);
  EXPECT_FALSE(c->single_writer);
  EXPECT_EQ(c->keys.count("warehouse"), 0u);  // only filesystem keys are kept
  EXPECT_EQ(c->keys.size(), 5u);
}

TEST(S3OptionsTest, JavaNamesAndPathStyle) {
  auto c = S3Config::FromOptions("s3a", {{"s3.endpoint", "minio.local:9000"},
                                         {"s3.access-key", "ak"},
                                         {"s3.secret-key", "sk"},
                                         {"s3.path.style.access", "false"}});
  ASSERT_OK(c);
  EXPECT_EQ(c->endpoint, "minio.local:9000");
  EXPECT_TRUE(c->use_https);
  EXPECT_FALSE(c->path_style);
  auto aws = S3Config::FromOptions("s3", {});
  ASSERT_OK(aws);
  EXPECT_TRUE(aws->endpoint.empty());
  EXPECT_FALSE(aws->path_style);  // AWS itself: virtual hosts
  EXPECT_TRUE(aws->access_key.empty());
}

TEST(S3OptionsTest, OurOptions) {
  auto c = S3Config::FromOptions(
      "s3", {{"s3.put-if-absent", "false"}, {"s3.commit.single-writer", "TRUE"}});
  ASSERT_OK(c);
  EXPECT_EQ(c->put_if_absent, PutIfAbsentMode::kUnsupported);
  EXPECT_TRUE(c->single_writer);
  EXPECT_RAISES(Invalid, S3Config::FromOptions("s3", {{"s3.put-if-absent", "maybe"}}));
  EXPECT_RAISES(Invalid, S3Config::FromOptions("s3", {{"s3.commit.single-writer", "1"}}));
}

TEST(S3OptionsTest, RefusesUnknownAndConflictingKeys) {
  auto typo = S3Config::FromOptions("s3", {{"fs.s3.endpiont", "x"}});
  EXPECT_RAISES(Invalid, typo);
  EXPECT_NE(typo.status().message().find("'fs.s3.endpiont'"), std::string::npos);
  EXPECT_RAISES(Invalid, ValidateObjectStoreKeys({{"s3.connection.maximum", "10"}}));
  EXPECT_RAISES(Invalid, ValidateObjectStoreKeys({{"fs.oss.bogus", "x"}}));
  EXPECT_RAISES(NotImplemented,
                ValidateObjectStoreKeys({{"fs.oss.server-side-encryption", "KMS"}}));
  EXPECT_OK(ValidateObjectStoreKeys({{"warehouse", "/x"}, {"s3fs", "not ours"}}));
  auto conflict = S3Config::FromOptions(
      "s3", {{"fs.s3.accessKeyId", "a"}, {"s3.access-key", "b"}, {"s3.secret-key", "s"}});
  EXPECT_RAISES(Invalid, conflict);
  EXPECT_NE(conflict.status().message().find("conflicting access key"), std::string::npos);
  EXPECT_RAISES(Invalid, S3Config::FromOptions("s3", {{"s3.access-key", "a"}}));
  EXPECT_RAISES(Invalid, S3Config::FromOptions("s3", {{"s3.endpoint", "ftp://h"}}));
  EXPECT_RAISES(Invalid, S3Config::FromOptions("s3", {{"s3.endpoint", "h:1/path"}}));
}

// Timeouts and attempts under Hadoop S3A's names (any S3 prefix), with bounded defaults.
TEST(S3OptionsTest, TimeoutsAndAttempts) {
  ASSERT_OK_AND_ASSIGN(auto d, S3Config::FromOptions("s3", {{"s3.endpoint", "http://h:1"}}));
  EXPECT_EQ(d.connect_timeout_ms, 5000);
  EXPECT_EQ(d.request_timeout_ms, 60000);
  EXPECT_EQ(d.max_attempts, 3);
  ASSERT_OK_AND_ASSIGN(auto c,
                       S3Config::FromOptions("s3", {{"fs.s3a.connection.establish.timeout", "2 s"},
                                                    {"s3.connection.timeout", "1500"},
                                                    {"s3.attempts.maximum", "1"}}));
  EXPECT_EQ(c.connect_timeout_ms, 2000);
  EXPECT_EQ(c.request_timeout_ms, 1500);
  EXPECT_EQ(c.max_attempts, 1);
  EXPECT_RAISES(Invalid, S3Config::FromOptions("s3", {{"s3.attempts.maximum", "0"}}));
  EXPECT_RAISES(Invalid, S3Config::FromOptions("s3", {{"s3.connection.timeout", "soon"}}));
  EXPECT_RAISES(Invalid, S3Config::FromOptions("s3", {{"s3.connection.timeout", "1 s"},
                                                      {"fs.s3a.connection.timeout", "2 s"}}));
}

TEST(S3OptionsTest, Oss) {
  auto c = S3Config::FromOptions("oss", {{"fs.oss.endpoint", "oss-cn-hangzhou.aliyuncs.com"},
                                         {"fs.oss.accessKeyId", "ak"},
                                         {"fs.oss.accessKeySecret", "sk"},
                                         {"fs.oss.impl", "jindo"}});
  ASSERT_OK(c);
  EXPECT_FALSE(c->path_style);
  EXPECT_TRUE(c->use_https);
  EXPECT_RAISES(Invalid, S3Config::FromOptions("oss", {}));  // needs its endpoint
}

TEST(S3OptionsTest, CacheKeyFollowsTheKeys) {
  auto a = *S3Config::FromOptions("s3", {{"s3.endpoint", "h"}});
  auto b = *S3Config::FromOptions("s3", {{"s3.endpoint", "h"}, {"warehouse", "s3://x"}});
  auto c = *S3Config::FromOptions("s3", {{"s3.endpoint", "g"}});
  EXPECT_EQ(a.CacheKey(), b.CacheKey());
  EXPECT_NE(a.CacheKey(), c.CacheKey());
  EXPECT_NE(a.CacheKey(), S3Config::FromOptions("s3a", {{"s3.endpoint", "h"}})->CacheKey());
}

TEST(S3PutTest, UrlsAndDigest) {
  S3Config path = *S3Config::FromOptions("s3", {{"s3.endpoint", "http://127.0.0.1:9000"}});
  S3ConditionalPut p(path, [] { return S3Credentials{}; });
  EXPECT_EQ(p.Url("bkt", "wh/db.db/t/snapshot/snapshot-1"),
            "http://127.0.0.1:9000/bkt/wh/db.db/t/snapshot/snapshot-1");
  EXPECT_EQ(p.Url("bkt", "a b+c"), "http://127.0.0.1:9000/bkt/a%20b%2Bc");
  S3Config aws = *S3Config::FromOptions("s3", {{"s3.region", "eu-west-1"}});
  S3ConditionalPut v(aws, [] { return S3Credentials{}; });
  EXPECT_EQ(v.Url("bkt", "k"), "https://bkt.s3.eu-west-1.amazonaws.com/k");
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(FileIOMakeTest, Schemes) {
  EXPECT_EQ(UriScheme("s3://b/k"), "s3");
  EXPECT_EQ(UriScheme("S3A://b/k"), "s3a");
  EXPECT_EQ(UriScheme("/tmp/x:y"), "");
  EXPECT_EQ(UriScheme("C:/x"), "");
  EXPECT_EQ(UriScheme("file:/x"), "file");
  EXPECT_EQ(*FileIO::Make("/tmp/w", {}), FileIO::Local());
  EXPECT_EQ(*FileIO::Make("file:///tmp/w", {}), FileIO::Local());
  EXPECT_RAISES(NotImplemented, FileIO::Make("hdfs://nn/w", {}));
  EXPECT_RAISES(Invalid, FileIO::Make("/tmp/w", {{"fs.s3.endpiont", "x"}}));
  auto s3 = FileIO::Make("s3://b/w", {{"s3.endpoint", "http://127.0.0.1:1"}, {"x", "y"}});
  ASSERT_OK(s3);
  EXPECT_FALSE((*s3)->atomic_rename());
  EXPECT_EQ((*s3)->options().size(), 1u);
  // The same configuration is the same client.
  EXPECT_EQ(*FileIO::Make("s3://other/w", {{"s3.endpoint", "http://127.0.0.1:1"}}), *s3);
}

// Arrow's S3 must be finalized before exit, like any program using S3 warehouses must do.
class FinalizeS3 : public ::testing::Environment {
 public:
  void TearDown() override { ASSERT_OK(FinalizeObjectStores()); }
};
const auto* const kFinalizeS3 = ::testing::AddGlobalTestEnvironment(new FinalizeS3);

}  // namespace paimon_rowid
