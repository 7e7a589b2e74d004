// FileIO: the engine's only door to storage. Paths are strings: local paths (or file: URIs)
// for the local filesystem, `s3://bucket/key` (also s3a://, s3n://, oss://) for an object
// store (fs/s3_file_io.h). Every path of one table goes through the one FileIO its catalog
// made, so a table's files live where its warehouse lives.
//
// Two write modes matter for correctness:
//   * WriteFileNoReplace creates `path` atomically and fails with AlreadyExists if it is
//     there: the commit primitive for snapshot-N and schema-N (docs/format.md §1.8). On a local
//     filesystem it writes a hidden temp file, fsyncs it and link(2)s it to the target; on S3
//     it is a conditional PUT (If-None-Match: *). Either way a concurrent writer (ours,
//     pypaimon or Java) can never be overwritten; a store that cannot guarantee this refuses
//     the call instead (docs/object-stores.md).
//   * WriteFile overwrites (hint files such as LATEST, data and manifest files whose names
//     are unique).
// Thread-safety: a FileIO is immutable and may be shared by threads.
#pragma once

#include <cstdint>
#include <map>
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
  int64_t mtime_millis = 0;  // last modification, ms since the epoch (0: unknown)
};

class FileIO {
 public:
  virtual ~FileIO() = default;

  /// The local filesystem.
  static std::shared_ptr<FileIO> Local();
  /// The FileIO for the filesystem `uri` lives on: a local path or file: URI, or an object
  /// store URI (s3://, s3a://, s3n://, oss://) configured by the filesystem keys of `options`
  /// (catalog options; other keys are ignored). Unknown `s3.*`/`fs.s3.*`/`fs.oss.*` keys and
  /// unsupported schemes are refused. One instance per distinct configuration and process.
  static Result<std::shared_ptr<FileIO>> Make(const std::string& uri,
                                              const std::map<std::string, std::string>& options);

  /// The filesystem keys this FileIO was made from: with a path, enough to make it again in
  /// another process (a pickled table carries them to Ray workers). Empty for Local().
  virtual const std::map<std::string, std::string>& options() const;
  /// False when rename is a copy and a delete (an object store): callers then must not use
  /// Rename for atomicity.
  virtual bool atomic_rename() const { return true; }

  /// OK when `uri` names a file of this filesystem (before any request is made); else
  /// NotImplemented (the local filesystem, for a remote URI) or Invalid.
  virtual Status CheckUri(const std::string& uri) const = 0;

  /// The whole file (one sequential read: no size request on an object store).
  virtual Result<std::shared_ptr<arrow::Buffer>> ReadFile(const std::string& path) const;
  /// Reads a whole small file as text.
  Result<std::string> ReadText(const std::string& path) const;
  /// The file's reads (ReadAt, Read) allocate their buffers from `pool` (not owned) on the
  /// local filesystem; an object store allocates from the default pool.
  virtual Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInput(
      const std::string& path, arrow::MemoryPool* pool = arrow::default_memory_pool()) const = 0;
  /// As OpenInput, for a file whose size the caller knows (a manifest entry's): an object
  /// store then skips the request that asks for it.
  virtual Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputWithSize(
      const std::string& path, int64_t size,
      arrow::MemoryPool* pool = arrow::default_memory_pool()) const {
    return OpenInput(path, pool);
  }
  /// As OpenInputWithSize, for a file read in pieces that are decoded and dropped (a Parquet
  /// data file's column chunks and pages): on the local filesystem a file of 1 MiB or more is
  /// memory-mapped, so a read is a slice of the page cache instead of a copy into a fresh
  /// buffer (LocalFileIO::kMinMappedFileBytes). Elsewhere OpenInputWithSize.
  virtual Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputMapped(
      const std::string& path, int64_t size,
      arrow::MemoryPool* pool = arrow::default_memory_pool()) const {
    return OpenInputWithSize(path, size, pool);
  }
  /// A new file, which must not exist yet: AlreadyExists naming it when it does, and the
  /// existing file is left as it is. Locally the file is created with O_EXCL. An object store
  /// makes the object visible when the stream is closed and cannot refuse an existing name
  /// there; the name's uniqueness is the guarantee (RandomUuid, docs/object-stores.md).
  virtual Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutput(
      const std::string& path) const = 0;
  /// As OpenOutput, for a name one job owns (a retried task's file named like its earlier
  /// attempt's): any file at `path` is deleted first.
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutputReplacing(
      const std::string& path) const;

