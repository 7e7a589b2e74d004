#include "paimon_rowid/fs/local_file_io.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "arrow/io/file.h"
#include "paimon_rowid/common/identifier.h"

namespace paimon_rowid {
namespace fs = std::filesystem;

namespace {

Status ErrnoStatus(const std::string& what, const std::string& path) {
  return Status::IOError(what, " '", path, "': ", std::strerror(errno));
}

std::string ParentOf(const std::string& path) { return fs::path(path).parent_path().string(); }

// The error of a failed exclusive create of `path` (errno set): AlreadyExists when the name
// is taken, which is never resolved by replacing the file there.
Status CreateError(const std::string& path) {
  if (errno == EEXIST) {
    return Status::AlreadyExists("file '", path,
                                 "' already exists; a new file is never written over another");
  }
  return ErrnoStatus("cannot create", path);
}

// Writes all of `data` to `fd`; false (errno set) on a failed write.
bool WriteAll(int fd, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

enum class Flush { kNone, kStart, kWait };

// Creates `path` (open(2) `flags` added to O_WRONLY | O_CREAT) holding `data`: with its
// write-back started (kStart) or finished (kWait, fsync) before it is closed. A file that
// fails is removed.
Status WriteWhole(const std::string& path, int flags, std::string_view data, Flush flush) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
  if (fd < 0) return CreateError(path);
  bool ok = WriteAll(fd, data);
  if (ok && flush == Flush::kStart) {
    // Best effort: the batch's Sync is what guarantees durability.
    (void)::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
  }
  if (ok && flush == Flush::kWait) ok = ::fsync(fd) == 0;
  Status st = ok ? Status::OK() : ErrnoStatus("cannot write", path);
  if (::close(fd) != 0 && st.ok()) st = ErrnoStatus("cannot write", path);
  if (!st.ok()) ::unlink(path.c_str());
  return st;
}

// Writes `data` to a fresh hidden temp file next to `path`, fsynced when `sync`. Returns its
// path.
Result<std::string> WriteTemp(const std::string& path, std::string_view data, bool sync) {
  fs::path p(path);
  std::string tmp =
      (p.parent_path() / ("." + p.filename().string() + "." + RandomUuid() + ".tmp")).string();
  ARROW_RETURN_NOT_OK(WriteWhole(tmp, O_EXCL, data, sync ? Flush::kWait : Flush::kNone));
  return tmp;
}

// Replaces `path` with `data` through a temp file and rename(2).
Status ReplaceFile(const std::string& path, std::string_view data, bool sync) {
  ARROW_ASSIGN_OR_RAISE(std::string tmp, WriteTemp(path, data, sync));
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status st = ErrnoStatus("cannot rename to", path);
    ::unlink(tmp.c_str());
    return st;
  }
  return Status::OK();
}

// Whether to map `path` for reading: only on a filesystem whose pages are on this machine (a
// disk's or memory's). A mapped page that cannot be read raises SIGBUS instead of an error,
// which a network or FUSE filesystem (NFS, SMB, an object store mounted as a directory) can
// do at any time; a local one only when a file shrinks under its readers, which Paimon's
// write-once files never do. PAIMON_ROWID_MMAP=0 turns mapping off (read at each open).
bool MapForReading(const std::string& path) {
  const char* mmap_env = std::getenv("PAIMON_ROWID_MMAP");
  if (mmap_env != nullptr && std::string_view(mmap_env) == "0") return false;
  struct statfs fs;
  if (::statfs(path.c_str(), &fs) != 0) return false;
  switch (static_cast<uint32_t>(fs.f_type)) {
    case EXT4_SUPER_MAGIC:  // also ext2 and ext3
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case F2FS_SUPER_MAGIC:
    case TMPFS_MAGIC:
    case RAMFS_MAGIC:
    case OVERLAYFS_SUPER_MAGIC:  // containers' root filesystems, over one of the above
    case 0x2FC12FC1:             // ZFS (not in linux/magic.h)
      return true;
    default:
      return false;
  }
}

}  // namespace

