// FileIO: the engine's only door to storage. Paths are plain strings (local paths now; the
// class wraps arrow::fs so other filesystems can follow). Two write modes matter for
// correctness:
//   * WriteFileNoReplace creates `path` atomically and fails with AlreadyExists if it is
//     there: the commit primitive for snapshot-N and schema-N (docs/format.md §1.8). On a local
//     filesystem it writes a hidden temp file, fsyncs it and link(2)s it to the target, so a
//     concurrent writer (ours, pypaimon or Java) can never be overwritten.
//   * WriteFile overwrites (hint files such as LATEST, data and manifest files whose names
//     are unique).
// Thread-safety: a FileIO is immutable and may be shared by threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/buffer.h"
#include "arrow/io/interfaces.h"
#include "arrow/memory_pool.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

struct FileStatus {
  std::string name;  // base name
  bool is_dir = false;
  int64_t size = 0;
  int64_t mtime_millis = 0;  // last modification, ms since the epoch
};

class FileIO {
 public:
  /// The local filesystem.
  static std::shared_ptr<FileIO> Local();

  Result<std::shared_ptr<arrow::Buffer>> ReadFile(const std::string& path) const;
  /// Reads a whole small file as text.
  Result<std::string> ReadText(const std::string& path) const;
  /// The file's reads (ReadAt, Read) allocate their buffers from `pool` (not owned).
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInput(
      const std::string& path, arrow::MemoryPool* pool = arrow::default_memory_pool()) const;
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutput(const std::string& path) const;

  /// Creates `path` with `data`, failing with AlreadyExists when it exists. Atomic: readers
  /// see either nothing or the whole content. Parent directories are created.
  Status WriteFileNoReplace(const std::string& path, std::string_view data) const;
  /// Writes `path` (replacing any existing file) through a temp file and rename.
  Status WriteFile(const std::string& path, std::string_view data) const;

  Result<bool> Exists(const std::string& path) const;
  Result<bool> IsDirectory(const std::string& path) const;
  Result<int64_t> FileSize(const std::string& path) const;
  /// Entries of a directory (not recursive). A missing directory is an empty list.
  Result<std::vector<FileStatus>> List(const std::string& dir) const;
  Status MakeDirs(const std::string& dir) const;
  /// Deletes a file; a missing file is not an error.
  Status DeleteFile(const std::string& path) const;
  Status DeleteDirRecursive(const std::string& dir) const;
  /// Removes `dir` when it is empty (one rmdir(2), so a file created concurrently is never
  /// lost); false when it is not empty or does not exist.
  Result<bool> DeleteEmptyDir(const std::string& dir) const;
  /// Renames a file or directory atomically (one rename(2) on a local filesystem); `to` must
  /// not exist.
  Status Rename(const std::string& from, const std::string& to) const;
  /// Whether `dir` or any directory below it holds a file (directories alone do not count).
  Result<bool> HoldsFiles(const std::string& dir) const;
};

/// IOError naming `path` and both sizes when a data file's size on disk (`on_disk`, which an
/// open file already knows) differs from the `_FILE_SIZE` its manifest entry records: the file
/// was replaced, truncated or appended to since it was committed. A non-positive
/// `in_manifest` (unknown) passes.
Status CheckFileSize(const std::string& path, int64_t on_disk, int64_t in_manifest);

/// Joins path segments with '/'.
std::string JoinPath(std::string_view a, std::string_view b);

}  // namespace paimon_rowid
