#include "paimon_rowid/catalog/tags.h"

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <utility>
#include <vector>

#include "paimon_rowid/catalog/snapshot_commit.h"
#include "paimon_rowid/common/identifier.h"

namespace paimon_rowid {
namespace {

bool IsBlank(std::string_view s) {
  for (unsigned char c : s) {
    if (!std::isspace(c)) return false;
  }
  return true;
}

Status CheckTagName(const std::string& name, const char* blank_message) {
  if (IsBlank(name)) return Status::Invalid(blank_message);
  return ValidateName(name, "tag");
}

// The catalog server keeping the table's tags, or null (catalog/snapshot_commit.h).
const CatalogTags* ServerTags(const Table& table) {
  return table.snapshot_commit() ? table.snapshot_commit()->catalog_tags() : nullptr;
}

// A retention the server answered (Duration text) in the grammar it takes back.
Result<std::optional<std::string>> RetentionToSend(const std::optional<std::string>& retained) {
  if (!retained) return std::optional<std::string>();
  ARROW_ASSIGN_OR_RAISE(int64_t nanos, IsoDurationNanos(*retained));
  return std::optional<std::string>(std::to_string(nanos) + " ns");
}

// Java's LocalDateTime as Jackson writes it: [y, mo, d, h, mi], then the second when the
// second or the nanos are not zero, then the nanos when they are not zero.
std::string LocalDateTimeNowJson() {
  auto now = std::chrono::system_clock::now();
  std::time_t secs = std::chrono::system_clock::to_time_t(now);
  std::tm local{};
  localtime_r(&secs, &local);
  int64_t nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count() %
      1000000000LL;
  std::string out = "[" + std::to_string(local.tm_year + 1900) + "," +
                    std::to_string(local.tm_mon + 1) + "," + std::to_string(local.tm_mday) + "," +
                    std::to_string(local.tm_hour) + "," + std::to_string(local.tm_min);
  if (local.tm_sec != 0 || nanos != 0) out += "," + std::to_string(local.tm_sec);
  if (nanos != 0) out += "," + std::to_string(nanos);
  return out + "]";
}

// Java's Duration as Jackson writes it: decimal seconds with nine fraction digits.
std::string DurationSecondsJson(int64_t nanos) {
  std::string frac = std::to_string(nanos % 1000000000LL);
  frac.insert(0, 9 - frac.size(), '0');
  return std::to_string(nanos / 1000000000LL) + "." + frac;
}

Status WriteTag(const Table& table, const std::string& name, Snapshot snapshot,
                const std::optional<std::string>& time_retained, bool replace) {
  Tag tag;
  tag.snapshot = std::move(snapshot);
  if (time_retained) {
    ARROW_ASSIGN_OR_RAISE(int64_t nanos, ParseDurationNanos(*time_retained));
    tag.tag_create_time_json = LocalDateTimeNowJson();
    tag.tag_time_retained = DurationSecondsJson(nanos);
  }
  const std::string path = table.TagPath(name);
  if (replace) return table.file_io()->WriteFile(path, tag.ToJson());
  return table.file_io()->WriteFileNoReplace(path, tag.ToJson());
}

Result<bool> TagExists(const Table& table, const std::string& name) {
  return table.file_io()->Exists(table.TagPath(name));
}

}  // namespace

Result<int64_t> IsoDurationNanos(std::string_view text) {
  auto invalid = [&]() { return Status::Invalid("not a java.time.Duration: ", text); };
  size_t i = 0;
  bool negative_all = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative_all = text[i++] == '-';
  if (i >= text.size() || (text[i] != 'P' && text[i] != 'p')) return invalid();
  ++i;
  bool in_time = false;
  bool any = false;
  long double total = 0;
  while (i < text.size()) {
    if (text[i] == 'T' || text[i] == 't') {
      if (in_time) return invalid();
      in_time = true;
      ++i;
      continue;
    }
    size_t start = i;
    if (text[i] == '-' || text[i] == '+') ++i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) ||
                               text[i] == '.' || text[i] == ',')) {
      ++i;
    }
    if (i == start || i >= text.size()) return invalid();
    std::string number(text.substr(start, i - start));
    for (char& c : number) {
      if (c == ',') c = '.';
    }
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(text[i++])));
    long double value = std::strtold(number.c_str(), nullptr);
    long double per = 0;
    if (!in_time && unit == 'D') per = 86400e9L;
    if (in_time && unit == 'H') per = 3600e9L;
    if (in_time && unit == 'M') per = 60e9L;
    if (in_time && unit == 'S') per = 1e9L;
    if (per == 0) return invalid();
    total += value * per;
    any = true;
  }
  if (!any) return invalid();
  if (negative_all) total = -total;
  if (total > static_cast<long double>(std::numeric_limits<int64_t>::max()) ||
      total < static_cast<long double>(std::numeric_limits<int64_t>::min())) {
    return invalid();
  }
  return static_cast<int64_t>(total + (total < 0 ? -0.5L : 0.5L));
}