// A local path for `uri`: a plain path as it is, file:///x and file:/x as /x.
static Result<std::string> LocalPath(const std::string& uri) {
  if (uri.rfind("file://", 0) == 0) return uri.substr(7);
  if (uri.rfind("file:", 0) == 0) return uri.substr(5);
  if (!UriScheme(uri).empty()) {
    return Status::NotImplemented("cannot open '", uri,
                                  "' through the local filesystem (a warehouse on another "
                                  "filesystem opens it through its own catalog options)");
  }
  return uri;
}

Status LocalFileIO::CheckUri(const std::string& uri) const { return LocalPath(uri).status(); }

Result<std::shared_ptr<arrow::io::RandomAccessFile>> LocalFileIO::OpenInput(
    const std::string& uri, arrow::MemoryPool* pool) const {
  ARROW_ASSIGN_OR_RAISE(std::string path, LocalPath(uri));
  ARROW_ASSIGN_OR_RAISE(auto file, arrow::io::ReadableFile::Open(path, pool));
  return file;
}

Result<std::shared_ptr<arrow::io::RandomAccessFile>> LocalFileIO::OpenInputMapped(
    const std::string& uri, int64_t size, arrow::MemoryPool* pool) const {
  ARROW_ASSIGN_OR_RAISE(std::string path, LocalPath(uri));
  // A small file is cheaper to copy than to map: a mapping costs a statfs, an mmap, a munmap
  // that interrupts every other CPU running this process (to drop its TLB entries) and a
  // madvise per read, more than the copy of a few hundred KB it spares (an 80 KB file each
  // in bucket_join's 176-file read: 12 ms of its 86 ms CPU). Unknown sizes (<= 0) map.
  if (size > 0 && size < kMinMappedFileBytes) return OpenInput(uri, pool);
  if (!MapForReading(path)) return OpenInput(uri, pool);
  ARROW_ASSIGN_OR_RAISE(auto file,
                        arrow::io::MemoryMappedFile::Open(path, arrow::io::FileMode::READ));
  return file;
}

Result<std::shared_ptr<arrow::io::OutputStream>> LocalFileIO::OpenOutput(
    const std::string& uri) const {
  ARROW_ASSIGN_OR_RAISE(std::string path, LocalPath(uri));
  ARROW_RETURN_NOT_OK(MakeDirs(ParentOf(path)));
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return CreateError(path);
  auto file = arrow::io::FileOutputStream::Open(fd);
  if (!file.ok()) ::close(fd);
  return file;
}

