#include "paimon_rowid/catalog/rest_dlf_signer.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <random>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include "paimon_rowid/fs/http_client.h"

namespace paimon_rowid {
namespace {

constexpr const char* kAlgorithm = "DLF4-HMAC-SHA256";
constexpr const char* kProduct = "DlfNext";
constexpr const char* kRequestType = "aliyun_v4_request";
constexpr const char* kUnsignedPayload = "UNSIGNED-PAYLOAD";
constexpr const char* kAlgorithmV4 = "ACS4-HMAC-SHA256";
constexpr const char* kOpenApiVersion = "2026-01-18";

std::string Hex(const unsigned char* data, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(digits[data[i] >> 4]);
    out.push_back(digits[data[i] & 15]);
  }
  return out;
}

std::string Digest(const EVP_MD* md, const std::string& data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(data.data(), data.size(), out, &n, md, nullptr);
  return std::string(reinterpret_cast<char*>(out), n);
}

std::string Hmac(const std::string& key, const std::string& data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &n);
  return std::string(reinterpret_cast<char*>(out), n);
}

std::string Base64(const std::string& raw) {
  std::string out(4 * ((raw.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(raw.data()),
                          static_cast<int>(raw.size()));
  out.resize(n);
  return out;
}

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

std::string HmacSha1(const std::string& key, const std::string& data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &n);
  return std::string(reinterpret_cast<char*>(out), n);
}

std::string HexOf(const std::string& raw) {
  return Hex(reinterpret_cast<const unsigned char*>(raw.data()), raw.size());
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Java's URLDecoder / Python's unquote_plus: '+' is a space, %XX a byte.
std::string FormDecode(const std::string& text) {
  std::string spaced = text;
  for (char& c : spaced) {
    if (c == '+') c = ' ';
  }
  return HttpClient::Decode(spaced);
}

// The signing key of both v4 schemes: "aliyun_v4" + secret through date, region, product.
std::string V4Key(const std::string& secret, const std::string& date, const std::string& region) {
  std::string key = Hmac("aliyun_v4" + secret, date);
  key = Hmac(key, region);
  key = Hmac(key, kProduct);
  return Hmac(key, kRequestType);
}

std::string Utc(int64_t epoch_seconds, const char* format) {
  std::time_t secs = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char out[64];
  std::strftime(out, sizeof(out), format, &tm);
  return out;
}

// RFC 1123 with English names whatever the locale (strftime's %a/%b follow LC_TIME).
std::string Rfc1123(int64_t epoch_seconds) {
  static const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::time_t secs = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char out[64];
  std::snprintf(out, sizeof(out), "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[tm.tm_wday],
                tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  return out;
}

std::map<std::string, std::string> SignDefault(const std::string& region, const DlfCredentials& key,
                                               const DlfRequest& r, int64_t epoch_seconds) {
  const std::string date_time = Utc(epoch_seconds, "%Y%m%dT%H%M%SZ");
  const std::string date = date_time.substr(0, 8);
  std::map<std::string, std::string> headers;  // what is sent (and signed, lower-cased)
  headers["x-dlf-date"] = date_time;
  headers["x-dlf-content-sha256"] = kUnsignedPayload;
  headers["x-dlf-version"] = "v1";
  if (!r.body.empty()) {
    headers["Content-Type"] = "application/json";
    headers["Content-MD5"] = Base64(Digest(EVP_md5(), r.body));
  }
  if (key.security_token) headers["x-dlf-security-token"] = *key.security_token;

  std::string canonical = r.method + "\n" + r.path + "\n";
  std::string query_part;
  for (const auto& [k, v] : r.query) {  // std::map: sorted by key
    if (!query_part.empty()) query_part += "&";
    query_part += Trim(k);
    // Values percent-encoded (all but RFC 3986's unreserved), as pypaimon's and Java's
    // RESTAuthParameter hand them to the signer.
    if (!v.empty()) query_part += "=" + Trim(HttpClient::Encode(v));
  }
  canonical += query_part;
  std::map<std::string, std::string> signed_headers;
  for (const auto& [k, v] : headers) signed_headers[Lower(k)] = Trim(v);
  for (const auto& [k, v] : signed_headers) canonical += "\n" + k + ":" + v;
  canonical += "\n" + std::string(kUnsignedPayload);

  const std::string scope = date + "/" + region + "/" + kProduct + "/" + kRequestType;
  const std::string to_sign = std::string(kAlgorithm) + "\n" + date_time + "\n" + scope + "\n" +
                              HexOf(Digest(EVP_sha256(), canonical));
  const std::string signature = Hmac(V4Key(key.access_key_secret, date, region), to_sign);
  headers["Authorization"] = std::string(kAlgorithm) + " Credential=" + key.access_key_id + "/" +
                             scope + ",Signature=" + HexOf(signature);
  return headers;
}

std::map<std::string, std::string> SignOpenApi(const std::string& host, const DlfCredentials& key,
                                               const DlfRequest& r, int64_t epoch_seconds,
                                               const std::string& nonce) {
  std::map<std::string, std::string> headers;
  headers["Date"] = Rfc1123(epoch_seconds);
  headers["Accept"] = "application/json";
  if (!r.body.empty()) {
    headers["Content-MD5"] = Base64(Digest(EVP_md5(), r.body));
    headers["Content-Type"] = "application/json";
  }
  headers["Host"] = host;
  headers["x-acs-signature-method"] = "HMAC-SHA1";
  headers["x-acs-signature-nonce"] = nonce;
  headers["x-acs-signature-version"] = "1.0";
  headers["x-acs-version"] = kOpenApiVersion;
  if (key.security_token) headers["x-acs-security-token"] = *key.security_token;

  auto get = [&](const char* name) {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  };
  std::string to_sign = r.method + "\n" + get("Accept") + "\n" + get("Content-MD5") + "\n" +
                        get("Content-Type") + "\n" + get("Date") + "\n";
  std::map<std::string, std::string> acs;
  for (const auto& [k, v] : headers) {
    const std::string lower = Lower(k);
    if (lower.rfind("x-acs-", 0) == 0) acs[lower] = Trim(v);
  }
  for (const auto& [k, v] : acs) to_sign += k + ":" + v + "\n";
  to_sign += FormDecode(r.path);
  if (!r.query.empty()) {
    std::string query_part;
    for (const auto& [k, v] : r.query) {  // decoded values, as both decode what they sign
      if (!query_part.empty()) query_part += "&";
      query_part += k;
      if (!v.empty()) query_part += "=" + v;
    }
    to_sign += "?" + query_part;
  }
  headers["Authorization"] =
      "acs " + key.access_key_id + ":" + Base64(HmacSha1(key.access_key_secret, to_sign));
  return headers;
}

std::map<std::string, std::string> SignOpenApiV4(const std::string& region, const std::string& host,
                                                 const DlfCredentials& key, const DlfRequest& r,
                                                 int64_t epoch_seconds, const std::string& nonce) {
  static const std::string kEmptySha256 = HexOf(Digest(EVP_sha256(), ""));
  std::map<std::string, std::string> headers;
  const std::string acs_date = Utc(epoch_seconds, "%Y-%m-%dT%H:%M:%SZ");
  headers["x-acs-date"] = acs_date;
  headers["host"] = host;
  if (!r.body.empty()) {
    headers["x-acs-content-sha256"] = HexOf(Digest(EVP_sha256(), r.body));
    headers["content-type"] = "application/json";
  } else {
    headers["x-acs-content-sha256"] = kEmptySha256;
  }
  headers["x-acs-signature-nonce"] = nonce;
  headers["x-acs-version"] = kOpenApiVersion;
  if (key.security_token) headers["x-acs-security-token"] = *key.security_token;
  const std::string action = DlfOpenApiAction(r.method, r.path);
  if (!action.empty()) headers["x-acs-action"] = action;

  std::string canonical_headers, signed_names;
  for (const auto& [k, v] : headers) {  // all lower-case already, so sorted as signed
    canonical_headers += k + ":" + Trim(v) + "\n";
    signed_names += (signed_names.empty() ? "" : ";") + k;
  }
  std::string query_part;
  for (const auto& [k, v] : r.query) {
    if (!query_part.empty()) query_part += "&";
    query_part += HttpClient::Encode(k) + "=" + HttpClient::Encode(v);
  }
  const std::string uri = Trim(r.path).empty() ? "/" : r.path;
  const std::string canonical = r.method + "\n" + uri + "\n" + query_part + "\n" +
                                canonical_headers + "\n" + signed_names + "\n" +
                                headers["x-acs-content-sha256"];
  const std::string to_sign =
      std::string(kAlgorithmV4) + "\n" + HexOf(Digest(EVP_sha256(), canonical));
  const std::string date = acs_date.substr(0, 4) + acs_date.substr(5, 2) + acs_date.substr(8, 2);
  const std::string signature = Hmac(V4Key(key.access_key_secret, date, region), to_sign);
  headers["Authorization"] = std::string(kAlgorithmV4) + " Credential=" + key.access_key_id + "/" +
                             date + "/" + region + "/" + kProduct + "/" + kRequestType +
                             ",SignedHeaders=" + signed_names + ",Signature=" + HexOf(signature);
  return headers;
}

// uuid4-like random hex, epoch millis and a thread number, as pypaimon builds its nonces.
std::string Nonce(int64_t epoch_millis) {
  thread_local std::mt19937_64 random{std::random_device{}()};
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) out.push_back('-');
    out.push_back(kDigits[random() & 15]);
  }
  std::ostringstream tail;
  tail << epoch_millis << std::hash<std::thread::id>{}(std::this_thread::get_id()) % 1000000007;
  return out + tail.str();
}

// The DlfNext 2026-01-18 APIs by method and path ("{}" matches one non-empty segment).
struct DlfAction {
  const char* method;
  const char* path;
  const char* action;
};
constexpr DlfAction kActions[] = {
    {"GET", "/v1/config", "GetConfig"},
    {"GET", "/v1/{}/databases", "ListDatabases"},
    {"POST", "/v1/{}/databases", "CreateDatabase"},
    {"GET", "/v1/{}/databases/{}", "GetDatabase"},
    {"POST", "/v1/{}/databases/{}", "AlterDatabase"},
    {"DELETE", "/v1/{}/databases/{}", "DropDatabase"},
    {"POST", "/v1/{}/databases/{}/register", "RegisterTable"},
    {"GET", "/v1/{}/databases/{}/tables", "ListTables"},
    {"POST", "/v1/{}/databases/{}/tables", "CreateTable"},
    {"GET", "/v1/{}/databases/{}/table-details", "ListTableDetails"},
    {"GET", "/v1/{}/databases/{}/tables/{}", "GetTable"},
    {"POST", "/v1/{}/databases/{}/tables/{}", "AlterTable"},
    {"DELETE", "/v1/{}/databases/{}/tables/{}", "DropTable"},
    {"POST", "/v1/{}/tables/rename", "RenameTable"},
    {"POST", "/v1/{}/databases/{}/tables/{}/auth", "AuthTableQuery"},
    {"POST", "/v1/{}/databases/{}/tables/{}/commit", "CommitTable"},
    {"GET", "/v1/{}/databases/{}/tables/{}/token", "GetTableToken"},
    {"POST", "/v1/{}/databases/{}/tables/{}/rollback", "RollbackToSnapshot"},
    {"GET", "/v1/{}/databases/{}/tables/{}/snapshot", "GetTableSnapshot"},
    {"GET", "/v1/{}/databases/{}/tables/{}/snapshots", "ListSnapshots"},
    {"GET", "/v1/{}/databases/{}/tables/{}/snapshots/{}", "GetVersionSnapshot"},
    {"GET", "/v1/{}/databases/{}/tables/{}/partitions", "ListPartitions"},
    {"POST", "/v1/{}/databases/{}/tables/{}/partitions", "CreatePartitions"},
    {"POST", "/v1/{}/databases/{}/tables/{}/partitions/drop", "DropPartitions"},
    {"POST", "/v1/{}/databases/{}/tables/{}/partitions/mark", "MarkDonePartitions"},
    {"POST", "/v1/{}/databases/{}/tables/{}/partitions/list-by-names", "ListPartitionsByNames"},
    {"POST", "/v1/{}/databases/{}/tables/{}/partitions/list-by-filter", "ListPartitionsByFilter"},
    {"GET", "/v1/{}/databases/{}/tables/{}/branches", "ListBranches"},
    {"POST", "/v1/{}/databases/{}/tables/{}/branches", "CreateBranch"},
    {"DELETE", "/v1/{}/databases/{}/tables/{}/branches/{}", "DropBranch"},
    {"POST", "/v1/{}/databases/{}/tables/{}/branches/{}/forward", "FastForwardBranch"},
    {"GET", "/v1/{}/databases/{}/tables/{}/tags", "ListTags"},
    {"POST", "/v1/{}/databases/{}/tables/{}/tags", "CreateTag"},
    {"GET", "/v1/{}/databases/{}/tables/{}/tags/{}", "GetTag"},
    {"DELETE", "/v1/{}/databases/{}/tables/{}/tags/{}", "DropTag"},
    {"GET", "/v1/{}/databases/{}/tables/{}/policies", "ListPolicies"},
    {"POST", "/v1/{}/databases/{}/tables/{}/policies", "CreatePolicy"},
    {"POST", "/v1/{}/databases/{}/tables/{}/policies/drop", "DropPolicy"},
    {"GET", "/v1/{}/databases/{}/views", "ListViews"},
    {"POST", "/v1/{}/databases/{}/views", "CreateView"},
    {"GET", "/v1/{}/databases/{}/view-details", "ListViewDetails"},
    {"GET", "/v1/{}/databases/{}/views/{}", "GetView"},
    {"POST", "/v1/{}/databases/{}/views/{}", "AlterView"},
    {"DELETE", "/v1/{}/databases/{}/views/{}", "DropView"},
    {"POST", "/v1/{}/views/rename", "RenameView"},
    {"GET", "/v1/{}/databases/{}/functions", "ListFunctions"},
    {"POST", "/v1/{}/databases/{}/functions", "CreateFunction"},
    {"GET", "/v1/{}/databases/{}/functions/{}", "GetFunction"},
    {"POST", "/v1/{}/databases/{}/functions/{}", "AlterFunction"},
    {"DELETE", "/v1/{}/databases/{}/functions/{}", "DropFunction"},
    {"GET", "/v1/{}/permissions", "ListPermissionAssignments"},
    {"POST", "/v1/{}/permissions/grant", "GrantPermissionAssignment"},
    {"POST", "/v1/{}/permissions/revoke", "RevokePermissionAssignment"},
};

std::vector<std::string> Segments(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t slash = path.find('/', start);
    out.push_back(path.substr(start, slash == std::string::npos ? slash : slash - start));
    if (slash == std::string::npos) return out;
    start = slash + 1;
  }
}