Result<int64_t> ParseDurationNanos(std::string_view text) {
  size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  std::string trimmed(text.substr(b, e - b));
  if (trimmed.empty()) return Status::Invalid("argument is an empty- or whitespace-only string");
  size_t pos = 0;
  while (pos < trimmed.size() && std::isdigit(static_cast<unsigned char>(trimmed[pos]))) ++pos;
  if (pos == 0) return Status::Invalid("text does not start with a number");
  std::string number = trimmed.substr(0, pos);
  std::string unit;
  for (size_t i = pos; i < trimmed.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(trimmed[i]);
    if (!unit.empty() || !std::isspace(c)) unit += static_cast<char>(std::tolower(c));
  }
  int64_t value = 0;
  for (char c : number) {
    if (value > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10) {
      return Status::Invalid("The value '", number,
                             "' cannot be re represented as 64bit number (numeric overflow).");
    }
    value = value * 10 + (c - '0');
  }
  static const std::pair<const char*, int64_t> kUnits[] = {
      {"ns", 1LL},
      {"nano", 1LL},
      {"nanosecond", 1LL},
      {"nanoseconds", 1LL},
      {"\xC2\xB5s", 1000LL},
      {"micro", 1000LL},
      {"microsecond", 1000LL},
      {"microseconds", 1000LL},
      {"ms", 1000000LL},
      {"milli", 1000000LL},
      {"millisecond", 1000000LL},
      {"milliseconds", 1000000LL},
      {"s", 1000000000LL},
      {"sec", 1000000000LL},
      {"second", 1000000000LL},
      {"seconds", 1000000000LL},
      {"m", 60000000000LL},
      {"min", 60000000000LL},
      {"minute", 60000000000LL},
      {"minutes", 60000000000LL},
      {"h", 3600000000000LL},
      {"hour", 3600000000000LL},
      {"hours", 3600000000000LL},
      {"d", 86400000000000LL},
      {"day", 86400000000000LL},
      {"days", 86400000000000LL},
  };
  int64_t per_unit = 0;
  if (unit.empty()) {
    per_unit = 1000000LL;  // a bare number is milliseconds
  } else {
    for (const auto& [label, nanos] : kUnits) {
      if (unit == label) per_unit = nanos;
    }
  }
  if (per_unit == 0) {
    return Status::Invalid(
        "Time interval unit label '", unit,
        "' does not match any of the recognized units: DAYS: (d | day | days), HOURS: (h | "
        "hour | hours), MINUTES: (m | min | minute | minutes), SECONDS: (s | sec | second | "
        "seconds), MILLISECONDS: (ms | milli | millisecond | milliseconds), MICROSECONDS: (µs "
        "| micro | microsecond | microseconds), NANOSECONDS: (ns | nano | nanosecond | "
        "nanoseconds)");
  }
  if (value > std::numeric_limits<int64_t>::max() / per_unit) {
    return Status::Invalid("The value '", trimmed,
                           "' cannot be re represented as 64bit number of nanoseconds "
                           "(numeric overflow).");
  }
  return value * per_unit;
}

