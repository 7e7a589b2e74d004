// Request signing for Alibaba Cloud DLF's REST catalog endpoints (token.provider=dlf), the
// "default" signer of pypaimon and Java Paimon (DLF4-HMAC-SHA256, the algorithm of their
// DLFDefaultSigner): each request carries x-dlf-date, x-dlf-content-sha256 (UNSIGNED-PAYLOAD),
// x-dlf-version (v1), Content-Type and Content-MD5 for a body, x-dlf-security-token for STS
// keys, and an Authorization header
//   DLF4-HMAC-SHA256 Credential=<key id>/<yyyyMMdd>/<region>/DlfNext/aliyun_v4_request,
//   Signature=<hex HMAC-SHA256 of the string to sign>
// where the string to sign names the algorithm, the time, that scope and the SHA-256 of the
// canonical request (method, path, sorted query, sorted signed headers, payload hash), and the
// key is derived from "aliyun_v4" + secret through date, region, "DlfNext" and
// "aliyun_v4_request". docs/rest-catalog.md.
//
// Options (pypaimon's names): dlf.access-key-id, dlf.access-key-secret, dlf.security-token,
// dlf.region (else the region in the URI, e.g. cn-hangzhou in
// http://cn-hangzhou-vpc.dlf.aliyuncs.com), dlf.signing-algorithm (default; the OpenAPI
// signers and the token loaders are refused with NotImplemented).
// The secret is never put into a Status message.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

class DlfSigner {
 public:
  /// From the catalog options (see above); Invalid for missing keys or an unknown region.
  static Result<std::unique_ptr<DlfSigner>> Make(const std::map<std::string, std::string>& options);
  DlfSigner(std::string access_key_id, std::string access_key_secret, std::string security_token,
            std::string region)
      : access_key_id_(std::move(access_key_id)),
        access_key_secret_(std::move(access_key_secret)),
        security_token_(std::move(security_token)),
        region_(std::move(region)) {}

  /// The headers to send with a request (Authorization included): `path` is the request's
  /// path as sent (encoded), `query` its parameters decoded, `epoch_seconds` the time signed.
  std::map<std::string, std::string> Sign(const std::string& method, const std::string& path,
                                          const std::map<std::string, std::string>& query,
                                          const std::string& body, int64_t epoch_seconds) const;

  const std::string& region() const { return region_; }

 private:
  std::string access_key_id_;
  std::string access_key_secret_;
  std::string security_token_;
  std::string region_;
};

}  // namespace paimon_rowid