std::string HostOf(const std::string& uri) {
  std::string host = uri;
  if (host.rfind("http://", 0) == 0) {
    host = host.substr(7);
  } else if (host.rfind("https://", 0) == 0) {
    host = host.substr(8);
  }
  return host.substr(0, host.find('/'));
}

}  // namespace

std::string DlfOpenApiAction(const std::string& method, const std::string& path) {
  const std::vector<std::string> segments = Segments(path);
  for (const DlfAction& candidate : kActions) {
    if (method != candidate.method) continue;
    const std::vector<std::string> pattern = Segments(candidate.path);
    if (pattern.size() != segments.size()) continue;
    bool match = true;
    for (size_t i = 0; i < pattern.size() && match; ++i) {
      match = pattern[i] == "{}" ? !segments[i].empty() : pattern[i] == segments[i];
    }
    if (match) return candidate.action;
  }
  return "";
}

std::map<std::string, std::string> SignDlfRequest(DlfSigningAlgorithm algorithm,
                                                  const std::string& region,
                                                  const std::string& host,
                                                  const DlfCredentials& credentials,
                                                  const DlfRequest& request, int64_t epoch_seconds,
                                                  const std::string& nonce) {
  switch (algorithm) {
    case DlfSigningAlgorithm::kOpenApi:
      return SignOpenApi(host, credentials, request, epoch_seconds, nonce);
    case DlfSigningAlgorithm::kOpenApiV4:
      return SignOpenApiV4(region, host, credentials, request, epoch_seconds, nonce);
    case DlfSigningAlgorithm::kDefault:
      break;
  }
  return SignDefault(region, credentials, request, epoch_seconds);
}

