// DLF credentials: the credential document, the token-file loader (a real file, rewritten),
// and the refresh rules of DlfCredentialsProvider. The ECS loader is tested against a real
// local HTTP metadata server in tests/test_rest_dlf_credentials.py.
#include "paimon_rowid/catalog/rest_dlf_credentials.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

constexpr int64_t kHour = 3600 * 1000;
constexpr int64_t kNow = 1735787045000;  // 2025-01-02T03:04:05Z

std::string Document(const std::string& id, const std::string& expiration) {
  return R"({"AccessKeyId": ")" + id + R"(", "AccessKeySecret": "secret-)" + id +
         R"(", "SecurityToken": "sts-)" + id + R"(")" +
         (expiration.empty() ? "" : R"(, "Expiration": ")" + expiration + R"(")") + "}";
}

class TokenFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("dlf-credentials-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "token.json").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& text) {
    const std::string staging = path_ + ".tmp";
    std::ofstream(staging) << text;
    std::filesystem::rename(staging, path_);  // a new inode: seen as changed
  }
  std::filesystem::path dir_;
  std::string path_;
};

TEST(DlfCredentials, ParsesTheDocument) {
  ASSERT_OK_AND_ASSIGN(auto c, ParseDlfCredentials(Document("AK1", "2025-01-02T03:04:05Z")));
  EXPECT_EQ(c.access_key_id, "AK1");
  EXPECT_EQ(c.access_key_secret, "secret-AK1");
  EXPECT_EQ(c.security_token, "sts-AK1");
  EXPECT_EQ(c.expiration_millis, kNow);
  ASSERT_OK_AND_ASSIGN(c, ParseDlfCredentials(R"({"AccessKeyId":"a","AccessKeySecret":"b"})"));
  EXPECT_FALSE(c.security_token.has_value());
  EXPECT_FALSE(c.expiration_millis.has_value());
  // The ECS metadata service's answer carries more fields; nulls are absent values.
  ASSERT_OK_AND_ASSIGN(c, ParseDlfCredentials(R"({"AccessKeyId": "STS.a", "AccessKeySecret": "b",
      "Expiration": "2025-01-02T03:04:05Z", "SecurityToken": "t", "LastUpdated":
      "2025-01-01T21:04:05Z", "Code": "Success"})"));
  EXPECT_EQ(c.access_key_id, "STS.a");
  EXPECT_EQ(c.expiration_millis, kNow);
  ASSERT_OK_AND_ASSIGN(c, ParseDlfCredentials(
                              R"({"AccessKeyId":"a","AccessKeySecret":"b","SecurityToken":null,
                                  "Expiration":null})"));
  EXPECT_FALSE(c.security_token.has_value());
  EXPECT_FALSE(c.expiration_millis.has_value());
  for (const char* bad : {"", "{", "[]", R"({"AccessKeyId":"a"})",
                          R"({"AccessKeyId":"a","AccessKeySecret":"hidden","Expiration":"soon"})",
                          R"({"AccessKeyId":"a","AccessKeySecret":"hidden",
                              "Expiration":"2025-01-02 03:04:05"})"}) {
    Status st = ParseDlfCredentials(bad).status();
    EXPECT_RAISES(Invalid, st) << bad;
    EXPECT_EQ(st.message().find("hidden"), std::string::npos);
  }
}

TEST_F(TokenFile, LoaderReadsAndSeesRewrites) {
  Write(Document("AK1", ""));
  auto loader = MakeDlfTokenFileLoader(path_, /*max_attempts=*/1);
  ASSERT_OK_AND_ASSIGN(auto c, loader->Load());
  EXPECT_EQ(c.access_key_id, "AK1");
  EXPECT_FALSE(loader->Changed());
  Write(Document("AK2", ""));
  EXPECT_TRUE(loader->Changed());
  ASSERT_OK_AND_ASSIGN(c, loader->Load());
  EXPECT_EQ(c.access_key_id, "AK2");
  EXPECT_EQ(loader->description(), path_);
}

TEST_F(TokenFile, LoaderErrorsNameThePathNeverTheKeys) {
  auto loader = MakeDlfTokenFileLoader(path_, /*max_attempts=*/2);
  Status st = loader->Load().status();
  EXPECT_RAISES(UnknownError, st);
  EXPECT_EQ(st.message(), "Failed to read token file: " + path_);
  Write(R"({"AccessKeyId": "AK1", "AccessKeySecret": "hidden-secret", )");
  st = loader->Load().status();
  EXPECT_RAISES(UnknownError, st);
  EXPECT_EQ(st.message(), "Failed to parse token file.");
}

