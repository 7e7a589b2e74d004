#include "paimon_rowid/catalog/rest_dlf_credentials.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "paimon_rowid/fs/http_client.h"

namespace paimon_rowid {
namespace {

using json = nlohmann::json;

constexpr const char* kDefaultEcsMetadataUrl =
    "http://100.100.100.200/latest/meta-data/Ram/security-credentials/";

std::string Get(const std::map<std::string, std::string>& options, const char* key) {
  auto it = options.find(key);
  return it == options.end() ? std::string() : it->second;
}

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

std::string FormatUtc(int64_t millis) {
  std::time_t secs = static_cast<std::time_t>(millis / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char out[32];
  std::strftime(out, sizeof(out), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return out;
}

// Java's TOKEN_DATE_FORMATTER, yyyy-MM-dd'T'HH:mm:ss'Z', read as UTC.
std::optional<int64_t> ParseExpiration(const std::string& text) {
  std::tm tm{};
  char z = 0;
  int consumed = 0;
  if (text.size() != 20 ||
      std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &z, &consumed) != 7 ||
      z != 'Z' || consumed != 20) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm)) * 1000;
}

Status LoadError(std::string message) { return Status::UnknownError(std::move(message)); }

class TokenFileLoader : public DlfCredentialsLoader {
 public:
  TokenFileLoader(std::string path, int max_attempts)
      : path_(std::move(path)), max_attempts_(std::max(1, max_attempts)) {}

  Result<DlfCredentials> Load() override {
    Status last;
    int64_t wait_ms = 50;
    for (int attempt = 1; attempt <= max_attempts_; ++attempt) {
      Stamp before = Current();
      std::ifstream in(path_, std::ios::binary);
      if (!in) {
        last = LoadError("Failed to read token file: " + path_);
      } else {
        std::stringstream text;
        text << in.rdbuf();
        auto parsed = ParseDlfCredentials(text.str());
        // Seen, loaded or not: Changed() reports only a later rewrite.
        stamp_ = before;
        if (parsed.ok()) return parsed;
        // The file carries the keys: never the parser's message (it may quote the text).
        last = LoadError("Failed to parse token file.");
      }
      if (attempt < max_attempts_) {
        std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
        wait_ms *= 2;
      }
    }
    return last;
  }

  bool Changed() override { return !(Current() == stamp_); }

  std::string description() const override { return path_; }

 private:
  struct Stamp {
    bool exists = false;
    int64_t size = 0, mtime_ns = 0, inode = 0;
    bool operator==(const Stamp& o) const {
      return exists == o.exists && size == o.size && mtime_ns == o.mtime_ns && inode == o.inode;
    }
  };
  Stamp Current() const {
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0) return Stamp{};
    return Stamp{true, static_cast<int64_t>(st.st_size),
                 static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                 static_cast<int64_t>(st.st_ino)};
  }

  std::string path_;
  int max_attempts_;
  Stamp stamp_;  // of the file last loaded
};

class EcsLoader : public DlfCredentialsLoader {
 public:
  EcsLoader(std::shared_ptr<HttpClient> http, std::string url, std::string path, std::string role)
      : http_(std::move(http)),
        url_(std::move(url)),
        path_(std::move(path)),
        role_(std::move(role)) {}

  Result<DlfCredentials> Load() override {
    if (role_.empty()) {
      auto role = Fetch(path_);
      if (!role.ok()) return Fail("the role name", role.status());
      role_ = Trim(*role);
      if (role_.empty()) return LoadError(Prefix() + "no role name in its answer");
    }
    std::string base = path_;
    while (!base.empty() && base.back() == '/') base.pop_back();
    auto text = Fetch(base + "/" + HttpClient::Encode(role_));
    if (!text.ok()) return Fail("the credentials of role " + role_, text.status());
    auto parsed = ParseDlfCredentials(*text);
    // The answer carries the keys: never the parser's message.
    if (!parsed.ok()) return LoadError(Prefix() + "Failed to parse ECS token response.");
    return parsed;
  }

  std::string description() const override { return url_; }

 private:
  std::string Prefix() const {
    return "Failed to load DLF credentials from ECS metadata service " + url_ + ": ";
  }
  Status Fail(const std::string& what, const Status& cause) const {
    return LoadError(Prefix() + "getting " + what + " failed: " + cause.message());
  }
  // The body of a 2xx answer; a status message (never the body) otherwise.
  Result<std::string> Fetch(const std::string& path) const {
    ARROW_ASSIGN_OR_RAISE(HttpResponse response, http_->Send("GET", path, {}, ""));
    if (!response.ok()) {
      return Status::IOError("the service answered HTTP ", response.status);
    }
    return response.body;
  }

  std::shared_ptr<HttpClient> http_;
  std::string url_;   // as configured, for messages
  std::string path_;  // the URL's path (and query), sent to http_
  std::string role_;
};

}  // namespace

