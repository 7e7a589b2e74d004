#include "paimon_rowid/fs/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

namespace paimon_rowid {
namespace {

size_t AppendBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

size_t AppendHeader(char* data, size_t size, size_t count, void* out) {
  std::string line(data, size * count);
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string value = line.substr(colon + 1);
    auto first = value.find_first_not_of(" \t");
    auto last = value.find_last_not_of(" \t\r\n");
    value = first == std::string::npos ? "" : value.substr(first, last - first + 1);
    (*static_cast<std::map<std::string, std::string>*>(out))[name] = value;
  }
  return size * count;
}

bool Idempotent(const std::string& method) { return method == "GET" || method == "DELETE"; }

}  // namespace

HttpClient::HttpClient(std::string base_url, HttpClientOptions options)
    : base_url_(std::move(base_url)), options_(options) {}

HttpClient::~HttpClient() {
  for (void* handle : idle_) curl_easy_cleanup(static_cast<CURL*>(handle));
}

Result<std::shared_ptr<HttpClient>> HttpClient::Make(std::string base_url,
                                                     HttpClientOptions options) {
  auto first = base_url.find_first_not_of(" \t");
  if (first == std::string::npos) return Status::Invalid("uri is empty which must be defined.");
  base_url = base_url.substr(first, base_url.find_last_not_of(" \t") - first + 1);
  while (!base_url.empty() && base_url.back() == '/') base_url.pop_back();
  if (base_url.rfind("http://", 0) != 0 && base_url.rfind("https://", 0) != 0) {
    base_url = "http://" + base_url;
  }
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  return std::shared_ptr<HttpClient>(new HttpClient(std::move(base_url), options));
}

std::string HttpClient::Decode(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::string HttpClient::Encode(const std::string& text) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

void* HttpClient::Acquire() const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      void* handle = idle_.back();
      idle_.pop_back();
      curl_easy_reset(static_cast<CURL*>(handle));
      return handle;
    }
  }
  return curl_easy_init();
}

void HttpClient::Release(void* handle) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (idle_.size() < 8) {
    idle_.push_back(handle);
  } else {
    curl_easy_cleanup(static_cast<CURL*>(handle));
  }
}

Result<HttpResponse> HttpClient::SendOnce(const std::string& method, const std::string& url,
                                          const std::map<std::string, std::string>& headers,
                                          const std::string& body,
                                          std::string* transport_error) const {
  CURL* curl = static_cast<CURL*>(Acquire());
  if (curl == nullptr) return Status::IOError("curl_easy_init failed");
  curl_slist* list = nullptr;
  list = curl_slist_append(list, "Accept: application/json");
  if (!body.empty()) list = curl_slist_append(list, "Content-Type: application/json");
  list = curl_slist_append(list, "Expect:");
  for (const auto& [name, value] : headers) {
    list = curl_slist_append(list, (name + ": " + value).c_str());
  }
  HttpResponse response;
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  if (method == "GET") {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, AppendHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response.headers);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout_ms));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.request_timeout_ms));
  const CURLcode rc = curl_easy_perform(curl);
  if (rc == CURLE_OK) {
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    response.status = static_cast<int>(status);
  } else {
    *transport_error = error[0] != '\0' ? error : curl_easy_strerror(rc);
  }
  curl_slist_free_all(list);
  Release(curl);
  return response;
}

Result<HttpResponse> HttpClient::Send(const std::string& method, const std::string& path_and_query,
                                      const std::map<std::string, std::string>& headers,
                                      const std::string& body) const {
  const std::string url = base_url_ + path_and_query;
  const int attempts = Idempotent(method) ? std::max(1, options_.max_attempts) : 1;
  int64_t wait = options_.retry_wait_ms;
  for (int attempt = 1;; ++attempt) {
    std::string transport_error;
    ARROW_ASSIGN_OR_RAISE(HttpResponse response,
                          SendOnce(method, url, headers, body, &transport_error));
    const bool retryable =
        !transport_error.empty() || response.status == 429 || response.status == 503;
    if (!retryable || attempt >= attempts) {
      if (!transport_error.empty()) {
        return Status::IOError("REST catalog server at ", base_url_, " cannot be reached (", method,
                               " ", path_and_query.substr(0, path_and_query.find('?')),
                               "): ", transport_error);
      }
      return response;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(wait));
    wait *= 2;
  }
}

}  // namespace paimon_rowid
