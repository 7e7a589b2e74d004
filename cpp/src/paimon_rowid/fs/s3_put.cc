#include "paimon_rowid/fs/s3_put.h"

#include <curl/curl.h>
#include <openssl/evp.h>

#include <chrono>
#include <mutex>
#include <thread>

namespace paimon_rowid {
namespace {

constexpr size_t kMaxIdleHandles = 8;

size_t AppendBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// S3's URI encoding of an object key: every byte but unreserved ones and '/'.
std::string EncodeKey(std::string_view key) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  out.reserve(key.size());
  for (unsigned char c : key) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~' || c == '/') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

// The <Message> of an S3 XML error body, or the body's start.
std::string ErrorMessage(const std::string& body) {
  const size_t open = body.find("<Message>");
  const size_t close = body.find("</Message>");
  if (open != std::string::npos && close != std::string::npos && close > open) {
    return body.substr(open + 9, close - open - 9);
  }
  return body.substr(0, 200);
}

bool Transient(int http) { return http == 0 || http == 409 || http == 429 || http >= 500; }

}  // namespace

void EnsureCurlInitialized() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(hex[digest[i] >> 4]);
    out.push_back(hex[digest[i] & 15]);
  }
  return out;
}

S3ConditionalPut::S3ConditionalPut(const S3Config& config, CredentialsFn credentials)
    : config_(config), region_(config.EffectiveRegion()), credentials_(std::move(credentials)) {
  EnsureCurlInitialized();
}

std::string S3ConditionalPut::Url(const std::string& bucket, const std::string& key) const {
  const std::string scheme = config_.use_https ? "https://" : "http://";
  const std::string host =
      config_.endpoint.empty() ? "s3." + region_ + ".amazonaws.com" : config_.endpoint;
  if (config_.path_style) return scheme + host + "/" + bucket + "/" + EncodeKey(key);
  return scheme + bucket + "." + host + "/" + EncodeKey(key);
}

S3ConditionalPut::~S3ConditionalPut() {
  for (CURL* handle : idle_) curl_easy_cleanup(handle);
}

// A handle from the pool (its connection kept alive for the next request), or a new one.
void* S3ConditionalPut::Acquire() const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      CURL* handle = static_cast<CURL*>(idle_.back());
      idle_.pop_back();
      curl_easy_reset(handle);
      return handle;
    }
  }
  return curl_easy_init();
}

void S3ConditionalPut::Release(void* handle) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (idle_.size() < kMaxIdleHandles) {
    idle_.push_back(handle);
  } else {
    curl_easy_cleanup(static_cast<CURL*>(handle));
  }
}

int S3ConditionalPut::Send(const char* method, const std::string& url, std::string_view data,
                           std::string* body, std::string* error) const {
  CURL* curl = static_cast<CURL*>(Acquire());
  if (curl == nullptr) {
    *error = "curl_easy_init failed";
    return 0;
  }
  const bool put = std::string_view(method) == "PUT";
  const S3Credentials creds = credentials_();
  const std::string sigv4 = "aws:amz:" + region_ + ":s3";
  const std::string userpwd = creds.access_key + ":" + creds.secret_key;
  curl_slist* headers = nullptr;
  const std::string sha = "x-amz-content-sha256: " + Sha256Hex(data);
  headers = curl_slist_append(headers, sha.c_str());
  if (put) {
    headers = curl_slist_append(headers, "If-None-Match: *");
    headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
    // No "Expect:" line to suppress 100-continue: curl (7.88) signs that empty header into
    // its SigV4 signature without sending it, and a store checking signatures (AWS; moto
    // with authentication on) refuses the request. curl only expects 100-continue for
    // bodies over 1 MiB, which a snapshot or schema file rarely is.
    // OSS's own spelling of create-if-absent, for stores that read it instead.
    if (config_.scheme == "oss") {
      headers = curl_slist_append(headers, "x-oss-forbid-overwrite: true");
    }
  }
  std::string token;
  if (!creds.session_token.empty()) {
    token = "x-amz-security-token: " + creds.session_token;
    headers = curl_slist_append(headers, token.c_str());
  }
  char curl_error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  if (put) {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "PUT");
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, data.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(data.size()));
  } else {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (!creds.access_key.empty()) {
    curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, sigv4.c_str());
    curl_easy_setopt(curl, CURLOPT_USERPWD, userpwd.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, body);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_error);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(config_.connect_timeout_ms));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(config_.request_timeout_ms));
  const CURLcode rc = curl_easy_perform(curl);
  long http = 0;
  if (rc == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &http);
  } else {
    *error = curl_error[0] != '\0' ? curl_error : curl_easy_strerror(rc);
  }
  curl_slist_free_all(headers);
  Release(curl);
  return static_cast<int>(http);
}

Result<std::string> S3ConditionalPut::Get(const std::string& bucket, const std::string& key) const {
  const std::string url = Url(bucket, key);
  std::string last;
  for (int attempt = 0; attempt < config_.max_attempts; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100 << attempt));
    std::string body, error;
    const int http = Send("GET", url, {}, &body, &error);
    if (http >= 200 && http < 300) return body;
    if (http == 404) {
      return Status::IOError("cannot read '", config_.scheme, "://", bucket, "/", key,
                             "': no such object");
    }
    last = http == 0 ? error : "HTTP " + std::to_string(http) + ": " + ErrorMessage(body);
    if (!Transient(http) || http == 409) break;
  }
  return Status::IOError("GET ", url, " failed: ", last);
}

Status S3ConditionalPut::PutIfAbsent(const std::string& bucket, const std::string& key,
                                     std::string_view data) const {
  const std::string url = Url(bucket, key);
  std::string last;
  for (int attempt = 0; attempt < config_.max_attempts; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100 << attempt));
    std::string body, error;
    const int http = Send("PUT", url, data, &body, &error);
    if (http >= 200 && http < 300) return Status::OK();
    if (http == 412) {
      return Status::AlreadyExists("object '", config_.scheme, "://", bucket, "/", key,
                                   "' already exists");
    }
    last = http == 0 ? error : "HTTP " + std::to_string(http) + ": " + ErrorMessage(body);
    if (!Transient(http)) break;
  }
  return Status::IOError("conditional PUT of ", url, " failed: ", last);
}

}  // namespace paimon_rowid
