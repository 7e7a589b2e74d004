// The keys DLF request signing uses (catalog/rest_dlf_signer.h), and where they come from.
//
// Three sources, chosen by the catalog options with pypaimon 2.1.0's names and precedence:
//   dlf.token-loader=ecs        the ECS instance-metadata service: GET
//                               dlf.token-ecs-metadata-url (default
//                               http://100.100.100.200/latest/meta-data/Ram/security-credentials/)
//                               answers the role name unless dlf.token-ecs-role-name gives it;
//                               GET <url>/<role> answers the STS credentials as JSON;
//   dlf.token-loader=local_file, or dlf.token-path alone
//                               a JSON file at dlf.token-path;
//   dlf.access-key-id + dlf.access-key-secret (+ dlf.security-token)
//                               fixed keys, never refreshed.
// Any other dlf.token-loader is Invalid ("Unknown DLF token loader: x"), as pypaimon's.
//
// A loader's JSON is Alibaba Cloud's credential document: AccessKeyId, AccessKeySecret,
// SecurityToken (optional) and Expiration (optional, "yyyy-MM-ddTHH:mm:ssZ", UTC). Loaded
// credentials are refreshed, as pypaimon and Java do, when they are within one hour of their
// Expiration; and (beyond them) a token file is re-read as soon as it changes (its size,
// modification time or inode), so a file rewritten by a credential agent takes effect at the
// next request whatever its Expiration says.
//
// Errors, pypaimon's types: a token file that cannot be read or parsed after a few quick
// retries (a writer may be mid-rewrite) and a metadata service that cannot be reached or
// answers an error are UnknownError (Python RuntimeError: "Failed to read token file: <path>",
// "Failed to parse token file.", "Failed to load DLF credentials from ECS metadata service
// <url>: ..."). A refresh that fails while the current credentials have not yet expired keeps
// them (the next request tries again). Credentials past their Expiration are never used: the
// request fails with kRestNotAuthorized (Python NotAuthorizedException), which is what the
// server would answer them.
//
// No message built here contains a secret, a security token or a loader's response body.
// Thread-safety: a DlfCredentialsProvider may be used by any number of threads; one refresh
// serves them all.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

struct DlfCredentials {
  std::string access_key_id;
  std::string access_key_secret;
  /// STS credentials carry one; sent (and signed) only when present.
  std::optional<std::string> security_token;
  /// Epoch milliseconds; none for credentials that never expire.
  std::optional<int64_t> expiration_millis;
};

/// Parses a credential document (see above). Invalid without the two keys or with an
/// Expiration that is not "yyyy-MM-ddTHH:mm:ssZ"; the message never quotes the text.
Result<DlfCredentials> ParseDlfCredentials(const std::string& json_text);

/// Where loaded credentials come from (a token file, the ECS metadata service).
class DlfCredentialsLoader {
 public:
  virtual ~DlfCredentialsLoader() = default;
  virtual Result<DlfCredentials> Load() = 0;
  /// True when the source changed since the last Load (a rewritten file); the default never.
  virtual bool Changed() { return false; }
  /// Names the source in messages (the file path, the metadata URL); never a secret.
  virtual std::string description() const = 0;
};

/// Reads `path` (up to `max_attempts` times, waiting 50 ms, 100 ms, ... between).
std::unique_ptr<DlfCredentialsLoader> MakeDlfTokenFileLoader(std::string path,
                                                             int max_attempts = 5);
/// Asks the metadata service at `metadata_url` (for the role first when `role_name` is
/// empty). Invalid for a URL that is not http(s).
Result<std::unique_ptr<DlfCredentialsLoader>> MakeDlfEcsLoader(std::string metadata_url,
                                                               std::string role_name);

class DlfCredentialsProvider {
 public:
  /// From the catalog options (see above). Invalid without any source. Loads nothing yet.
  static Result<std::shared_ptr<DlfCredentialsProvider>> Make(
      const std::map<std::string, std::string>& options);
  /// Fixed credentials.
  explicit DlfCredentialsProvider(DlfCredentials fixed);
  /// Loaded credentials, refreshed as described above.
  explicit DlfCredentialsProvider(std::unique_ptr<DlfCredentialsLoader> loader);

  /// The credentials to sign a request sent at `now_millis` with (loaded or refreshed first
  /// when due). Errors as described above.
  Result<DlfCredentials> Current(int64_t now_millis);

  /// pypaimon's and Java's TOKEN_EXPIRATION_SAFE_TIME_MILLIS.
  static constexpr int64_t kRefreshBeforeExpiryMillis = 3600 * 1000;

 private:
  std::unique_ptr<DlfCredentialsLoader> loader_;  // null for fixed credentials
  std::mutex mutex_;
  std::optional<DlfCredentials> current_;  // guarded by mutex_
};

}  // namespace paimon_rowid
