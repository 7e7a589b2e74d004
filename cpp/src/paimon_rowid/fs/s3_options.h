// Object-store settings from catalog options, in pypaimon's names and in Java Paimon's
// (docs/object-stores.md lists them):
//   * S3 (s3://, s3a://, s3n://): `fs.s3.endpoint`, `fs.s3.accessKeyId`,
//     `fs.s3.accessKeySecret`, `fs.s3.securityToken`, `fs.s3.region` (pypaimon), and each of
//     endpoint / region / access-key / secret-key / session-token / path.style.access under
//     the prefixes s3., s3a., fs.s3., fs.s3a. (Java Paimon's `s3.access-key`, ...). Without
//     keys the AWS chain (environment, shared profile, instance/web identity) is used.
//   * OSS (oss://): `fs.oss.endpoint`, `fs.oss.accessKeyId`, `fs.oss.accessKeySecret`,
//     `fs.oss.securityToken`, `fs.oss.region`, through OSS's S3-compatible API.
//   * Ours: `s3.put-if-absent` (auto | true | false: whether the store honours
//     If-None-Match on PUT; auto probes once) and `s3.commit.single-writer` (true: the user
//     guarantees one committer at a time, the only way to commit to a store without
//     conditional writes).
// Any other key under those prefixes is refused: a typo must not silently fall back to a
// default endpoint or the wrong credentials.
#pragma once

#include <map>
#include <string>

#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

enum class PutIfAbsentMode { kAuto, kSupported, kUnsupported };

struct S3Config {
  std::string scheme;      // the URI scheme: s3, s3a, s3n or oss
  std::string endpoint;    // host[:port], empty for AWS's regional endpoint
  bool use_https = true;   // from the endpoint's http:// or https:// (default https)
  std::string region;      // empty: from the environment, else us-east-1
  std::string access_key;  // empty: the AWS credential chain
  std::string secret_key;
  std::string session_token;
  bool path_style = false;  // bucket in the path (MinIO, moto) instead of the host name
  PutIfAbsentMode put_if_absent = PutIfAbsentMode::kAuto;
  bool single_writer = false;
  // Hadoop S3A's names under every S3 prefix (s3., s3a., fs.s3., fs.s3a.):
  // `connection.establish.timeout` (connect), `connection.timeout` (a request's socket
  // timeout), `attempts.maximum` (tries of a failing request, the first included). Values in
  // ms or with a unit ("5 s"). A refused or unreachable endpoint then fails within about
  // attempts x connect timeout plus the back-off, ~15 s with the defaults (docs/object-stores.md).
  int64_t connect_timeout_ms = 5000;
  int64_t request_timeout_ms = 60000;
  int max_attempts = 3;
  /// The keys it was parsed from (what another process needs to parse it again).
  std::map<std::string, std::string> keys;

  /// Parses the keys for `scheme` ("s3", "s3a", "s3n" or "oss").
  static Result<S3Config> FromOptions(const std::string& scheme,
                                      const std::map<std::string, std::string>& options);
  /// A string equal for equal configurations: the key of the per-process FileIO cache.
  std::string CacheKey() const;
  /// The region requests are signed for (the configured one, AWS_REGION,
  /// AWS_DEFAULT_REGION, or us-east-1).
  std::string EffectiveRegion() const;
};

/// Refuses unknown keys under the object-store prefixes (s3., s3a., fs.s3., fs.s3a.,
/// fs.oss.), naming the key and the known ones. Other keys pass.
Status ValidateObjectStoreKeys(const std::map<std::string, std::string>& options);

}  // namespace paimon_rowid
