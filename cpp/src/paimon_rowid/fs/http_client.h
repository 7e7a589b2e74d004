// A small JSON-over-HTTP client for catalog servers (catalog/rest_catalog.h), on libcurl.
//
// One request is one libcurl easy transfer; handles are pooled per client so connections to
// the server are reused. Transport failures (connection refused, DNS, timeouts) are returned
// as an IOError naming the URL and libcurl's reason, after `max_attempts` tries for idempotent
// methods (GET, DELETE) and one try for POST: a POST may have been applied by the server, so
// only the caller can tell whether to repeat it. Answers 429 and 503 are retried the same way
// (the server asked us to come back). Any other answer, success or not, is returned as an
// HttpResponse: mapping error codes is the caller's business.
//
// Headers may carry secrets (a bearer token); they are never included in a Status message.
// Thread-safety: an HttpClient may be used by any number of threads at once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

struct HttpResponse {
  int status = 0;
  std::string body;
  /// Response headers, names lower-cased.
  std::map<std::string, std::string> headers;
  bool ok() const { return status >= 200 && status < 300; }
};

struct HttpClientOptions {
  int64_t connect_timeout_ms = 10000;
  int64_t request_timeout_ms = 180000;
  /// Tries of an idempotent request on a transport error or a 429/503 answer.
  int max_attempts = 3;
  /// The wait before the second try; doubled per try.
  int64_t retry_wait_ms = 100;
};

class HttpClient {
 public:
  /// `base_url` is "http(s)://host:port" (a trailing '/' is dropped; "host:port" gets
  /// "http://"). Invalid when it is empty.
  static Result<std::shared_ptr<HttpClient>> Make(std::string base_url,
                                                  HttpClientOptions options = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  const std::string& base_url() const { return base_url_; }

  /// Sends `method` to base_url + `path_and_query` with `headers` and `body` (sent as
  /// application/json when non-empty). IOError on a transport failure; any answer else.
  Result<HttpResponse> Send(const std::string& method, const std::string& path_and_query,
                            const std::map<std::string, std::string>& headers,
                            const std::string& body) const;

  /// Percent-encodes `text` for one path segment or query value (RFC 3986 unreserved kept).
  static std::string Encode(const std::string& text);
  /// Undoes Encode (and '+' as a space is left alone: Encode never writes it).
  static std::string Decode(const std::string& text);

 private:
  HttpClient(std::string base_url, HttpClientOptions options);
  Result<HttpResponse> SendOnce(const std::string& method, const std::string& url,
                                const std::map<std::string, std::string>& headers,
                                const std::string& body, std::string* transport_error) const;
  void* Acquire() const;  // a CURL* easy handle
  void Release(void* handle) const;

  std::string base_url_;
  HttpClientOptions options_;
  mutable std::mutex mutex_;
  mutable std::vector<void*> idle_;  // guarded by mutex_
};

}  // namespace paimon_rowid
