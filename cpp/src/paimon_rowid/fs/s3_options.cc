#include "paimon_rowid/fs/s3_options.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string_view>
#include <vector>

#include "paimon_rowid/common/options.h"

namespace paimon_rowid {
namespace {

constexpr std::string_view kS3Prefixes[] = {"s3.", "s3a.", "fs.s3.", "fs.s3a."};
constexpr const char* kPutIfAbsent = "s3.put-if-absent";
constexpr const char* kSingleWriter = "s3.commit.single-writer";

// One setting and every key that may carry it.
struct Setting {
  const char* what;
  std::vector<std::string> keys;
};

std::vector<std::string> UnderS3Prefixes(std::initializer_list<const char*> names,
                                         std::initializer_list<const char*> extra = {}) {
  std::vector<std::string> out;
  for (const auto& prefix : kS3Prefixes) {
    for (const char* name : names) out.push_back(std::string(prefix) + name);
  }
  for (const char* key : extra) out.emplace_back(key);
  return out;
}

const std::vector<Setting>& S3Settings() {
  static const auto* settings = new std::vector<Setting>{
      {"endpoint", UnderS3Prefixes({"endpoint"})},
      {"region", UnderS3Prefixes({"region"})},
      {"access key", UnderS3Prefixes({"access-key", "access.key"}, {"fs.s3.accessKeyId"})},
      {"secret key", UnderS3Prefixes({"secret-key", "secret.key"}, {"fs.s3.accessKeySecret"})},
      {"session token",
       UnderS3Prefixes({"session-token", "session.token", "security-token", "security.token"},
                       {"fs.s3.securityToken"})},
      {"path-style access", UnderS3Prefixes({"path-style-access", "path.style.access"})},
      {"connect timeout", UnderS3Prefixes({"connection.establish.timeout"})},
      {"request timeout", UnderS3Prefixes({"connection.timeout"})},
      {"maximum attempts", UnderS3Prefixes({"attempts.maximum"})},
  };
  return *settings;
}

const std::vector<Setting>& OssSettings() {
  static const auto* settings = new std::vector<Setting>{
      {"endpoint", {"fs.oss.endpoint"}},           {"region", {"fs.oss.region"}},
      {"access key", {"fs.oss.accessKeyId"}},      {"secret key", {"fs.oss.accessKeySecret"}},
      {"session token", {"fs.oss.securityToken"}},
  };
  return *settings;
}

const std::set<std::string>& KnownKeys() {
  static const auto* keys = [] {
    auto* out = new std::set<std::string>{kPutIfAbsent, kSingleWriter, "fs.oss.impl"};
    for (const auto* group : {&S3Settings(), &OssSettings()}) {
      for (const auto& s : *group) out->insert(s.keys.begin(), s.keys.end());
    }
    return out;
  }();
  return *keys;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool IsObjectStoreKey(std::string_view key) {
  for (const auto& prefix : kS3Prefixes) {
    if (StartsWith(key, prefix)) return true;
  }
  return StartsWith(key, "fs.oss.");
}

// The value of a setting: empty when no key carries it; Invalid when two keys disagree.
Result<std::string> Lookup(const Setting& setting,
                           const std::map<std::string, std::string>& options,
                           std::map<std::string, std::string>* used) {
  std::string value, from;
  for (const auto& key : setting.keys) {
    auto it = options.find(key);
    if (it == options.end()) continue;
    (*used)[key] = it->second;
    if (from.empty()) {
      value = it->second;
      from = key;
    } else if (it->second != value) {
      return Status::Invalid("conflicting ", setting.what, " options: '", from, "'='", value,
                             "' and '", key, "'='", it->second, "'");
    }
  }
  return value;
}

Result<bool> ParseBoolOption(const std::string& key, const std::string& value) {
  std::string lower(value);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "true") return true;
  if (lower == "false") return false;
  return Status::Invalid("option '", key, "' must be true or false, got '", value, "'");
}

std::string JoinKnown() {
  std::string out;
  for (const auto& key : KnownKeys()) {
    if (!out.empty()) out += ", ";
    out += key;
  }
  return out;
}

}  // namespace

Status ValidateObjectStoreKeys(const std::map<std::string, std::string>& options) {
  for (const auto& [key, value] : options) {
    if (!IsObjectStoreKey(key) || KnownKeys().count(key) != 0) continue;
    if (StartsWith(key, "fs.oss.server-side")) {
      return Status::NotImplemented("option '", key,
                                    "': OSS server-side encryption is not supported");
    }
    return Status::Invalid("unknown object-store option '", key, "' (known: ", JoinKnown(), ")");
  }
  return Status::OK();
}

Result<S3Config> S3Config::FromOptions(const std::string& scheme,
                                       const std::map<std::string, std::string>& options) {
  ARROW_RETURN_NOT_OK(ValidateObjectStoreKeys(options));
  S3Config c;
  c.scheme = scheme;
  const bool oss = scheme == "oss";
  const auto& settings = oss ? OssSettings() : S3Settings();
  std::string values[9];
  for (size_t i = 0; i < settings.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(values[i], Lookup(settings[i], options, &c.keys));
  }
  std::string endpoint = values[0];
  c.region = values[1];
  c.access_key = values[2];
  c.secret_key = values[3];
  c.session_token = values[4];
  if (c.access_key.empty() != c.secret_key.empty()) {
    return Status::Invalid("an object-store access key needs its secret key and the reverse");
  }
  if (!c.session_token.empty() && c.access_key.empty()) {
    return Status::Invalid("an object-store session token needs an access key and secret key");
  }
  if (StartsWith(endpoint, "https://")) {
    endpoint = endpoint.substr(8);
  } else if (StartsWith(endpoint, "http://")) {
    endpoint = endpoint.substr(7);
    c.use_https = false;
  } else if (endpoint.find("://") != std::string::npos) {
    return Status::Invalid("object-store endpoint '", values[0], "' must be http:// or https://");
  }
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  if (endpoint.find('/') != std::string::npos) {
    return Status::Invalid("object-store endpoint '", values[0],
                           "' must be a host[:port], without a path");
  }
  c.endpoint = endpoint;
  if (oss && c.endpoint.empty()) {
    return Status::Invalid("an oss:// warehouse needs 'fs.oss.endpoint'");
  }
  // Path style by default on a custom S3 endpoint (MinIO, Ceph, moto; Arrow's default too),
  // virtual hosts on AWS itself and on OSS (which requires them).
  c.path_style = !oss && !c.endpoint.empty();
  if (!oss && !values[5].empty()) {
    ARROW_ASSIGN_OR_RAISE(c.path_style, ParseBoolOption("s3.path.style.access", values[5]));
  }
  if (!oss) {
    for (int i = 0; i < 3; ++i) {
      const std::string& text = values[6 + i];
      if (text.empty()) continue;
      std::string name;  // the key the user set, for the messages
      for (const auto& key : settings[6 + i].keys) {
        if (options.count(key) != 0) {
          name = key;
          break;
        }
      }
      Options one(std::map<std::string, std::string>{{name, text}});
      if (i < 2) {
        auto ms = one.GetDurationMillis(name, 0);
        if (!ms.ok() || *ms <= 0) {
          return Status::Invalid(
              "option '", name,
              "' must be a positive duration (ms, or with a unit such as '5 s'), got '", text, "'");
        }
        (i == 0 ? c.connect_timeout_ms : c.request_timeout_ms) = *ms;
      } else {
        auto n = one.GetInt(name, 0);
        if (!n.ok() || *n < 1 || *n > 100) {
          return Status::Invalid("option '", name, "' must be an integer from 1 to 100, got '",
                                 text, "'");
        }
        c.max_attempts = static_cast<int>(*n);
      }
    }
  }
  if (auto it = options.find(kPutIfAbsent); it != options.end()) {
    c.keys[kPutIfAbsent] = it->second;
    if (it->second == "auto") {
      c.put_if_absent = PutIfAbsentMode::kAuto;
    } else {
      ARROW_ASSIGN_OR_RAISE(bool on, ParseBoolOption(kPutIfAbsent, it->second));
      c.put_if_absent = on ? PutIfAbsentMode::kSupported : PutIfAbsentMode::kUnsupported;
    }
  }
  if (auto it = options.find(kSingleWriter); it != options.end()) {
    c.keys[kSingleWriter] = it->second;
    ARROW_ASSIGN_OR_RAISE(c.single_writer, ParseBoolOption(kSingleWriter, it->second));
  }
  if (oss) {
    if (auto it = options.find("fs.oss.impl"); it != options.end()) c.keys[it->first] = it->second;
  }
  return c;
}

std::string S3Config::CacheKey() const {
  std::string out = scheme;
  for (const auto& [key, value] : keys) {
    out.push_back('\0');
    out += key;
    out.push_back('=');
    out += value;
  }
  return out;
}

std::string S3Config::EffectiveRegion() const {
  if (!region.empty()) return region;
  for (const char* name : {"AWS_REGION", "AWS_DEFAULT_REGION"}) {
    const char* v = std::getenv(name);
    if (v != nullptr && *v != '\0') return v;
  }
  return "us-east-1";
}

}  // namespace paimon_rowid
