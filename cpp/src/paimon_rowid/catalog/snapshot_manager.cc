#include "paimon_rowid/catalog/snapshot_manager.h"

#include <algorithm>
#include <charconv>

namespace paimon_rowid {

namespace {

// Parses "<prefix><non-negative decimal>"; nullopt for anything else.
std::optional<int64_t> ParseNumberedName(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) {
    return std::nullopt;
  }
  const char* begin = name.data() + prefix.size();
  const char* end = name.data() + name.size();
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || value < 0) return std::nullopt;
  return value;
}

}  // namespace

Result<std::vector<int64_t>> ListNumberedFiles(const FileIO& io, const std::string& dir,
                                               const std::string& prefix) {
  ARROW_ASSIGN_OR_RAISE(auto entries, io.List(dir));
  std::vector<int64_t> ids;
  for (const auto& e : entries) {
    if (e.is_dir) continue;
    if (auto id = ParseNumberedName(e.name, prefix)) ids.push_back(*id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

SnapshotManager::SnapshotManager(std::shared_ptr<FileIO> io, std::string table_path)
    : io_(std::move(io)), table_path_(std::move(table_path)) {}

std::string SnapshotManager::snapshot_dir() const { return JoinPath(table_path_, "snapshot"); }

std::string SnapshotManager::SnapshotPath(int64_t id) const {
  return JoinPath(snapshot_dir(), kSnapshotPrefix + std::to_string(id));
}

std::string SnapshotManager::HintPath(const char* hint) const {
  return JoinPath(snapshot_dir(), hint);
}

Result<std::vector<int64_t>> SnapshotManager::ListSnapshotIds() const {
  return ListNumberedFiles(*io_, snapshot_dir(), kSnapshotPrefix);
}

std::optional<int64_t> SnapshotManager::ParseHint(const std::string& text) {
  size_t b = text.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return std::nullopt;
  size_t e = text.find_last_not_of(" \t\r\n");
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data() + b, text.data() + e + 1, value);
  if (ec != std::errc() || ptr != text.data() + e + 1 || value <= 0) return std::nullopt;
  return value;
}

std::optional<int64_t> SnapshotManager::ReadHint(const char* hint) const {
  const std::string path = HintPath(hint);
  auto exists = io_->Exists(path);
  if (!exists.ok() || !*exists) return std::nullopt;
  auto text = io_->ReadText(path);
  if (!text.ok()) return std::nullopt;
  return ParseHint(*text);
}

Result<std::optional<int64_t>> SnapshotManager::LatestSnapshotId() const {
  if (auto hint = ReadHint(kLatestHint)) {
    auto here = io_->Exists(SnapshotPath(*hint));
    auto next = io_->Exists(SnapshotPath(*hint + 1));
    if (here.ok() && next.ok() && *here && !*next) return std::optional<int64_t>(*hint);
  }
  ARROW_ASSIGN_OR_RAISE(auto ids, ListSnapshotIds());
  if (ids.empty()) return std::nullopt;
  return std::optional<int64_t>(ids.back());
}

void SnapshotManager::AdvanceLatestHint(int64_t id) const {
  const std::string path = HintPath(kLatestHint);
  // Read without the Exists probe: a missing hint simply fails to read.
  auto text = io_->ReadText(path);
  std::optional<int64_t> current = text.ok() ? ParseHint(*text) : std::nullopt;
  if (!current || *current < id) (void)io_->WriteHint(path, std::to_string(id));
}

}  // namespace paimon_rowid