  /// Creates `path` with `data`, failing with AlreadyExists when it exists. Atomic: readers
  /// see either nothing or the whole content. Parent directories are created.
  virtual Status WriteFileNoReplace(const std::string& path, std::string_view data) const = 0;
  /// Writes `path` (replacing any existing file) atomically: a temp file and a rename on a
  /// local filesystem, one PUT on an object store.
  virtual Status WriteFile(const std::string& path, std::string_view data) const = 0;
  /// Creates `path` with `data`, durably, for a file that must not exist yet and whose name
  /// no other writer uses (a deletion-vector index file): locally O_EXCL and fsync
  /// (AlreadyExists when the name is taken); on an object store one PUT (the default).
  virtual Status WriteNewFile(const std::string& path, std::string_view data) const {
    return WriteFile(path, data);
  }
  /// As WriteFile, for a file under a name no other writer uses (a commit attempt's manifests
  /// and manifest lists), without waiting for the disk: nothing may name it before Sync has
  /// returned for it. No reader opens such a file before a snapshot names it, so one torn by
  /// a crash is an orphan. Locally the file is created with O_EXCL (AlreadyExists when the
  /// name is taken: never a replaced file) and its write-back starts at once; the default is
  /// WriteFile.
  virtual Status WriteFileUnsynced(const std::string& path, std::string_view data) const {
    return WriteFile(path, data);
  }
  /// Makes the files WriteFileUnsynced wrote durable. Locally one fsync each, the first of
  /// which commits the journal for all of them (a commit pays one disk round trip for its
  /// metadata, not one per file); nothing where a write is durable once it returns.
  virtual Status Sync(const std::vector<std::string>& paths) const { return Status::OK(); }
  /// As WriteFile, for a hint (LATEST, EARLIEST): readers check a hint and fall back to
  /// listing when it is missing, stale or unreadable, so it need not survive a power loss.
  virtual Status WriteHint(const std::string& path, std::string_view data) const {
    return WriteFile(path, data);
  }

  virtual Result<bool> Exists(const std::string& path) const = 0;
  virtual Result<bool> IsDirectory(const std::string& path) const = 0;
  virtual Result<int64_t> FileSize(const std::string& path) const = 0;
  /// Entries of a directory (not recursive). A missing directory is an empty list.
  virtual Result<std::vector<FileStatus>> List(const std::string& dir) const = 0;
  virtual Status MakeDirs(const std::string& dir) const = 0;
  /// Deletes a file; a missing file is not an error.
  virtual Status DeleteFile(const std::string& path) const = 0;
  /// Deletes a directory and everything below it; a missing directory is not an error.
  virtual Status DeleteDirRecursive(const std::string& dir) const = 0;
  /// Removes `dir` when it is empty (one rmdir(2) locally, so a file created concurrently is
  /// never lost); false when it is not empty or does not exist.
  virtual Result<bool> DeleteEmptyDir(const std::string& dir) const = 0;
  /// Renames a file or directory; `to` must not exist. Atomic (one rename(2)) only where
  /// atomic_rename().
  virtual Status Rename(const std::string& from, const std::string& to) const = 0;
  /// Whether `dir` or any directory below it holds a file (directories alone do not count).
  virtual Result<bool> HoldsFiles(const std::string& dir) const = 0;
};

/// IOError naming `path` and both sizes when a data file's size on disk (`on_disk`, which an
/// open file already knows) differs from the `_FILE_SIZE` its manifest entry records: the file
/// was replaced, truncated or appended to since it was committed. A non-positive
/// `in_manifest` (unknown) passes.
Status CheckFileSize(const std::string& path, int64_t on_disk, int64_t in_manifest);

/// Shuts down Arrow's S3 client library; call it once before a C++ program that used an
/// object-store warehouse exits (no object-store call may follow). Harmless when none was
/// used, and when called twice. Python processes need not call it (pyarrow does at exit).
Status FinalizeObjectStores();

/// Joins path segments with '/'.
std::string JoinPath(std::string_view a, std::string_view b);

/// The scheme of `uri` in lower case ("s3" for "s3://b/k"), empty for a plain path. A
/// single-letter scheme is a Windows drive, not a scheme.
std::string UriScheme(std::string_view uri);

}  // namespace paimon_rowid
