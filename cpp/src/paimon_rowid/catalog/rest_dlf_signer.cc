#include "paimon_rowid/catalog/rest_dlf_signer.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <ctime>
#include <regex>
#include <vector>

#include "paimon_rowid/fs/http_client.h"

namespace paimon_rowid {
namespace {

constexpr const char* kAlgorithm = "DLF4-HMAC-SHA256";
constexpr const char* kProduct = "DlfNext";
constexpr const char* kRequestType = "aliyun_v4_request";
constexpr const char* kUnsignedPayload = "UNSIGNED-PAYLOAD";

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

std::string Get(const std::map<std::string, std::string>& options, const char* key) {
  auto it = options.find(key);
  return it == options.end() ? std::string() : it->second;
}

}  // namespace

Result<std::unique_ptr<DlfSigner>> DlfSigner::Make(
    const std::map<std::string, std::string>& options) {
  for (const char* loader : {"dlf.token-loader", "dlf.token-path"}) {
    if (!Get(options, loader).empty()) {
      return Status::NotImplemented(loader,
                                    " is not supported: give dlf.access-key-id and "
                                    "dlf.access-key-secret (and dlf.security-token)");
    }
  }
  const std::string algorithm = Get(options, "dlf.signing-algorithm");
  const std::string uri = Get(options, "uri");
  std::string host = uri.substr(uri.find("://") == std::string::npos ? 0 : uri.find("://") + 3);
  host = host.substr(0, host.find_first_of("/:"));
  const bool openapi =
      algorithm == "openapi" || algorithm == "openapi-v4" ||
      ((algorithm.empty() || algorithm == "default") && host.find("dlfnext") != std::string::npos);
  if (openapi) {
    return Status::NotImplemented("DLF signing algorithm '",
                                  algorithm.empty() ? "openapi" : algorithm,
                                  "' is not supported (supported: 'default', DLF4-HMAC-SHA256)");
  }
  if (!algorithm.empty() && algorithm != "default") {
    return Status::Invalid("unknown dlf.signing-algorithm '", algorithm, "'");
  }
  const std::string id = Get(options, "dlf.access-key-id");
  const std::string secret = Get(options, "dlf.access-key-secret");
  if (id.empty() || secret.empty()) {
    return Status::Invalid(
        "token.provider 'dlf' needs dlf.access-key-id and dlf.access-key-secret");
  }
  std::string region = Get(options, "dlf.region");
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
  return std::make_unique<DlfSigner>(id, secret, Get(options, "dlf.security-token"), region);
}

std::map<std::string, std::string> DlfSigner::Sign(const std::string& method,
                                                   const std::string& path,
                                                   const std::map<std::string, std::string>& query,
                                                   const std::string& body,
                                                   int64_t epoch_seconds) const {
  std::time_t secs = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
  const std::string date_time = stamp;
  const std::string date = date_time.substr(0, 8);

  std::map<std::string, std::string> headers;  // what is sent (and signed, lower-cased)
  headers["x-dlf-date"] = date_time;
  headers["x-dlf-content-sha256"] = kUnsignedPayload;
  headers["x-dlf-version"] = "v1";
  if (!body.empty()) {
    headers["Content-Type"] = "application/json";
    headers["Content-MD5"] = Base64(Digest(EVP_md5(), body));
  }
  if (!security_token_.empty()) headers["x-dlf-security-token"] = security_token_;

  std::string canonical = method + "\n" + path + "\n";
  std::string query_part;
  for (const auto& [k, v] : query) {  // std::map: sorted by key
    if (!query_part.empty()) query_part += "&";
    query_part += Trim(k);
    // Values percent-encoded (all but RFC 3986's unreserved), as pypaimon's and Java's
    // RESTAuthParameter hand them to the signer.
    if (!v.empty()) query_part += "=" + Trim(HttpClient::Encode(v));
  }
  canonical += query_part;
  std::map<std::string, std::string> signed_headers;
  for (const auto& [k, v] : headers) {
    std::string lower = k;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    signed_headers[lower] = Trim(v);
  }
  for (const auto& [k, v] : signed_headers) canonical += "\n" + k + ":" + v;
  canonical += "\n" + std::string(kUnsignedPayload);

  const std::string scope = date + "/" + region_ + "/" + kProduct + "/" + kRequestType;
  const std::string canonical_hash = Digest(EVP_sha256(), canonical);
  const std::string to_sign =
      std::string(kAlgorithm) + "\n" + date_time + "\n" + scope + "\n" +
      Hex(reinterpret_cast<const unsigned char*>(canonical_hash.data()), canonical_hash.size());
  std::string key = Hmac("aliyun_v4" + access_key_secret_, date);
  key = Hmac(key, region_);
  key = Hmac(key, kProduct);
  key = Hmac(key, kRequestType);
  const std::string signature = Hmac(key, to_sign);
  headers["Authorization"] =
      std::string(kAlgorithm) + " Credential=" + access_key_id_ + "/" + scope + ",Signature=" +
      Hex(reinterpret_cast<const unsigned char*>(signature.data()), signature.size());
  return headers;
}

}  // namespace paimon_rowid
