// Reads that suit an object store, where every request costs a round trip (tens of ms on S3)
// and bytes are comparatively cheap.
//
// ObjectStoreInput wraps a file of known size (a manifest entry's `_FILE_SIZE`, so opening it
// needed no HEAD request):
//   * the tail: the first read inside the file's last kTailBytes fetches all of them in one
//     request, and later reads inside them are served from memory. A Parquet footer and the
//     page index just before it, or a .blob file's index, then cost one request instead of
//     one per structure;
//   * WillNeed(ranges): the ranges, sorted and merged across holes of at most
//     kObjectStoreHoleBytes (up to kObjectStoreMaxRangeBytes a request), are fetched
//     concurrently (ReadAsync); reads inside a fetched range are served from memory. Column
//     chunks of one row group, or neighbouring blobs, then cost a few parallel requests.
// Reads outside both go to the wrapped file unchanged. Thread-safe like the wrapped file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/io/interfaces.h"
#include "arrow/memory_pool.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {
class FileIO;
}

namespace paimon_rowid::format_internal {

inline constexpr int64_t kTailBytes = 64 * 1024;
inline constexpr int64_t kObjectStoreHoleBytes = 64 * 1024;
inline constexpr int64_t kObjectStoreMaxRangeBytes = 8LL << 20;
// Column chunks up to this size are prefetched whole; wider ones are left to page selection.
inline constexpr int64_t kPrefetchChunkBytes = 4LL << 20;

/// Whether `path` names an object (a URI whose scheme is neither empty nor file:).
bool IsObjectStorePath(const std::string& path);

/// `inner` wrapped as described above; `size` is the file's size (trusted: reads past it
/// fail or come back short, as on the wrapped file).
std::shared_ptr<arrow::io::RandomAccessFile> MakeObjectStoreInput(
    std::shared_ptr<arrow::io::RandomAccessFile> inner, int64_t size);

/// Opens `path` for reading. On an object store with a known `size` (> 0): without asking
/// the store for the size, wrapped by MakeObjectStoreInput. Otherwise io.OpenInputMapped
/// when `mapped` (memory-mapped on the local filesystem), else io.OpenInput.
Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenForRead(const FileIO& io,
                                                                 const std::string& path,
                                                                 int64_t size,
                                                                 arrow::MemoryPool* pool,
                                                                 bool mapped = false);

/// `ranges` merged as WillNeed merges them (sorted by offset; empty ranges dropped).
std::vector<arrow::io::ReadRange> CoalesceRanges(std::vector<arrow::io::ReadRange> ranges,
                                                 int64_t hole_limit, int64_t max_range);

/// Whether `file` is an ObjectStoreInput (Prefetch acts on it).
bool IsPrefetching(arrow::io::RandomAccessFile* file);

/// Tells `file` which ranges will be read when it is an ObjectStoreInput (then they are
/// fetched now); a no-op for any other file (a local file needs no prefetch).
arrow::Status Prefetch(arrow::io::RandomAccessFile* file,
                       const std::vector<arrow::io::ReadRange>& ranges);

}  // namespace paimon_rowid::format_internal
