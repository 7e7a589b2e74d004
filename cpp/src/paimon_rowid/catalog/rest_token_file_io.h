// FileIO of a REST table whose files need server-vended credentials (the server's config
// says "data-token.enabled": true): the REST protocol's GET .../tables/{t}/token answers a
// map of filesystem options (e.g. fs.s3.accessKeyId, fs.s3.accessKeySecret,
// fs.s3.securityToken) and the instant they expire. Every call goes to a FileIO made from the
// catalog's options with that map over them; a token within an hour of its expiry (pypaimon's
// and Java's safe time) is replaced by a new one from the server before the call, so a job
// running for longer than one token lives keeps working. docs/rest-catalog.md.
//
// The token's values are never put into a Status message or a log. options() carries the
// current token (with kExpiresAtKey) so a pickled table ships it to Ray workers, which use it
// until it needs refreshing, then ask the server themselves (with the catalog's options).
// Thread-safety: safe to share; a refresh happens once however many threads need it.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "paimon_rowid/fs/file_io.h"

namespace paimon_rowid {

struct RestDataToken {
  std::map<std::string, std::string> token;
  int64_t expires_at_millis = 0;
};

class RestTokenFileIO final : public FileIO {
 public:
  /// The key under which options() records the current token's expiry.
  static constexpr const char* kExpiresAtKey = "__rest.data-token.expires-at-millis";
  /// The key under which options() lists the token's own keys (comma-separated).
  static constexpr const char* kTokenKeysKey = "__rest.data-token.keys";
  /// A token closer than this to its expiry is refreshed before use (pypaimon's
  /// TOKEN_EXPIRATION_SAFE_TIME_MILLIS).
  static constexpr int64_t kSafeTimeMillis = 3600 * 1000;

  using Loader = std::function<Result<RestDataToken>()>;

  /// `path` is the table's directory; `base` the catalog's options (without any token);
  /// `shipped`, a token from another process's options() (used while it is fresh).
  static Result<std::shared_ptr<RestTokenFileIO>> Make(std::string path,
                                                       std::map<std::string, std::string> base,
                                                       Loader loader,
                                                       std::optional<RestDataToken> shipped);
  /// Splits options() of another process's RestTokenFileIO back into the catalog's options
  /// and the token; nullopt when `options` carries no token.
  static std::optional<RestDataToken> ShippedToken(
      const std::map<std::string, std::string>& options, std::map<std::string, std::string>* base);

  /// The catalog's options with the current token's keys over them, plus kExpiresAtKey.
  const std::map<std::string, std::string>& options() const override;
  bool atomic_rename() const override;
  Status CheckUri(const std::string& uri) const override;
  Result<std::shared_ptr<arrow::Buffer>> ReadFile(const std::string& path) const override;
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInput(
      const std::string& path, arrow::MemoryPool* pool) const override;
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputWithSize(
      const std::string& path, int64_t size, arrow::MemoryPool* pool) const override;
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputMapped(
      const std::string& path, int64_t size, arrow::MemoryPool* pool) const override;
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutput(
      const std::string& path) const override;
  Status WriteFileNoReplace(const std::string& path, std::string_view data) const override;
  Status WriteFile(const std::string& path, std::string_view data) const override;
  Status WriteNewFile(const std::string& path, std::string_view data) const override;
  Status WriteFileUnsynced(const std::string& path, std::string_view data) const override;
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

  /// How many tokens this FileIO has asked the server for.
  int64_t refreshes() const;

 private:
  RestTokenFileIO(std::string path, std::map<std::string, std::string> base, Loader loader)
      : path_(std::move(path)), base_(std::move(base)), loader_(std::move(loader)) {}
  /// The FileIO of a token fresh for at least kSafeTimeMillis, refreshing it first if needed.
  Result<std::shared_ptr<FileIO>> Current() const;
  Status Install(RestDataToken token) const;  // mutex_ held

  const std::string path_;
  const std::map<std::string, std::string> base_;
  const Loader loader_;
  mutable std::mutex mutex_;
  mutable int64_t expires_at_millis_ = 0;
  mutable std::shared_ptr<FileIO> io_;
  // Every options() map handed out (a reference to one stays valid after a refresh).
  mutable std::list<std::map<std::string, std::string>> options_;
  mutable int64_t refreshes_ = 0;
};

}  // namespace paimon_rowid
