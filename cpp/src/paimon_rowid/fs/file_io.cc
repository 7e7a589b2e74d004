#include "paimon_rowid/fs/file_io.h"

#include <cctype>
#include <mutex>

#include "paimon_rowid/fs/s3_file_io.h"
#include "paimon_rowid/fs/s3_options.h"

namespace paimon_rowid {

Status CheckFileSize(const std::string& path, int64_t on_disk, int64_t in_manifest) {
  if (in_manifest <= 0 || on_disk == in_manifest) return Status::OK();
  return Status::IOError("data file '", path, "' is ", on_disk,
                         " bytes on disk but its manifest entry says ", in_manifest,
                         " bytes (replaced, truncated or corrupt)");
}

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  std::string out(a);
  if (out.back() != '/') out.push_back('/');
  out.append(b);
  return out;
}

std::string UriScheme(std::string_view uri) {
  const size_t colon = uri.find(':');
  if (colon == std::string_view::npos || colon < 2) return "";
  std::string scheme;
  for (size_t i = 0; i < colon; ++i) {
    const auto c = static_cast<unsigned char>(uri[i]);
    const bool ok =
        std::isalpha(c) || (i > 0 && (std::isdigit(c) || c == '+' || c == '-' || c == '.'));
    if (!ok) return "";
    scheme.push_back(static_cast<char>(std::tolower(c)));
  }
  return scheme;
}

const std::map<std::string, std::string>& FileIO::options() const {
  static const auto* empty = new std::map<std::string, std::string>();
  return *empty;
}

Result<std::shared_ptr<arrow::Buffer>> FileIO::ReadFile(const std::string& path) const {
  ARROW_ASSIGN_OR_RAISE(auto file, OpenInput(path));
  ARROW_ASSIGN_OR_RAISE(int64_t size, file->GetSize());
  ARROW_ASSIGN_OR_RAISE(auto buffer, file->ReadAt(0, size));
  ARROW_RETURN_NOT_OK(file->Close());
  if (buffer->size() != size) return Status::IOError("short read of '", path, "'");
  return buffer;
}

Result<std::shared_ptr<arrow::io::OutputStream>> FileIO::OpenOutputReplacing(
    const std::string& path) const {
  ARROW_RETURN_NOT_OK(DeleteFile(path));
  return OpenOutput(path);
}

Result<std::string> FileIO::ReadText(const std::string& path) const {
  ARROW_ASSIGN_OR_RAISE(auto buffer, ReadFile(path));
  return buffer->ToString();
}

Result<std::shared_ptr<FileIO>> FileIO::Make(const std::string& uri,
                                             const std::map<std::string, std::string>& options) {
  ARROW_RETURN_NOT_OK(ValidateObjectStoreKeys(options));
  const std::string scheme = UriScheme(uri);
  if (scheme.empty() || scheme == "file") return Local();
  if (scheme != "s3" && scheme != "s3a" && scheme != "s3n" && scheme != "oss") {
    return Status::NotImplemented("filesystem '", scheme, "' of '", uri,
                                  "' is not supported (local paths, file://, s3://, s3a://, "
                                  "s3n:// and oss:// are)");
  }
  ARROW_ASSIGN_OR_RAISE(S3Config config, S3Config::FromOptions(scheme, options));
  // One client per configuration and process: creating one costs requests and threads.
  static std::mutex mutex;
  static auto* cache = new std::map<std::string, std::shared_ptr<FileIO>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = (*cache)[config.CacheKey()];
  if (!slot) {
    ARROW_ASSIGN_OR_RAISE(slot, S3FileIO::Make(config));
  }
  return slot;
}

}  // namespace paimon_rowid
