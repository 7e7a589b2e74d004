// Test helpers shared by the C++ unit tests (header-only, linked through pr_testing).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace paimon_rowid::testing {

/// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "paimon-rowid-XXXXXX").string();
    char* made = ::mkdtemp(tmpl.data());
    path_ = made ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Points TMPDIR at a fresh directory for its scope, and removes that directory with everything
/// in it on destruction. Death tests in gtest's "threadsafe" style re-run the test body in a
/// child process that is then killed (SIGKILL at a crash point): the child's TempDirs cannot
/// remove themselves. The child inherits TMPDIR, so they land here and go with the parent's.
/// Construct it first in the test, before any TempDir and before threads read the environment.
class ScopedTempRoot {
 public:
  ScopedTempRoot() {
    if (const char* old = std::getenv("TMPDIR")) old_ = std::string(old);
    ::setenv("TMPDIR", root_.path().c_str(), /*overwrite=*/1);
  }
  ~ScopedTempRoot() {
    if (old_) {
      ::setenv("TMPDIR", old_->c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
  }
  ScopedTempRoot(const ScopedTempRoot&) = delete;
  ScopedTempRoot& operator=(const ScopedTempRoot&) = delete;

 private:
  std::optional<std::string> old_;
  TempDir root_;  // destroyed after TMPDIR is restored
};

}  // namespace paimon_rowid::testing