Result<DlfCredentials> ParseDlfCredentials(const std::string& json_text) {
  json parsed = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  auto text = [&](const char* key) -> std::optional<std::string> {
    if (!parsed.is_object()) return std::nullopt;
    auto it = parsed.find(key);
    if (it == parsed.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  auto id = text("AccessKeyId");
  auto secret = text("AccessKeySecret");
  if (!id || !secret || id->empty() || secret->empty()) {
    return Status::Invalid("a DLF credential document needs AccessKeyId and AccessKeySecret");
  }
  DlfCredentials out{*id, *secret, text("SecurityToken"), std::nullopt};
  if (auto expiration = text("Expiration")) {
    out.expiration_millis = ParseExpiration(*expiration);
    if (!out.expiration_millis) {
      return Status::Invalid("a DLF credential document's Expiration is not yyyy-MM-ddTHH:mm:ssZ");
    }
  }
  return out;
}

std::unique_ptr<DlfCredentialsLoader> MakeDlfTokenFileLoader(std::string path, int max_attempts) {
  return std::make_unique<TokenFileLoader>(std::move(path), max_attempts);
}

Result<std::unique_ptr<DlfCredentialsLoader>> MakeDlfEcsLoader(std::string metadata_url,
                                                               std::string role_name) {
  const size_t scheme = metadata_url.find("://");
  if (metadata_url.rfind("http://", 0) != 0 && metadata_url.rfind("https://", 0) != 0) {
    return Status::Invalid("dlf.token-ecs-metadata-url must be an http(s) URL: ", metadata_url);
  }
  const size_t slash = metadata_url.find('/', scheme + 3);
  const std::string base = metadata_url.substr(0, slash);
  const std::string path = slash == std::string::npos ? "/" : metadata_url.substr(slash);
  HttpClientOptions http_options;
  http_options.connect_timeout_ms = 2000;
  http_options.request_timeout_ms = 10000;
  ARROW_ASSIGN_OR_RAISE(auto http, HttpClient::Make(base, http_options));
  return std::make_unique<EcsLoader>(std::move(http), std::move(metadata_url), path,
                                     std::move(role_name));
}

Result<std::shared_ptr<DlfCredentialsProvider>> DlfCredentialsProvider::Make(
    const std::map<std::string, std::string>& options) {
  const std::string loader = Get(options, "dlf.token-loader");
  const std::string token_path = Get(options, "dlf.token-path");
  if (loader == "ecs") {
    std::string url = Get(options, "dlf.token-ecs-metadata-url");
    if (url.empty()) url = kDefaultEcsMetadataUrl;
    ARROW_ASSIGN_OR_RAISE(auto ecs, MakeDlfEcsLoader(url, Get(options, "dlf.token-ecs-role-name")));
    return std::make_shared<DlfCredentialsProvider>(std::move(ecs));
  }
  if (loader == "local_file" || (loader.empty() && !token_path.empty())) {
    if (token_path.empty()) {
      return Status::Invalid("dlf.token-loader 'local_file' needs dlf.token-path");
    }
    return std::make_shared<DlfCredentialsProvider>(MakeDlfTokenFileLoader(token_path));
  }
  if (!loader.empty()) return Status::Invalid("Unknown DLF token loader: ", loader);
  const std::string id = Get(options, "dlf.access-key-id");
  const std::string secret = Get(options, "dlf.access-key-secret");
  if (id.empty() || secret.empty()) {
    return Status::Invalid(
        "token.provider 'dlf' needs dlf.access-key-id and dlf.access-key-secret, "
        "dlf.token-path or dlf.token-loader");
  }
  std::optional<std::string> token;
  if (options.count("dlf.security-token")) token = Get(options, "dlf.security-token");
  return std::make_shared<DlfCredentialsProvider>(
      DlfCredentials{id, secret, std::move(token), std::nullopt});
}

DlfCredentialsProvider::DlfCredentialsProvider(DlfCredentials fixed) : current_(std::move(fixed)) {}

DlfCredentialsProvider::DlfCredentialsProvider(std::unique_ptr<DlfCredentialsLoader> loader)
    : loader_(std::move(loader)) {}

Result<DlfCredentials> DlfCredentialsProvider::Current(int64_t now_millis) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (loader_) {
    const bool due = !current_ || loader_->Changed() ||
                     (current_->expiration_millis &&
                      *current_->expiration_millis - now_millis < kRefreshBeforeExpiryMillis);
    if (due) {
      auto loaded = loader_->Load();
      if (loaded.ok()) {
        current_ = std::move(*loaded);
      } else if (!current_ ||
                 (current_->expiration_millis && *current_->expiration_millis <= now_millis)) {
        return loaded.status();
      }  // else: keep the current credentials, still valid; the next request tries again
    }
  }
  if (current_->expiration_millis && *current_->expiration_millis <= now_millis) {
    std::string source = loader_ ? loader_->description() : "the options";
    return MakeKindError(arrow::StatusCode::IOError, ErrorKind::kRestNotAuthorized,
                         "Not authorized: the DLF credentials from " + source + " expired at " +
                             FormatUtc(*current_->expiration_millis));
  }
  return *current_;
}

}  // namespace paimon_rowid
