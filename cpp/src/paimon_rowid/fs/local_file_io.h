// The local filesystem (POSIX calls; FileIO::Local()). file:///x and file:/x open as /x.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "paimon_rowid/fs/file_io.h"

namespace paimon_rowid {

class LocalFileIO final : public FileIO {
 public:
  Status CheckUri(const std::string& uri) const override;
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInput(
      const std::string& path, arrow::MemoryPool* pool) const override;
  /// Data files of kMinMappedFileBytes or more are mapped (see MapForReading); smaller ones,
  /// and files on filesystems not mapped, are read with pread as OpenInput.
  static constexpr int64_t kMinMappedFileBytes = 1 << 20;
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputMapped(
      const std::string& path, int64_t size, arrow::MemoryPool* pool) const override;
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutput(
      const std::string& path) const override;
  Status WriteFileNoReplace(const std::string& path, std::string_view data) const override;
  Status WriteFile(const std::string& path, std::string_view data) const override;
  Status WriteFileUnsynced(const std::string& path, std::string_view data) const override;
  Status WriteNewFile(const std::string& path, std::string_view data) const override;
  Status Sync(const std::vector<std::string>& paths) const override;
  Status WriteHint(const std::string& path, std::string_view data) const override;
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
};

}  // namespace paimon_rowid
