// Request signing for Alibaba Cloud DLF's REST catalog endpoints (token.provider=dlf): the
// three signers of pypaimon 2.1.0, chosen by dlf.signing-algorithm as pypaimon chooses them
// (unset or "default": "openapi" for a host containing "dlfnext", else "default").
//
//  default     DLF4-HMAC-SHA256 (pypaimon's and Java's DLFDefaultSigner), for the VPC endpoints
//              (cn-hangzhou-vpc.dlf.aliyuncs.com). Sends x-dlf-date (yyyyMMddTHHmmssZ),
//              x-dlf-content-sha256: UNSIGNED-PAYLOAD, x-dlf-version: v1, Content-Type and
//              Content-MD5 for a body, x-dlf-security-token for STS keys, and
//                Authorization: DLF4-HMAC-SHA256 Credential=<id>/<yyyyMMdd>/<region>/DlfNext/
//                aliyun_v4_request,Signature=<hex>
//              over the method, path as sent, sorted query (values percent-encoded), the signed
//              headers and the payload marker, with a key derived from "aliyun_v4" + secret
//              through the date, region, "DlfNext" and "aliyun_v4_request".
//  openapi     Alibaba Cloud's ROA HMAC-SHA1 scheme (pypaimon's and Java's DLFOpenApiSigner),
//              API version 2026-01-18, for the public dlfnext endpoints. Sends Date (RFC 1123,
//              GMT), Accept, Content-MD5/Content-Type for a body, Host, x-acs-signature-method
//              (HMAC-SHA1), x-acs-signature-nonce, x-acs-signature-version (1.0), x-acs-version,
//              x-acs-security-token, and Authorization: acs <id>:<base64 HMAC-SHA1> of
//              method, Accept, Content-MD5, Content-Type, Date, the sorted x-acs-* headers and
//              the decoded path + sorted decoded query.
//  openapi-v4  Alibaba Cloud's POP v4 scheme, ACS4-HMAC-SHA256 (pypaimon 2.1.0's
//              DLFOpenApiV4Signer; Java Paimon 1.4.2 has none). Sends x-acs-date
//              (yyyy-MM-ddTHH:mm:ssZ), host, x-acs-content-sha256 (of the body, or of ""),
//              content-type for a body, x-acs-signature-nonce, x-acs-version, x-acs-security-token,
//              x-acs-action (the DlfNext API the request's method and path are registered under),
//              and Authorization: ACS4-HMAC-SHA256 Credential=<id>/<date>/<region>/DlfNext/
//              aliyun_v4_request,SignedHeaders=<names>,Signature=<hex>.
//
// Options (pypaimon's names): dlf.signing-algorithm, dlf.region (else the region in the URI,
// e.g. cn-hangzhou in http://cn-hangzhou-vpc.dlf.aliyuncs.com; needed by every algorithm, as
// pypaimon asks for it), and the credentials of catalog/rest_dlf_credentials.h.
// The secret is never put into a header, a Status message or a log; the security token only
// into its header.
// Thread-safety: Sign may be called by any number of threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "paimon_rowid/catalog/rest_dlf_credentials.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

enum class DlfSigningAlgorithm { kDefault, kOpenApi, kOpenApiV4 };

/// One request as the signers see it: `path` as sent (percent-encoded), `query` decoded.
struct DlfRequest {
  std::string method;
  std::string path;
  std::map<std::string, std::string> query;
  std::string body;
};

/// The headers to send with `request` (Authorization included) signed at `epoch_seconds`,
/// with `nonce` where the algorithm sends one. `host` is the server's host[:port] as in the
/// URI. Pure: the same inputs give the same headers (as pypaimon's signers for a fixed date
/// and nonce).
std::map<std::string, std::string> SignDlfRequest(DlfSigningAlgorithm algorithm,
                                                  const std::string& region,
                                                  const std::string& host,
                                                  const DlfCredentials& credentials,
                                                  const DlfRequest& request, int64_t epoch_seconds,
                                                  const std::string& nonce);

/// The DlfNext API action (x-acs-action) of a request, or "" when none is registered for it.
std::string DlfOpenApiAction(const std::string& method, const std::string& path);

class DlfSigner {
 public:
  /// From the catalog options (see above); Invalid for an unknown dlf.signing-algorithm or
  /// dlf.token-loader, missing keys or no region. Loads no credentials yet.
  static Result<std::unique_ptr<DlfSigner>> Make(const std::map<std::string, std::string>& options);

  /// The headers for `request`, signed now with the current credentials (loaded or refreshed
  /// first when due). Errors: those of DlfCredentialsProvider::Current.
  Result<std::map<std::string, std::string>> Sign(const DlfRequest& request) const;

  DlfSigningAlgorithm algorithm() const { return algorithm_; }
  const std::string& region() const { return region_; }

 private:
  DlfSigner(DlfSigningAlgorithm algorithm, std::string region, std::string host,
            std::shared_ptr<DlfCredentialsProvider> credentials)
      : algorithm_(algorithm),
        region_(std::move(region)),
        host_(std::move(host)),
        credentials_(std::move(credentials)) {}

  DlfSigningAlgorithm algorithm_;
  std::string region_;
  std::string host_;
  std::shared_ptr<DlfCredentialsProvider> credentials_;
};

}  // namespace paimon_rowid