TEST_F(TokenFile, ProviderReloadsOnRewriteAndBeforeExpiry) {
  Write(Document("AK1", "2025-01-02T05:04:05Z"));  // two hours after kNow
  DlfCredentialsProvider provider(MakeDlfTokenFileLoader(path_, 1));
  ASSERT_OK_AND_ASSIGN(auto c, provider.Current(kNow));
  EXPECT_EQ(c.access_key_id, "AK1");
  Write(Document("AK2", "2025-01-02T05:04:05Z"));  // rewritten: taken at once
  ASSERT_OK_AND_ASSIGN(c, provider.Current(kNow));
  EXPECT_EQ(c.access_key_id, "AK2");

  // Within the hour before expiry a failing reload keeps the still valid credentials...
  Write("{ not json");
  ASSERT_OK_AND_ASSIGN(c, provider.Current(kNow + kHour + 1));
  EXPECT_EQ(c.access_key_id, "AK2");
  // ...which past their expiry are refused as the server would refuse them.
  Status st = provider.Current(kNow + 2 * kHour).status();
  EXPECT_RAISES(UnknownError, st);  // the reload's own error first
  EXPECT_EQ(st.message(), "Failed to parse token file.");

  Write(Document("AK3", "2025-01-02T05:04:05Z"));  // an agent that did not renew them
  st = provider.Current(kNow + 2 * kHour).status();
  EXPECT_RAISES(IOError, st);
  ASSERT_NE(GetErrorKind(st), nullptr);
  EXPECT_EQ(*GetErrorKind(st), ErrorKind::kRestNotAuthorized);
  EXPECT_EQ(st.message(), "Not authorized: the DLF credentials from " + path_ +
                              " expired at 2025-01-02T05:04:05Z");
  EXPECT_EQ(st.message().find("secret"), std::string::npos);
  Write(Document("AK4", "2025-01-02T08:04:05Z"));  // renewed
  ASSERT_OK_AND_ASSIGN(c, provider.Current(kNow + 2 * kHour));
  EXPECT_EQ(c.access_key_id, "AK4");
}

// A loader that takes a while and counts its loads; the n-th load's credentials expire n + 1
// hours after kNow.
class SlowCountingLoader : public DlfCredentialsLoader {
 public:
  explicit SlowCountingLoader(std::atomic<int>* loads) : loads_(loads) {}
  Result<DlfCredentials> Load() override {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const int n = ++*loads_;
    return DlfCredentials{"AK" + std::to_string(n), "secret", std::nullopt, kNow + (n + 1) * kHour};
  }
  std::string description() const override { return "slow"; }

 private:
  std::atomic<int>* loads_;
};

TEST(DlfCredentials, OneRefreshServesEveryThread) {
  std::atomic<int> loads{0};
  DlfCredentialsProvider provider(std::make_unique<SlowCountingLoader>(&loads));
  auto all_at = [&](int64_t now) {
    std::vector<std::string> seen(8);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < seen.size(); ++i) {
      threads.emplace_back([&, i] {
        auto c = provider.Current(now);
        seen[i] = c.ok() ? c->access_key_id : c.status().ToString();
      });
    }
    for (auto& t : threads) t.join();
    return seen;
  };
  EXPECT_EQ(all_at(kNow), std::vector<std::string>(8, "AK1"));
  EXPECT_EQ(loads.load(), 1);
  EXPECT_EQ(all_at(kNow + kHour - 1), std::vector<std::string>(8, "AK1"));  // still fresh
  EXPECT_EQ(loads.load(), 1);
  // Within the hour before expiry one thread reloads; the others wait for it and take its
  // credentials (fresh for two more hours) without loading again.
  EXPECT_EQ(all_at(kNow + kHour + 1), std::vector<std::string>(8, "AK2"));
  EXPECT_EQ(loads.load(), 2);
}

TEST(DlfCredentials, ProviderFromOptions) {
  ASSERT_OK_AND_ASSIGN(auto fixed, DlfCredentialsProvider::Make({{"dlf.access-key-id", "a"},
                                                                 {"dlf.access-key-secret", "b"},
                                                                 {"dlf.security-token", "t"}}));
  ASSERT_OK_AND_ASSIGN(auto c, fixed->Current(kNow));
  EXPECT_EQ(c.security_token, "t");
  EXPECT_RAISES(Invalid, DlfCredentialsProvider::Make({{"dlf.access-key-id", "a"}}).status());
  EXPECT_RAISES(Invalid,
                DlfCredentialsProvider::Make({{"dlf.token-loader", "local_file"}}).status());
  EXPECT_RAISES(Invalid, DlfCredentialsProvider::Make({{"dlf.token-loader", "ecs"},
                                                       {"dlf.token-ecs-metadata-url", "ftp://x/"}})
                             .status());
  // A loader wins over keys (pypaimon's precedence); nothing is loaded before the first use.
  ASSERT_OK_AND_ASSIGN(auto file, DlfCredentialsProvider::Make({{"dlf.token-path", "/nonexistent"},
                                                                {"dlf.access-key-id", "a"},
                                                                {"dlf.access-key-secret", "b"}}));
  EXPECT_RAISES(UnknownError, file->Current(kNow).status());
}

}  // namespace
}  // namespace paimon_rowid
