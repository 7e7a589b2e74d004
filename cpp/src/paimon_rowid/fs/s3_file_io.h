// FileIO over an S3-compatible object store: Arrow's S3FileSystem for every request but one,
// the snapshot commit's create-if-absent, which is a conditional PUT (fs/s3_put.h).
//
// Paths are URIs, `s3://bucket/key` (s3a://, s3n:// and oss:// alike). What differs from a
// local filesystem, and how the engine copes (docs/object-stores.md):
//   * no atomic rename (atomic_rename() is false): nothing relies on one;
//   * WriteFileNoReplace is `If-None-Match: *`; whether the store honours it is probed once
//     per process (or set by `s3.put-if-absent`). A store that ignores it can only be
//     committed to with `s3.commit.single-writer` = true; otherwise the commit is refused, never
//     silently downgraded to check-then-write;
//   * directories are key prefixes (plus the empty marker objects Arrow and pypaimon create):
//     DeleteEmptyDir leaves markers in place rather than risk a concurrent writer's objects.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "paimon_rowid/fs/file_io.h"
#include "paimon_rowid/fs/s3_options.h"
#include "paimon_rowid/fs/s3_put.h"

namespace arrow::fs {
class S3FileSystem;
}

namespace paimon_rowid {

class S3FileIO final : public FileIO {
 public:
  static Result<std::shared_ptr<S3FileIO>> Make(const S3Config& config);

  const std::map<std::string, std::string>& options() const override { return config_.keys; }
  bool atomic_rename() const override { return false; }
  Status CheckUri(const std::string& uri) const override { return FsPath(uri).status(); }

  Result<std::shared_ptr<arrow::Buffer>> ReadFile(const std::string& path) const override;
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInput(
      const std::string& path, arrow::MemoryPool* pool) const override;
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputWithSize(
      const std::string& path, int64_t size, arrow::MemoryPool* pool) const override;
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutput(
      const std::string& path) const override;
  Status WriteFileNoReplace(const std::string& path, std::string_view data) const override;
  Status WriteFile(const std::string& path, std::string_view data) const override;
  Result<bool> Exists(const std::string& path) const override;
  Result<bool> IsDirectory(const std::string& path) const override;
  Result<int64_t> FileSize(const std::string& path) const override;
  Result<std::vector<FileStatus>> List(const std::string& dir) const override;
  Status MakeDirs(const std::string& dir) const override;
  Status DeleteFile(const std::string& path) const override;
  Status DeleteDirRecursive(const std::string& dir) const override;
  Result<bool> DeleteEmptyDir(const std::string& dir) const override;
  Status Rename(const std::string& from, const std::string& to) const override;
  Result<bool> HoldsFiles(const std::string& dir) const override;

  /// Whether the store honours If-None-Match on PUT: the configured answer, else one probe
  /// (two PUTs of a fresh key under `dir`, then its delete), made once per FileIO.
  Result<bool> SupportsPutIfAbsent(const std::string& dir) const;

 private:
  explicit S3FileIO(S3Config config) : config_(std::move(config)) {}
  /// "bucket/key" (Arrow's path) for `uri`; Invalid for a URI of another filesystem.
  Result<std::string> FsPath(const std::string& uri) const;
  S3Credentials CurrentCredentials() const;

  S3Config config_;
  std::shared_ptr<arrow::fs::S3FileSystem> fs_;
  std::unique_ptr<S3ConditionalPut> put_;
  mutable std::mutex probe_mutex_;
  mutable int probed_ = -1;  // -1 not yet, 0 unsupported, 1 supported
};

}  // namespace paimon_rowid
