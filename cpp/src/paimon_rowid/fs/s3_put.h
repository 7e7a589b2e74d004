// The S3 requests Arrow's S3FileSystem cannot make, or makes with a round trip too many:
// a conditional PUT (`If-None-Match: *`), i.e. create-if-absent, the primitive a snapshot
// commit needs on an object store (docs/object-stores.md), and a whole-object GET without
// the HEAD Arrow sends first (snapshots, hints, manifests: several per commit). Sent with
// libcurl, signed with AWS Signature V4 by libcurl itself (CURLOPT_AWS_SIGV4) with the
// credentials the caller supplies per request (they may rotate: the caller reads them from
// Arrow's credential provider). Handles are pooled, so connections are reused.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "paimon_rowid/common/status.h"
#include "paimon_rowid/fs/s3_options.h"

namespace paimon_rowid {

struct S3Credentials {
  std::string access_key;
  std::string secret_key;
  std::string session_token;
};

class S3ConditionalPut {
 public:
  using CredentialsFn = std::function<S3Credentials()>;
  S3ConditionalPut(const S3Config& config, CredentialsFn credentials);
  ~S3ConditionalPut();
  S3ConditionalPut(const S3ConditionalPut&) = delete;
  S3ConditionalPut& operator=(const S3ConditionalPut&) = delete;

  /// PUTs `data` at `bucket`/`key` only if no object is there: OK when created,
  /// AlreadyExists when the store answered 412 PreconditionFailed. Transient failures (5xx,
  /// 409 ConditionalRequestConflict, network errors) are retried a few times; a retry that
  /// then meets 412 may have met its own earlier attempt, which the committer's
  /// landed-snapshot check resolves. Other answers are an IOError with the store's message.
  Status PutIfAbsent(const std::string& bucket, const std::string& key,
                     std::string_view data) const;

  /// The whole object at `bucket`/`key` in one GET; IOError "no such object" for a 404.
  Result<std::string> Get(const std::string& bucket, const std::string& key) const;

  /// The request URL for `bucket`/`key` (path or virtual-host style), for tests and errors.
  std::string Url(const std::string& bucket, const std::string& key) const;

 private:
  // One attempt of a PUT (conditional) or GET: the HTTP status (0 on a transport error,
  // with `error` set) and the body.
  int Send(const char* method, const std::string& url, std::string_view data, std::string* body,
           std::string* error) const;
  void* Acquire() const;  // a CURL* easy handle
  void Release(void* handle) const;

  S3Config config_;
  std::string region_;
  CredentialsFn credentials_;
  mutable std::mutex mutex_;
  mutable std::vector<void*> idle_;  // CURL* handles with live connections
};

/// curl_global_init, once per process (it also starts OpenSSL).
void EnsureCurlInitialized();

/// Lower-case hex SHA-256 of `data` (the x-amz-content-sha256 header).
std::string Sha256Hex(std::string_view data);

}  // namespace paimon_rowid