Result<TagTimes> TagTimesOf(const Tag& tag) {
  TagTimes out;
  if (tag.tag_create_time_json) {
    // "[y,mo,d,h,mi(,s(,ns))]": integers, validated when the tag was read.
    std::vector<int64_t> parts;
    int64_t value = 0;
    bool in_number = false;
    for (char c : *tag.tag_create_time_json) {
      if (std::isdigit(static_cast<unsigned char>(c))) {
        value = value * 10 + (c - '0');
        in_number = true;
      } else if (in_number) {
        parts.push_back(value);
        value = 0;
        in_number = false;
      }
    }
    if (parts.size() < 5)
      return Status::Invalid("malformed tagCreateTime ", *tag.tag_create_time_json);
    parts.resize(7, 0);
    std::tm local{};
    local.tm_year = static_cast<int>(parts[0] - 1900);
    local.tm_mon = static_cast<int>(parts[1] - 1);
    local.tm_mday = static_cast<int>(parts[2]);
    local.tm_hour = static_cast<int>(parts[3]);
    local.tm_min = static_cast<int>(parts[4]);
    local.tm_sec = static_cast<int>(parts[5]);
    local.tm_isdst = -1;
    std::time_t secs = mktime(&local);
    out.create_time_millis = static_cast<int64_t>(secs) * 1000 + parts[6] / 1000000;
  }
  if (tag.tag_time_retained) {
    const std::string& text = *tag.tag_time_retained;
    size_t dot = text.find('.');
    bool plain = text.find_first_not_of("0123456789.") == std::string::npos;
    if (plain) {
      std::string whole = text.substr(0, dot);
      std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
      frac = frac.substr(0, 9);
      frac.append(9 - frac.size(), '0');
      int64_t secs = whole.empty() ? 0 : std::stoll(whole);
      out.time_retained_nanos = secs * 1000000000LL + std::stoll(frac);
    } else {
      long double seconds = std::strtold(text.c_str(), nullptr);
      out.time_retained_nanos = static_cast<int64_t>(seconds * 1e9L + 0.5L);
    }
  }
  return out;
}

Status CreateTag(const Table& table, const std::string& name, std::optional<int64_t> snapshot_id,
                 bool ignore_if_exists, const std::optional<std::string>& time_retained) {
  Snapshot snapshot;
  if (snapshot_id) {
    auto found = table.SnapshotById(*snapshot_id);
    if (!found.ok()) {
      if (!found.status().IsInvalid()) return found.status();
      return Status::Invalid("Snapshot with id ", *snapshot_id, " doesn't exist.");
    }
    snapshot = std::move(*found);
  } else {
    ARROW_ASSIGN_OR_RAISE(auto latest, table.LatestSnapshot());
    if (!latest) return Status::Invalid("No snapshot exists in this table.");
    snapshot = std::move(*latest);
  }
  ARROW_RETURN_NOT_OK(CheckTagName(name, "Tag name shouldn't be blank."));
  if (time_retained) ARROW_RETURN_NOT_OK(ParseDurationNanos(*time_retained).status());
  const CatalogTags* server = ServerTags(table);
  Status st = server ? server->Create(name, snapshot.id, time_retained)
                     : WriteTag(table, name, std::move(snapshot), time_retained, /*replace=*/false);
  if (st.IsAlreadyExists()) {
    return ignore_if_exists ? Status::OK() : Status::Invalid("Tag '", name, "' already exists.");
  }
  return st;
}

