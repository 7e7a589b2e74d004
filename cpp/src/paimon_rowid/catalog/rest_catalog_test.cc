// The REST catalog client's checks that need no server: option validation, a server that is
// not there (fast IOError naming the URI), URL encoding. Calls against a real server (Java
// Paimon's RESTCatalogServer) are tested from Python: tests/test_rest_catalog.py.
#include "paimon_rowid/catalog/rest_catalog.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

// A localhost port nobody listens on (bound, then closed).
int UnusedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

TEST(RestCatalog, RefusesMissingOptions) {
  auto no_uri = RestCatalog::Make({{"warehouse", "w"}});
  ASSERT_RAISES(Invalid, no_uri);
  EXPECT_EQ(no_uri.status().message(), "uri is empty which must be defined.");
  ASSERT_RAISES(Invalid, RestCatalog::Make({{"uri", "http://localhost:1"}}));
  auto no_token = RestCatalog::Make(
      {{"uri", "http://localhost:1"}, {"warehouse", "w"}, {"token.provider", "bear"}});
  ASSERT_RAISES(Invalid, no_token);
  // DLF signing without its keys (catalog/rest_dlf_signer.h); an unknown provider.
  ASSERT_RAISES(
      Invalid, RestCatalog::Make(
                   {{"uri", "http://localhost:1"}, {"warehouse", "w"}, {"token.provider", "dlf"}}));
  ASSERT_RAISES(NotImplemented, RestCatalog::Make({{"uri", "http://localhost:1"},
                                                   {"warehouse", "w"},
                                                   {"token.provider", "ldap"}}));
}

TEST(RestCatalog, ServerDownFailsFastNamingTheUri) {
  const std::string uri = "127.0.0.1:" + std::to_string(UnusedPort());
  const auto started = std::chrono::steady_clock::now();
  auto made = RestCatalog::Make(
      {{"uri", uri}, {"warehouse", "w"}, {"token.provider", "bear"}, {"token", "secret-1"}});
  const auto elapsed = std::chrono::steady_clock::now() - started;
  ASSERT_RAISES(IOError, made);
  EXPECT_NE(
      made.status().message().find("REST catalog server at http://" + uri + " cannot be reached"),
      std::string::npos)
      << made.status().message();
  EXPECT_EQ(made.status().message().find("secret-1"), std::string::npos);
  EXPECT_LT(elapsed, std::chrono::seconds(5));
}

TEST(HttpClient, EncodesOnePathSegment) {
  EXPECT_EQ(HttpClient::Encode("db_1.t-2~"), "db_1.t-2~");
  EXPECT_EQ(HttpClient::Encode("a b/c?d"), "a%20b%2Fc%3Fd");
  ASSERT_RAISES(Invalid, HttpClient::Make("  "));
  ASSERT_OK_AND_ASSIGN(auto client, HttpClient::Make("localhost:8080/"));
  EXPECT_EQ(client->base_url(), "http://localhost:8080");
}

}  // namespace
}  // namespace paimon_rowid
