// Decoded manifests, memoized by path and content (issue 18: fixed costs of a commit).
//
// One update reads the live entries of a snapshot twice (the row-id index, then the commit's
// checks), a backfill batch three times (its read's plan too), and a backfill of N batches
// decodes every manifest of the table N times over. Decoding (Avro blocks, then one record per
// data file) is most of that: on a 100,000-file table it is the larger part of an update.
//
// The cache keeps, per manifest path, the file's bytes and their decoded entries. A lookup
// still reads the file (manifests are small and compressed: ~3 MB for 100k data files) and
// hands out the decoded entries only when the bytes are identical to the cached ones, so a
// rewritten, truncated or corrupted manifest decodes (and fails) exactly as without a cache.
// Entries are shared read-only; the least recently used are dropped beyond the capacity.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "arrow/buffer.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/meta/manifest.h"

namespace paimon_rowid {

using SharedManifestEntries = std::shared_ptr<const std::vector<ManifestEntry>>;

class ManifestCache {
 public:
  static constexpr int64_t kDefaultCapacity = 256LL << 20;

  struct Stats {
    int64_t hits = 0;
    int64_t misses = 0;     // decoded (absent, evicted, or bytes that changed)
    int64_t manifests = 0;  // held now
    int64_t bytes = 0;      // held now: file bytes + estimated decoded size
  };

  explicit ManifestCache(int64_t capacity_bytes = kDefaultCapacity);
  ManifestCache(const ManifestCache&) = delete;
  ManifestCache& operator=(const ManifestCache&) = delete;

  /// The process-wide cache every manifest read goes through.
  static ManifestCache* Default();

  /// The entries of the manifest at `path` whose bytes are `data`: decoded once, then shared
  /// while the file keeps the same bytes. Decoding errors are returned and nothing is cached.
  Result<SharedManifestEntries> Decode(const std::string& path,
                                       std::shared_ptr<arrow::Buffer> data);

  /// Bytes held at most (0 disables caching); shrinking evicts at once.
  void SetCapacity(int64_t capacity_bytes);
  int64_t capacity() const;
  Stats stats() const;
  void Clear();

 private:
  struct Slot {
    std::string path;
    std::shared_ptr<arrow::Buffer> data;
    SharedManifestEntries entries;
    int64_t bytes = 0;
  };
  using Lru = std::list<Slot>;  // most recently used first

  void EvictLocked();

  mutable std::mutex mu_;
  int64_t capacity_;
  Lru lru_;
  std::unordered_map<std::string, Lru::iterator> by_path_;
  Stats stats_;
};

/// A manifest's bytes; `size` (its manifest list's record, 0 = unknown) spares an object store
/// the request for the size.
Result<std::shared_ptr<arrow::Buffer>> ReadManifestFile(const Table& table, const std::string& name,
                                                        int64_t size);

/// A manifest's entries through ManifestCache::Default().
Result<SharedManifestEntries> ReadManifestEntries(const Table& table, const std::string& name,
                                                  int64_t size = 0);

}  // namespace paimon_rowid
