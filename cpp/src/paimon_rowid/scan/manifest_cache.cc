#include "paimon_rowid/scan/manifest_cache.h"

#include <cstring>
#include <utility>

#include "paimon_rowid/fs/file_io.h"

namespace paimon_rowid {
namespace {

int64_t HeapBytes(const std::string& s) {
  return s.capacity() > 15 ? static_cast<int64_t>(s.capacity()) + 1 : 0;  // beyond SSO
}

int64_t HeapBytes(const std::optional<std::string>& s) { return s ? HeapBytes(*s) : 0; }

int64_t HeapBytes(const std::vector<std::string>& v) {
  int64_t n = static_cast<int64_t>(v.capacity() * sizeof(std::string));
  for (const auto& s : v) n += HeapBytes(s);
  return n;
}

int64_t HeapBytes(const SimpleStats& s) {
  int64_t n = HeapBytes(s.min_values) + HeapBytes(s.max_values);
  if (s.null_counts) n += static_cast<int64_t>(s.null_counts->capacity() * 16);
  return n;
}

// What the decoded entries hold in memory, roughly (allocator overhead not counted).
int64_t EstimatedBytes(const std::vector<ManifestEntry>& entries) {
  int64_t n = static_cast<int64_t>(sizeof(std::vector<ManifestEntry>) +
                                   entries.capacity() * sizeof(ManifestEntry));
  for (const auto& e : entries) {
    const DataFileMeta& f = e.file;
    n += HeapBytes(e.partition) + HeapBytes(f.file_name) + HeapBytes(f.min_key) +
         HeapBytes(f.max_key) + HeapBytes(f.key_stats) + HeapBytes(f.value_stats) +
         HeapBytes(f.extra_files) + HeapBytes(f.embedded_file_index) + HeapBytes(f.external_path);
    if (f.value_stats_cols) n += HeapBytes(*f.value_stats_cols);
    if (f.write_cols) n += HeapBytes(*f.write_cols);
    if (f.write_cols_sequences) n += static_cast<int64_t>(f.write_cols_sequences->capacity() * 8);
  }
  return n;
}

bool SameBytes(const arrow::Buffer& a, const arrow::Buffer& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

ManifestCache::ManifestCache(int64_t capacity_bytes) : capacity_(capacity_bytes) {}

ManifestCache* ManifestCache::Default() {
  static ManifestCache* cache = new ManifestCache();  // never destroyed: used at exit too
  return cache;
}

Result<SharedManifestEntries> ManifestCache::Decode(const std::string& path,
                                                    std::shared_ptr<arrow::Buffer> data) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_path_.find(path);
    if (it != by_path_.end() && SameBytes(*it->second->data, *data)) {
      lru_.splice(lru_.begin(), lru_, it->second);
      ++stats_.hits;
      return it->second->entries;
    }
    ++stats_.misses;
  }
  // Decode outside the lock: a racing thread may decode the same file; the last one stays.
  ARROW_ASSIGN_OR_RAISE(auto decoded, DecodeManifest(data));
  auto entries = std::make_shared<const std::vector<ManifestEntry>>(std::move(decoded));
  const int64_t bytes = data->size() + EstimatedBytes(*entries);
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes > capacity_) return entries;
  auto it = by_path_.find(path);
  if (it != by_path_.end()) {
    stats_.bytes -= it->second->bytes;
    lru_.erase(it->second);
    by_path_.erase(it);
  }
  // Keep a private copy: `data` may be a slice of a larger buffer or a mapping of the file.
  ARROW_ASSIGN_OR_RAISE(data, data->CopySlice(0, data->size()));
  lru_.push_front(Slot{path, std::move(data), entries, bytes});
  by_path_[path] = lru_.begin();
  stats_.bytes += bytes;
  EvictLocked();
  return entries;
}

void ManifestCache::EvictLocked() {
  while (stats_.bytes > capacity_ && !lru_.empty()) {
    stats_.bytes -= lru_.back().bytes;
    by_path_.erase(lru_.back().path);
    lru_.pop_back();
  }
  stats_.manifests = static_cast<int64_t>(lru_.size());
}

void ManifestCache::SetCapacity(int64_t capacity_bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  capacity_ = capacity_bytes < 0 ? 0 : capacity_bytes;
  EvictLocked();
}

int64_t ManifestCache::capacity() const {
  std::lock_guard<std::mutex> lock(mu_);
  return capacity_;
}

ManifestCache::Stats ManifestCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void ManifestCache::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  lru_.clear();
  by_path_.clear();
  stats_ = Stats{};
}

Result<std::shared_ptr<arrow::Buffer>> ReadManifestFile(const Table& table, const std::string& name,
                                                        int64_t size) {
  const std::string path = table.ManifestPath(name);
  const std::string scheme = UriScheme(path);
  if (size <= 0 || scheme.empty() || scheme == "file") return table.file_io()->ReadFile(path);
  ARROW_ASSIGN_OR_RAISE(auto input, table.file_io()->OpenInputWithSize(path, size));
  ARROW_ASSIGN_OR_RAISE(auto data, input->ReadAt(0, size));
  if (data->size() != size) {
    return Status::IOError("manifest '", path, "' holds ", data->size(),
                           " bytes but its manifest list says ", size);
  }
  return data;
}

Result<SharedManifestEntries> ReadManifestEntries(const Table& table, const std::string& name,
                                                  int64_t size) {
  ARROW_ASSIGN_OR_RAISE(auto data, ReadManifestFile(table, name, size));
  return ManifestCache::Default()->Decode(table.ManifestPath(name), std::move(data));
}

}  // namespace paimon_rowid
