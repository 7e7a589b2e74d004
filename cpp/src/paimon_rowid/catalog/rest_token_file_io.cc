#include "paimon_rowid/catalog/rest_token_file_io.h"

#include <chrono>
#include <cstdlib>

namespace paimon_rowid {
namespace {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<std::shared_ptr<RestTokenFileIO>> RestTokenFileIO::Make(
    std::string path, std::map<std::string, std::string> base, Loader loader,
    std::optional<RestDataToken> shipped) {
  std::shared_ptr<RestTokenFileIO> io(
      new RestTokenFileIO(std::move(path), std::move(base), std::move(loader)));
  std::lock_guard<std::mutex> lock(io->mutex_);
  if (shipped && shipped->expires_at_millis - NowMillis() >= kSafeTimeMillis) {
    ARROW_RETURN_NOT_OK(io->Install(std::move(*shipped)));
  } else {
    ARROW_ASSIGN_OR_RAISE(auto token, io->loader_());
    ++io->refreshes_;
    ARROW_RETURN_NOT_OK(io->Install(std::move(token)));
  }
  return io;
}

std::optional<RestDataToken> RestTokenFileIO::ShippedToken(
    const std::map<std::string, std::string>& options, std::map<std::string, std::string>* base) {
  auto it = options.find(kExpiresAtKey);
  if (it == options.end()) return std::nullopt;
  RestDataToken token;
  token.expires_at_millis = std::strtoll(it->second.c_str(), nullptr, 10);
  // The token's keys are listed under kTokenKeysKey (see Install).
  auto keys = options.find(kTokenKeysKey);
  std::map<std::string, bool> is_token;
  if (keys != options.end()) {
    size_t start = 0;
    const std::string& list = keys->second;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      if (comma == std::string::npos) comma = list.size();
      if (comma > start) is_token[list.substr(start, comma - start)] = true;
      start = comma + 1;
    }
  }
  for (const auto& [k, v] : options) {
    if (k == kExpiresAtKey || k == kTokenKeysKey) continue;
    if (is_token.count(k)) {
      token.token[k] = v;
    } else if (base != nullptr) {
      (*base)[k] = v;
    }
  }
  return token;
}

Status RestTokenFileIO::Install(RestDataToken token) const {
  std::map<std::string, std::string> merged = base_;
  std::string keys;
  for (const auto& [k, v] : token.token) {
    merged[k] = v;
    keys += (keys.empty() ? "" : ",") + k;
  }
  // pypaimon's dlf.oss-endpoint: the OSS endpoint to reach the files by (a DLF user's VPC
  // endpoint, say) over whichever the server's token names.
  auto dlf_oss = base_.find("dlf.oss-endpoint");
  if (dlf_oss != base_.end() && dlf_oss->second.find_first_not_of(" \t\r\n") != std::string::npos) {
    merged["fs.oss.endpoint"] = dlf_oss->second;
  }
  ARROW_ASSIGN_OR_RAISE(io_, FileIO::Make(path_, merged));
  merged[kExpiresAtKey] = std::to_string(token.expires_at_millis);
  merged[kTokenKeysKey] = keys;
  options_.push_back(std::move(merged));
  expires_at_millis_ = token.expires_at_millis;
  return Status::OK();
}

Result<std::shared_ptr<FileIO>> RestTokenFileIO::Current() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (expires_at_millis_ - NowMillis() < kSafeTimeMillis) {
    ARROW_ASSIGN_OR_RAISE(auto token, loader_());
    ++refreshes_;
    ARROW_RETURN_NOT_OK(Install(std::move(token)));
  }
  return io_;
}

const std::map<std::string, std::string>& RestTokenFileIO::options() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return options_.back();
}

int64_t RestTokenFileIO::refreshes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return refreshes_;
}

bool RestTokenFileIO::atomic_rename() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return io_->atomic_rename();
}

Status RestTokenFileIO::CheckUri(const std::string& uri) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return io_->CheckUri(uri);
}

#define PR_DELEGATE(call)                    \
  ARROW_ASSIGN_OR_RAISE(auto io, Current()); \
  return io->call;

Result<std::shared_ptr<arrow::Buffer>> RestTokenFileIO::ReadFile(const std::string& path) const {
    PR_DELEGATE(
        ReadFile(path))} Result<std::shared_ptr<arrow::io::RandomAccessFile>> RestTokenFileIO::
    OpenInput(const std::string& path, arrow::MemoryPool* pool) const {PR_DELEGATE(OpenInput(
        path, pool))} Result<std::shared_ptr<arrow::io::RandomAccessFile>> RestTokenFileIO::
        OpenInputWithSize(const std::string& path, int64_t size, arrow::MemoryPool* pool) const {
            PR_DELEGATE(OpenInputWithSize(
                path, size,
                pool))} Result<std::shared_ptr<arrow::io::RandomAccessFile>> RestTokenFileIO::
            OpenInputMapped(const std::string& path, int64_t size, arrow::MemoryPool* pool) const {
                PR_DELEGATE(OpenInputMapped(
                    path, size,
                    pool))} Result<std::shared_ptr<arrow::io::OutputStream>> RestTokenFileIO::
                OpenOutput(const std::string& path) const {PR_DELEGATE(OpenOutput(path))} Status
    RestTokenFileIO::WriteFileNoReplace(const std::string& path, std::string_view data) const {
        PR_DELEGATE(WriteFileNoReplace(path, data))} Status
    RestTokenFileIO::WriteFile(const std::string& path, std::string_view data) const {
        PR_DELEGATE(WriteFile(path, data))} Status
    RestTokenFileIO::WriteNewFile(const std::string& path, std::string_view data) const {
        PR_DELEGATE(WriteNewFile(path, data))} Status
    RestTokenFileIO::WriteFileUnsynced(const std::string& path, std::string_view data) const {
        PR_DELEGATE(WriteFileUnsynced(path, data))} Status
    RestTokenFileIO::Sync(const std::vector<std::string>& paths) const {
        PR_DELEGATE(Sync(paths))} Status RestTokenFileIO::WriteHint(const std::string& path,
                                                                    std::string_view data) const {
        PR_DELEGATE(WriteHint(
            path, data))} Result<bool> RestTokenFileIO::Exists(const std::string& path) const {
        PR_DELEGATE(Exists(path))} Result<bool> RestTokenFileIO::IsDirectory(const std::string&
                                                                                 path) const {
        PR_DELEGATE(
            IsDirectory(path))} Result<int64_t> RestTokenFileIO::FileSize(const std::string& path)
        const {PR_DELEGATE(FileSize(path))} Result<std::vector<FileStatus>> RestTokenFileIO::List(
            const std::string& dir) const {PR_DELEGATE(List(dir))} Status
    RestTokenFileIO::MakeDirs(const std::string& dir) const {PR_DELEGATE(MakeDirs(dir))} Status
    RestTokenFileIO::DeleteFile(const std::string& path) const {PR_DELEGATE(
        DeleteFile(path))} Status RestTokenFileIO::DeleteDirRecursive(const std::string& dir)
        const {PR_DELEGATE(DeleteDirRecursive(dir))} Result<bool> RestTokenFileIO::DeleteEmptyDir(
            const std::string& dir) const {PR_DELEGATE(DeleteEmptyDir(dir))} Status
    RestTokenFileIO::Rename(const std::string& from, const std::string& to) const {PR_DELEGATE(
        Rename(from, to))} Result<bool> RestTokenFileIO::HoldsFiles(const std::string& dir) const {
  PR_DELEGATE(HoldsFiles(dir))
}

#undef PR_DELEGATE

}  // namespace paimon_rowid