Status ReplaceTag(const Table& table, const std::string& name, std::optional<int64_t> snapshot_id,
                  const std::optional<std::string>& time_retained) {
  Snapshot snapshot;
  if (snapshot_id) {
    auto found = table.SnapshotById(*snapshot_id);
    if (!found.ok()) {
      if (!found.status().IsInvalid()) return found.status();
      return Status::Invalid("Snapshot id '", *snapshot_id, "' doesn't exist.");
    }
    snapshot = std::move(*found);
  } else {
    ARROW_ASSIGN_OR_RAISE(auto latest, table.LatestSnapshot());
    if (!latest)
      return Status::Invalid("Cannot replace tag because latest snapshot doesn't exist.");
    snapshot = std::move(*latest);
  }
  ARROW_RETURN_NOT_OK(CheckTagName(name, "Tag name shouldn't be blank."));
  if (const CatalogTags* server = ServerTags(table)) {
    ARROW_ASSIGN_OR_RAISE(auto found, server->Get(name));
    if (!found) return Status::Invalid("Tag '", name, "' doesn't exist.");
    if (time_retained) ARROW_RETURN_NOT_OK(ParseDurationNanos(*time_retained).status());
    ARROW_RETURN_NOT_OK(server->Delete(name).status());
    return server->Create(name, snapshot.id, time_retained);
  }
  ARROW_ASSIGN_OR_RAISE(bool exists, TagExists(table, name));
  if (!exists) return Status::Invalid("Tag '", name, "' doesn't exist.");
  if (time_retained) ARROW_RETURN_NOT_OK(ParseDurationNanos(*time_retained).status());
  return WriteTag(table, name, std::move(snapshot), time_retained, /*replace=*/true);
}

Status RenameTag(const Table& table, const std::string& from, const std::string& to) {
  ARROW_RETURN_NOT_OK(CheckTagName(from, "Old tag name shouldn't be blank."));
  ARROW_RETURN_NOT_OK(CheckTagName(to, "New tag name shouldn't be blank."));
  if (const CatalogTags* server = ServerTags(table)) {
    ARROW_ASSIGN_OR_RAISE(auto found, server->Get(from));
    if (!found) return Status::Invalid("Tag '", from, "' doesn't exist.");
    ARROW_ASSIGN_OR_RAISE(auto retained, RetentionToSend(found->time_retained));
    Status st = server->Create(to, found->snapshot_id, retained);
    if (st.IsAlreadyExists()) return Status::Invalid("Tag '", to, "' already exists.");
    ARROW_RETURN_NOT_OK(st);
    return server->Delete(from).status();
  }
  ARROW_ASSIGN_OR_RAISE(bool exists, TagExists(table, from));
  if (!exists) return Status::Invalid("Tag '", from, "' doesn't exist.");
  ARROW_ASSIGN_OR_RAISE(bool taken, TagExists(table, to));
  if (taken) return Status::Invalid("Tag '", to, "' already exists.");
  const FileIO& io = *table.file_io();
  // The bytes as they are (a tag written by another engine keeps its exact content).
  ARROW_ASSIGN_OR_RAISE(std::string text, io.ReadText(table.TagPath(from)));
  Status st = io.WriteFileNoReplace(table.TagPath(to), text);
  if (st.IsAlreadyExists()) return Status::Invalid("Tag '", to, "' already exists.");
  ARROW_RETURN_NOT_OK(st);
  return io.DeleteFile(table.TagPath(from));
}

Result<bool> DeleteTag(const Table& table, const std::string& name) {
  ARROW_RETURN_NOT_OK(CheckTagName(name, "Tag name shouldn't be blank."));
  if (const CatalogTags* server = ServerTags(table)) return server->Delete(name);
  ARROW_ASSIGN_OR_RAISE(bool exists, TagExists(table, name));
  if (!exists) return false;
  ARROW_RETURN_NOT_OK(table.file_io()->DeleteFile(table.TagPath(name)));
  return true;
}

Result<std::vector<std::string>> ListTagNames(const Table& table) {
  if (const CatalogTags* server = ServerTags(table)) return server->List();
  return table.ListTags();
}

}  // namespace paimon_rowid
