#include "paimon_rowid/fs/s3_file_io.h"

#include <cstdlib>
#include <mutex>

#include "arrow/buffer.h"
#include "arrow/filesystem/s3fs.h"
#include "paimon_rowid/common/identifier.h"

namespace paimon_rowid {
namespace afs = arrow::fs;

namespace {

int64_t MillisOf(afs::TimePoint t) {
  if (t == afs::kNoTime) return 0;
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::pair<std::string, std::string> SplitBucket(const std::string& fs_path) {
  const size_t slash = fs_path.find('/');
  if (slash == std::string::npos) return {fs_path, ""};
  return {fs_path.substr(0, slash), fs_path.substr(slash + 1)};
}

}  // namespace

Status FinalizeObjectStores() {
  if (!afs::IsS3Initialized()) return Status::OK();
  return afs::EnsureS3Finalized();
}

Result<std::shared_ptr<S3FileIO>> S3FileIO::Make(const S3Config& config) {
  // Arrow's AWS SDK must be shut down before the process exits: FinalizeObjectStores() in
  // C++ programs, pyarrow's own exit hook in Python. (An exit handler of ours would run
  // after OpenSSL's, which the SDK may share, and crash.)
  EnsureCurlInitialized();
  ARROW_RETURN_NOT_OK(afs::EnsureS3Initialized());
  afs::S3Options options;
  if (!config.access_key.empty()) {
    // Explicit keys: no instance-metadata probe (it can stall seconds off EC2); an explicit
    // setting of the variable is kept.
    ::setenv("AWS_EC2_METADATA_DISABLED", "true", /*overwrite=*/0);
    options =
        afs::S3Options::FromAccessKey(config.access_key, config.secret_key, config.session_token);
  } else {
    options = afs::S3Options::Defaults();
  }
  if (!config.region.empty()) options.region = config.region;
  if (options.region.empty()) options.region = config.EffectiveRegion();
  options.endpoint_override = config.endpoint;
  options.scheme = config.use_https ? "https" : "http";
  options.force_virtual_addressing = !config.endpoint.empty() && !config.path_style;
  // Bounded, so that an endpoint that refuses or never answers fails in seconds, not minutes
  // (10 standard-strategy attempts took 180 s against a closed port).
  options.retry_strategy = afs::S3RetryStrategy::GetAwsStandardRetryStrategy(config.max_attempts);
  options.connect_timeout = static_cast<double>(config.connect_timeout_ms) / 1000.0;
  options.request_timeout = static_cast<double>(config.request_timeout_ms) / 1000.0;
  // Small objects (manifests, hints, small data files) in one PUT instead of a three-request
  // multipart upload, and opens without a round trip; errors then surface at the first read
  // or at Close, which every writer checks.
  options.allow_delayed_open = true;
  ARROW_ASSIGN_OR_RAISE(auto fs, afs::S3FileSystem::Make(options));
  std::shared_ptr<S3FileIO> io(new S3FileIO(config));
  io->fs_ = std::move(fs);
  S3FileIO* raw = io.get();
  io->put_ =
      std::make_unique<S3ConditionalPut>(config, [raw] { return raw->CurrentCredentials(); });
  return io;
}

S3Credentials S3FileIO::CurrentCredentials() const {
  if (!config_.access_key.empty()) {
    return {config_.access_key, config_.secret_key, config_.session_token};
  }
  // The chain Arrow resolved (environment, profile, instance or web identity), current.
  const afs::S3Options options = fs_->options();
  return {options.GetAccessKey(), options.GetSecretKey(), options.GetSessionToken()};
}

Result<std::string> S3FileIO::FsPath(const std::string& uri) const {
  const std::string scheme = UriScheme(uri);
  if (scheme != "s3" && scheme != "s3a" && scheme != "s3n" && scheme != "oss") {
    return Status::Invalid("'", uri, "' is not on the object store of this warehouse (",
                           config_.scheme, "://)");
  }
  std::string path = uri.substr(scheme.size() + 3);
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.empty() || path[0] == '/') return Status::Invalid("'", uri, "' names no bucket");
  return path;
}

Result<std::shared_ptr<arrow::io::RandomAccessFile>> S3FileIO::OpenInput(
    const std::string& path, arrow::MemoryPool* pool) const {
  ARROW_ASSIGN_OR_RAISE(std::string p, FsPath(path));
  return fs_->OpenInputFile(p);
}

Result<std::shared_ptr<arrow::Buffer>> S3FileIO::ReadFile(const std::string& path) const {
  // One GET: Arrow's input files send a HEAD for the size first.
  ARROW_ASSIGN_OR_RAISE(std::string p, FsPath(path));
  auto [bucket, key] = SplitBucket(p);
  ARROW_ASSIGN_OR_RAISE(std::string body, put_->Get(bucket, key));
  return arrow::Buffer::FromString(std::move(body));
}

Result<std::shared_ptr<arrow::io::RandomAccessFile>> S3FileIO::OpenInputWithSize(
    const std::string& path, int64_t size, arrow::MemoryPool* pool) const {
  if (size < 0) return OpenInput(path, pool);
  ARROW_ASSIGN_OR_RAISE(std::string p, FsPath(path));
  afs::FileInfo info(p, afs::FileType::File);
  info.set_size(size);
  return fs_->OpenInputFile(info);
}

Result<std::shared_ptr<arrow::io::OutputStream>> S3FileIO::OpenOutput(
    const std::string& path) const {
  ARROW_ASSIGN_OR_RAISE(std::string p, FsPath(path));
  return fs_->OpenOutputStream(p);
}

Result<bool> S3FileIO::SupportsPutIfAbsent(const std::string& dir) const {
  if (config_.put_if_absent == PutIfAbsentMode::kSupported) return true;
  if (config_.put_if_absent == PutIfAbsentMode::kUnsupported) return false;
  std::lock_guard<std::mutex> lock(probe_mutex_);
  if (probed_ >= 0) return probed_ == 1;
  ARROW_ASSIGN_OR_RAISE(std::string p,
                        FsPath(JoinPath(dir, ".put-if-absent-probe-" + RandomUuid())));
  auto [bucket, key] = SplitBucket(p);
  ARROW_RETURN_NOT_OK(put_->PutIfAbsent(bucket, key, "1"));
  Status second = put_->PutIfAbsent(bucket, key, "2");
  Status removed = fs_->DeleteFile(p);
  if (!second.ok() && !second.IsAlreadyExists()) return second;
  ARROW_RETURN_NOT_OK(removed);
  probed_ = second.IsAlreadyExists() ? 1 : 0;
  return probed_ == 1;
}

Status S3FileIO::WriteFileNoReplace(const std::string& path, std::string_view data) const {
  ARROW_ASSIGN_OR_RAISE(std::string p, FsPath(path));
  const std::string dir = path.substr(0, path.rfind('/'));
  ARROW_ASSIGN_OR_RAISE(bool conditional, SupportsPutIfAbsent(dir));
  if (conditional) {
    auto [bucket, key] = SplitBucket(p);
    return put_->PutIfAbsent(bucket, key, data);
  }
  if (!config_.single_writer) {
    return Status::NotImplemented(
        "cannot create '", path,
        "' safely: this object store does not honour conditional writes (If-None-Match on "
        "PUT), so two concurrent committers could overwrite each other's snapshot. Set "
        "'s3.commit.single-writer'='true' if only one process at a time commits to this "
        "warehouse, or use a store with conditional writes (docs/object-stores.md)");
  }
  // One committer at a time, by the user's guarantee: check, then write.
  ARROW_ASSIGN_OR_RAISE(bool exists, Exists(path));
  if (exists) return Status::AlreadyExists("file '", path, "' already exists");
  return WriteFile(path, data);
}

Status S3FileIO::WriteFile(const std::string& path, std::string_view data) const {
  ARROW_ASSIGN_OR_RAISE(auto out, OpenOutput(path));
  ARROW_RETURN_NOT_OK(out->Write(data.data(), static_cast<int64_t>(data.size())));
  return out->Close();
}

Result<bool> S3FileIO::Exists(const std::string& path) const {
  ARROW_ASSIGN_OR_RAISE(std::string p, FsPath(path));
  ARROW_ASSIGN_OR_RAISE(auto info, fs_->GetFileInfo(p));
  return info.type() != afs::FileType::NotFound;
}

Result<bool> S3FileIO::IsDirectory(const std::string& path) const {
  ARROW_ASSIGN_OR_RAISE(std::string p, FsPath(path));
  ARROW_ASSIGN_OR_RAISE(auto info, fs_->GetFileInfo(p));
  return info.type() == afs::FileType::Directory;
}

Result<int64_t> S3FileIO::FileSize(const std::string& path) const {
  ARROW_ASSIGN_OR_RAISE(std::string p, FsPath(path));
  ARROW_ASSIGN_OR_RAISE(auto info, fs_->GetFileInfo(p));
  if (info.type() != afs::FileType::File) {
    return Status::IOError("cannot stat '", path, "': no such object");
  }
  return info.size();
}

Result<std::vector<FileStatus>> S3FileIO::List(const std::string& dir) const {
  ARROW_ASSIGN_OR_RAISE(std::string p, FsPath(dir));
  afs::FileSelector selector;
  selector.base_dir = p;
  selector.allow_not_found = true;
  selector.recursive = false;
  auto infos = fs_->GetFileInfo(selector);
  if (!infos.ok()) {
    // A file where a directory was expected lists as empty, as on a local filesystem.
    ARROW_ASSIGN_OR_RAISE(auto info, fs_->GetFileInfo(p));
    if (info.type() != afs::FileType::Directory) return std::vector<FileStatus>{};
    return infos.status();
  }
  std::vector<FileStatus> out;
  out.reserve(infos->size());
  for (const auto& info : *infos) {
    FileStatus s;
    s.name = info.base_name();
    s.is_dir = info.type() == afs::FileType::Directory;
    s.size = s.is_dir ? 0 : info.size();
    s.mtime_millis = MillisOf(info.mtime());
    out.push_back(std::move(s));
  }
  return out;
}

Status S3FileIO::MakeDirs(const std::string& dir) const {
  ARROW_ASSIGN_OR_RAISE(std::string p, FsPath(dir));
  return fs_->CreateDir(p, /*recursive=*/true);
}

Status S3FileIO::DeleteFile(const std::string& path) const {
  ARROW_ASSIGN_OR_RAISE(std::string p, FsPath(path));
  Status st = fs_->DeleteFile(p);
  if (st.ok()) return st;
  ARROW_ASSIGN_OR_RAISE(auto info, fs_->GetFileInfo(p));
  return info.type() == afs::FileType::NotFound ? Status::OK() : st;
}

Status S3FileIO::DeleteDirRecursive(const std::string& dir) const {
  ARROW_ASSIGN_OR_RAISE(std::string p, FsPath(dir));
  ARROW_ASSIGN_OR_RAISE(auto info, fs_->GetFileInfo(p));
  if (info.type() == afs::FileType::NotFound) return Status::OK();
  return fs_->DeleteDir(p);
}

Result<bool> S3FileIO::DeleteEmptyDir(const std::string& dir) const {
  // An object store's directory exists through the objects below it: an empty one holds at
  // most a marker object, and deleting markers could race a writer's first object (Arrow's
  // DeleteDir removes everything under the prefix). Nothing is removed.
  return false;
}

Status S3FileIO::Rename(const std::string& from, const std::string& to) const {
  ARROW_ASSIGN_OR_RAISE(std::string src, FsPath(from));
  ARROW_ASSIGN_OR_RAISE(std::string dst, FsPath(to));
  ARROW_ASSIGN_OR_RAISE(auto info, fs_->GetFileInfo(dst));
  if (info.type() != afs::FileType::NotFound) {
    return Status::AlreadyExists("cannot rename '", from, "' to '", to, "': the target exists");
  }
  return fs_->Move(src, dst);
}

Result<bool> S3FileIO::HoldsFiles(const std::string& dir) const {
  ARROW_ASSIGN_OR_RAISE(std::string p, FsPath(dir));
  afs::FileSelector selector;
  selector.base_dir = p;
  selector.allow_not_found = true;
  selector.recursive = true;
  ARROW_ASSIGN_OR_RAISE(auto infos, fs_->GetFileInfo(selector));
  for (const auto& info : infos) {
    if (info.type() == afs::FileType::File) return true;
  }
  return false;
}

}  // namespace paimon_rowid