Result<std::unique_ptr<DlfSigner>> DlfSigner::Make(
    const std::map<std::string, std::string>& options) {
  auto get = [&](const char* key) {
    auto it = options.find(key);
    return it == options.end() ? std::string() : it->second;
  };
  const std::string uri = get("uri");
  const std::string host = HostOf(uri);
  std::string name = get("dlf.signing-algorithm");
  if (name.empty() || name == "default") {
    // pypaimon's choice by the endpoint: the public dlfnext hosts speak OpenAPI.
    name = Lower(host.substr(0, host.find(':'))).find("dlfnext") != std::string::npos ? "openapi"
                                                                                      : "default";
  }
  DlfSigningAlgorithm algorithm;
  if (name == "default") {
    algorithm = DlfSigningAlgorithm::kDefault;
  } else if (name == "openapi") {
    algorithm = DlfSigningAlgorithm::kOpenApi;
  } else if (name == "openapi-v4") {
    algorithm = DlfSigningAlgorithm::kOpenApiV4;
  } else {
    return Status::Invalid("Unknown DLF signing algorithm: ", name,
                           ". Supported: default, openapi, openapi-v4");
  }
  std::string region = get("dlf.region");
  if (region.empty()) {
    std::smatch match;
    static const std::regex pattern("(?:pre-)?([a-z]+-[a-z]+(?:-\\d+)?)");
    if (std::regex_search(uri, match, pattern)) region = match[1];
  }
  if (region.empty()) {
    return Status::Invalid(
        "Could not get region from config or URI. Please set 'dlf.region' or use a standard "
        "DLF endpoint URI.");
  }
  ARROW_ASSIGN_OR_RAISE(auto credentials, DlfCredentialsProvider::Make(options));
  return std::unique_ptr<DlfSigner>(
      new DlfSigner(algorithm, std::move(region), host, std::move(credentials)));
}

Result<std::map<std::string, std::string>> DlfSigner::Sign(const DlfRequest& request) const {
  const int64_t now_millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
  ARROW_ASSIGN_OR_RAISE(DlfCredentials credentials, credentials_->Current(now_millis));
  return SignDlfRequest(algorithm_, region_, host_, credentials, request, now_millis / 1000,
                        Nonce(now_millis));
}

}  // namespace paimon_rowid