Status LocalFileIO::WriteFileNoReplace(const std::string& path, std::string_view data) const {
  ARROW_RETURN_NOT_OK(MakeDirs(ParentOf(path)));
  ARROW_ASSIGN_OR_RAISE(std::string tmp, WriteTemp(path, data, /*sync=*/true));
  // link(2) fails with EEXIST instead of replacing: the no-replace commit primitive.
  int rc = ::link(tmp.c_str(), path.c_str());
  int err = errno;
  ::unlink(tmp.c_str());
  if (rc != 0) {
    errno = err;
    if (err == EEXIST) return Status::AlreadyExists("file '", path, "' already exists");
    return ErrnoStatus("cannot create", path);
  }
  int dir_fd = ::open(ParentOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return Status::OK();
}

Status LocalFileIO::WriteFile(const std::string& path, std::string_view data) const {
  ARROW_RETURN_NOT_OK(MakeDirs(ParentOf(path)));
  return ReplaceFile(path, data, /*sync=*/true);
}

Status LocalFileIO::WriteHint(const std::string& path, std::string_view data) const {
  ARROW_RETURN_NOT_OK(MakeDirs(ParentOf(path)));
  return ReplaceFile(path, data, /*sync=*/false);
}

Status LocalFileIO::WriteFileUnsynced(const std::string& path, std::string_view data) const {
  ARROW_RETURN_NOT_OK(MakeDirs(ParentOf(path)));
  // Write-back starts now, so that Sync's first fsync finds every file of the batch on its
  // way to the disk.
  return WriteWhole(path, O_EXCL, data, Flush::kStart);
}

Status LocalFileIO::WriteNewFile(const std::string& path, std::string_view data) const {
  ARROW_RETURN_NOT_OK(MakeDirs(ParentOf(path)));
  return WriteWhole(path, O_EXCL, data, Flush::kWait);
}

Status LocalFileIO::Sync(const std::vector<std::string>& paths) const {
  for (const auto& uri : paths) {
    ARROW_ASSIGN_OR_RAISE(std::string path, LocalPath(uri));
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus("cannot open", path);
    if (::fsync(fd) != 0) {
      Status st = ErrnoStatus("cannot sync", path);
      ::close(fd);
      return st;
    }
    ::close(fd);
  }
  return Status::OK();
}

Result<bool> LocalFileIO::Exists(const std::string& path) const {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return true;
  if (errno == ENOENT || errno == ENOTDIR) return false;
  return ErrnoStatus("cannot stat", path);
}

Result<bool> LocalFileIO::IsDirectory(const std::string& path) const {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return S_ISDIR(st.st_mode);
  if (errno == ENOENT || errno == ENOTDIR) return false;
  return ErrnoStatus("cannot stat", path);
}

Result<int64_t> LocalFileIO::FileSize(const std::string& path) const {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return ErrnoStatus("cannot stat", path);
  return static_cast<int64_t>(st.st_size);
}

Result<std::vector<FileStatus>> LocalFileIO::List(const std::string& dir) const {
  std::vector<FileStatus> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  fs::directory_iterator it(dir, ec);
  if (ec) return Status::IOError("cannot list '", dir, "': ", ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return Status::IOError("cannot list '", dir, "': ", ec.message());
    // An entry can vanish between readdir and stat (a concurrent commit's temp file after
    // its link): such an entry is simply not there any more.
    struct stat st;
    if (::stat(it->path().c_str(), &st) != 0) continue;
    FileStatus s;
    s.name = it->path().filename().string();
    s.is_dir = S_ISDIR(st.st_mode);
    s.size = s.is_dir ? 0 : static_cast<int64_t>(st.st_size);
    s.mtime_millis = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
    out.push_back(std::move(s));
  }
  if (ec) return Status::IOError("cannot list '", dir, "': ", ec.message());
  return out;
}

Status LocalFileIO::MakeDirs(const std::string& dir) const {
  if (dir.empty()) return Status::OK();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create directory '", dir, "': ", ec.message());
  return Status::OK();
}

Status LocalFileIO::DeleteFile(const std::string& path) const {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return ErrnoStatus("cannot delete", path);
  return Status::OK();
}

Status LocalFileIO::DeleteDirRecursive(const std::string& dir) const {
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) return Status::IOError("cannot delete '", dir, "': ", ec.message());
  return Status::OK();
}

Result<bool> LocalFileIO::DeleteEmptyDir(const std::string& dir) const {
  if (::rmdir(dir.c_str()) == 0) return true;
  if (errno == ENOTEMPTY || errno == EEXIST || errno == ENOENT) return false;
  return ErrnoStatus("cannot remove directory", dir);
}

Status LocalFileIO::Rename(const std::string& from, const std::string& to) const {
  std::error_code ec;
  if (fs::exists(to, ec))
    return Status::AlreadyExists("cannot rename '", from, "' to '", to, "': the target exists");
  fs::rename(from, to, ec);
  if (ec) return Status::IOError("cannot rename '", from, "' to '", to, "': ", ec.message());
  return Status::OK();
}

Result<bool> LocalFileIO::HoldsFiles(const std::string& dir) const {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (!it->is_directory(ec)) return true;
  }
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return Status::IOError("cannot list '", dir, "': ", ec.message());
  }
  return false;
}

std::shared_ptr<FileIO> FileIO::Local() {
  static auto instance = std::make_shared<LocalFileIO>();
  return instance;
}

}  // namespace paimon_rowid
