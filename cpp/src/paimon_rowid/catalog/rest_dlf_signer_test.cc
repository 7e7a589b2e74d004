// DLF request signing (DLF4-HMAC-SHA256) against known vectors. The expected headers were
// computed by pypaimon 2.1.0's DLFDefaultSigner (the algorithm Java Paimon's DLFDefaultSigner
// documents) for the same inputs; tests/test_rest_dlf_signing.py also checks our signatures
// against Java's signer inside Java's RESTCatalogServer.
#include "paimon_rowid/catalog/rest_dlf_signer.h"

#include <gtest/gtest.h>

#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

constexpr int64_t kTime = 1735787045;  // 2025-01-02T03:04:05Z

TEST(DlfSigner, SignsABodyWithASecurityToken) {
  DlfSigner signer("AKID_EXAMPLE", "SECRET/EXAMPLE+key", "sts-token", "cn-hangzhou");
  auto headers = signer.Sign("POST", "/v1/paimon/databases",
                             {{"warehouse", "wh x"}, {"pageToken", ""}}, R"({"name":"db"})", kTime);
  EXPECT_EQ(headers["x-dlf-date"], "20250102T030405Z");
  EXPECT_EQ(headers["x-dlf-content-sha256"], "UNSIGNED-PAYLOAD");
  EXPECT_EQ(headers["x-dlf-version"], "v1");
  EXPECT_EQ(headers["Content-Type"], "application/json");
  EXPECT_EQ(headers["Content-MD5"], "6ZF45M/6TJ2FOC248EOPDg==");
  EXPECT_EQ(headers["x-dlf-security-token"], "sts-token");
  EXPECT_EQ(headers["Authorization"],
            "DLF4-HMAC-SHA256 Credential=AKID_EXAMPLE/20250102/cn-hangzhou/DlfNext/"
            "aliyun_v4_request,Signature="
            "45d6804fd4f9c7e0ffe0f13621debb4c5b5bedc1ed93f8784cab2b987d1df7ea");
}

TEST(DlfSigner, SignsAGetWithoutBody) {
  DlfSigner signer("AKID_EXAMPLE", "SECRET/EXAMPLE+key", "", "cn-hangzhou");
  auto headers = signer.Sign("GET", "/v1/config", {{"warehouse", "my_wh"}}, "", kTime);
  EXPECT_EQ(headers.count("Content-MD5"), 0u);
  EXPECT_EQ(headers.count("x-dlf-security-token"), 0u);
  EXPECT_EQ(headers["Authorization"],
            "DLF4-HMAC-SHA256 Credential=AKID_EXAMPLE/20250102/cn-hangzhou/DlfNext/"
            "aliyun_v4_request,Signature="
            "15b08bf541529f54b8d0e3fe7e04345c631df4edd974daa20188d7ac338ba599");
}

TEST(DlfSigner, OptionsRegionAndRefusals) {
  std::map<std::string, std::string> options{{"uri", "http://cn-hangzhou-vpc.dlf.aliyuncs.com"},
                                             {"dlf.access-key-id", "id"},
                                             {"dlf.access-key-secret", "secret-value"}};
  ASSERT_OK_AND_ASSIGN(auto signer, DlfSigner::Make(options));
  EXPECT_EQ(signer->region(), "cn-hangzhou");
  options["dlf.region"] = "cn-beijing";
  ASSERT_OK_AND_ASSIGN(signer, DlfSigner::Make(options));
  EXPECT_EQ(signer->region(), "cn-beijing");

  auto without = options;
  without.erase("dlf.access-key-secret");
  EXPECT_RAISES(Invalid, DlfSigner::Make(without).status());
  auto local = options;
  local.erase("dlf.region");
  local["uri"] = "http://localhost:8080";
  EXPECT_RAISES(Invalid, DlfSigner::Make(local).status());
  auto openapi = options;
  openapi["uri"] = "https://dlfnext.cn-hangzhou.aliyuncs.com";
  EXPECT_RAISES(NotImplemented, DlfSigner::Make(openapi).status());
  auto loader = options;
  loader["dlf.token-path"] = "/tmp/token.json";
  Status st = DlfSigner::Make(loader).status();
  EXPECT_RAISES(NotImplemented, st);
  EXPECT_EQ(st.message().find("secret-value"), std::string::npos);
}

}  // namespace
}  // namespace paimon_rowid
