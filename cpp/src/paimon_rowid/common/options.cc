#include "paimon_rowid/common/options.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace paimon_rowid {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Splits "256 mb" into (256, "mb").
Result<std::pair<int64_t, std::string>> SplitNumberUnit(const std::string& key,
                                                        const std::string& raw) {
  std::string text = Trim(raw);
  size_t pos = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
  int64_t number = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + pos, number);
  if (pos == 0 || ec != std::errc()) {
    return Status::Invalid("option '", key, "' has a malformed value '", raw, "'");
  }
  return std::make_pair(number, Lower(Trim(text.substr(pos))));
}

}  // namespace

std::vector<std::string> SplitOptionList(const std::string& value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(',', start);
    if (end == std::string::npos) end = value.size();
    std::string item = Trim(value.substr(start, end - start));
    if (!item.empty()) out.push_back(std::move(item));
    start = end + 1;
  }
  return out;
}

std::optional<std::string> Options::Get(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Options::GetOr(const std::string& key, const std::string& fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

Result<bool> Options::GetBool(const std::string& key, bool fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  std::string v = Lower(Trim(it->second));
  if (v == "true") return true;
  if (v == "false") return false;
  return Status::Invalid("option '", key, "' must be true or false, got '", it->second, "'");
}

Result<int64_t> Options::GetInt(const std::string& key, int64_t fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  std::string v = Trim(it->second);
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || ptr != v.data() + v.size()) {
    return Status::Invalid("option '", key, "' must be an integer, got '", it->second, "'");
  }
  return out;
}

Result<int64_t> Options::GetMemorySize(const std::string& key, int64_t fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  ARROW_ASSIGN_OR_RAISE(auto parts, SplitNumberUnit(key, it->second));
  const std::string& unit = parts.second;
  int64_t mult = 1;
  if (unit.empty() || unit == "b" || unit == "bytes") {
    mult = 1;
  } else if (unit == "k" || unit == "kb" || unit == "kibibytes") {
    mult = 1LL << 10;
  } else if (unit == "m" || unit == "mb" || unit == "mebibytes") {
    mult = 1LL << 20;
  } else if (unit == "g" || unit == "gb" || unit == "gibibytes") {
    mult = 1LL << 30;
  } else if (unit == "t" || unit == "tb" || unit == "tebibytes") {
    mult = 1LL << 40;
  } else {
    return Status::Invalid("option '", key, "' has an unknown size unit in '", it->second, "'");
  }
  return parts.first * mult;
}

Result<int64_t> Options::GetDurationMillis(const std::string& key, int64_t fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  ARROW_ASSIGN_OR_RAISE(auto parts, SplitNumberUnit(key, it->second));
  const std::string& unit = parts.second;
  if (unit.empty() || unit == "ms" || unit == "milli" || unit == "millis") return parts.first;
  if (unit == "s" || unit == "sec" || unit == "second" || unit == "seconds") {
    return parts.first * 1000;
  }
  if (unit == "min" || unit == "m" || unit == "minute" || unit == "minutes") {
    return parts.first * 60000;
  }
  if (unit == "h" || unit == "hour" || unit == "hours") return parts.first * 3600000;
  return Status::Invalid("option '", key, "' has an unknown duration unit in '", it->second, "'");
}

Options Options::With(const std::map<std::string, std::string>& overrides) const {
  Options out = *this;
  for (const auto& [k, v] : overrides) out.values_[k] = v;
  return out;
}

}  // namespace paimon_rowid
