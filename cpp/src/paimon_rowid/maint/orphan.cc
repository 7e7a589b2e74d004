#include "paimon_rowid/maint/orphan.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "paimon_rowid/common/clock.h"
#include "paimon_rowid/maint/table_files_internal.h"

namespace paimon_rowid {
namespace {

constexpr int64_t kDayMillis = 24LL * 60 * 60 * 1000;

bool IsBucketDir(const std::string& name) {
  constexpr std::string_view kPrefix = "bucket-";
  if (name.size() <= kPrefix.size() || name.compare(0, kPrefix.size(), kPrefix) != 0) return false;
  return std::all_of(name.begin() + kPrefix.size(), name.end(),
                     [](char c) { return (c >= '0' && c <= '9') || c == '-'; });
}

bool IsPartitionDir(const std::string& name) {
  return name.find('=') != std::string::npos && name[0] != '.';
}

bool IsTempFile(const std::string& name) {
  return (!name.empty() && name[0] == '.') || name.find(".tmp") != std::string::npos;
}

struct Candidate {
  std::string path;
  FileStatus status;
};

class Cleaner {
 public:
  Cleaner(std::shared_ptr<const Table> table, OrphanResult* result, ProgressCounter* progress)
      : table_(std::move(table)), io_(*table_->file_io()), result_(result), progress_(progress) {}

  // Every file some snapshot or tag references.
  Status CollectUsed() {
    std::vector<Snapshot> snapshots;
    ARROW_ASSIGN_OR_RAISE(auto ids, table_->ListSnapshotIds());
    ProgressTotal(progress_, static_cast<int64_t>(ids.size()));
    for (int64_t id : ids) {
      ProgressDone(progress_);
      ARROW_ASSIGN_OR_RAISE(bool exists, io_.Exists(table_->SnapshotPath(id)));
      if (!exists) continue;  // expired meanwhile
      ARROW_ASSIGN_OR_RAISE(Snapshot snap, table_->SnapshotById(id));
      snapshots.push_back(std::move(snap));
    }
    ARROW_ASSIGN_OR_RAISE(auto tags, table_->ListTags());
    ProgressTotal(progress_, static_cast<int64_t>(tags.size()));
    for (const auto& name : tags) {
      ProgressDone(progress_);
      ARROW_ASSIGN_OR_RAISE(Tag tag, table_->TagByName(name));
      snapshots.push_back(std::move(tag.snapshot));
    }
    std::set<std::string> manifests;
    for (const auto& snap : snapshots) {
      // A list missing from a snapshot that an interrupted expiration half removed names
      // nothing any more; its files are either used by another snapshot or orphans.
      ARROW_ASSIGN_OR_RAISE(auto files,
                            ReadSnapshotMetaFiles(*table_, snap, /*tolerate_missing=*/true));
      for (const auto& n : files.manifest_lists) used_.insert(table_->ManifestPath(n));
      for (const auto& n : files.manifests) manifests.insert(n);
      if (files.index_manifest) used_.insert(table_->ManifestPath(*files.index_manifest));
      for (const auto& n : files.index_files) used_.insert(JoinPath(IndexDir(*table_), n));
      if (files.statistics) used_.insert(JoinPath(StatisticsDir(*table_), *files.statistics));
    }
    ProgressTotal(progress_, static_cast<int64_t>(manifests.size()));
    for (const auto& name : manifests) {  // each distinct manifest decoded once
      ARROW_RETURN_NOT_OK(ProgressCheck(progress_, "remove_orphan_files"));
      ProgressDone(progress_);
      used_.insert(table_->ManifestPath(name));
      ARROW_ASSIGN_OR_RAISE(auto entries, ReadManifestIfExists(*table_, name));
      for (const auto& e : entries) ARROW_RETURN_NOT_OK(AddDataPaths(*table_, e, &used_));
    }
    return Status::OK();
  }

  Status CollectCandidates() {
    const std::string& root = table_->path();
    for (const char* dir : {"manifest", "index", "statistics"}) {
      ARROW_RETURN_NOT_OK(ListRecursive(JoinPath(root, dir), nullptr));
    }
    for (const char* dir : {"snapshot", "schema", "tag"}) {
      std::string path = JoinPath(root, dir);
      ARROW_ASSIGN_OR_RAISE(auto entries, io_.List(path));
      for (const auto& e : entries) {
        if (!e.is_dir && IsTempFile(e.name)) candidates_.push_back({JoinPath(path, e.name), e});
      }
    }
    const std::string data_root = table_->DataRoot();
    ARROW_ASSIGN_OR_RAISE(auto entries, io_.List(data_root));
    for (const auto& e : entries) {
      if (e.is_dir && (IsBucketDir(e.name) || IsPartitionDir(e.name))) {
        ARROW_RETURN_NOT_OK(ListRecursive(JoinPath(data_root, e.name), &data_dirs_));
      }
    }
    ProgressTotal(progress_, static_cast<int64_t>(candidates_.size()));
    return Status::OK();
  }

  Status Clean(int64_t older_than_ms, bool dry_run) {
    ARROW_RETURN_NOT_OK(ProgressCheck(progress_, "remove_orphan_files"));
    for (const auto& c : candidates_) {
      ProgressDone(progress_);
      if (used_.count(c.path) || c.status.mtime_millis >= older_than_ms) continue;
      if (!dry_run) ARROW_RETURN_NOT_OK(io_.DeleteFile(c.path));
      result_->paths.push_back(c.path);
      ++result_->files;
      result_->bytes += c.status.size;
    }
    std::sort(result_->paths.begin(), result_->paths.end());
    if (dry_run) return Status::OK();
    // Deepest first, so a partition directory empties after its buckets.
    std::sort(data_dirs_.begin(), data_dirs_.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    for (const auto& dir : data_dirs_) {
      ARROW_ASSIGN_OR_RAISE(bool removed, io_.DeleteEmptyDir(dir));
      result_->dirs_removed += removed ? 1 : 0;
    }
    return Status::OK();
  }

 private:
  // Adds the files below `dir` to the candidates; its directories (itself included) to
  // `dirs` when given.
  Status ListRecursive(const std::string& dir, std::vector<std::string>* dirs) {
    if (dirs) dirs->push_back(dir);
    ARROW_ASSIGN_OR_RAISE(auto entries, io_.List(dir));
    for (const auto& e : entries) {
      std::string path = JoinPath(dir, e.name);
      if (e.is_dir) {
        ARROW_RETURN_NOT_OK(ListRecursive(path, dirs));
      } else {
        candidates_.push_back({std::move(path), e});
      }
    }
    return Status::OK();
  }

  std::shared_ptr<const Table> table_;
  const FileIO& io_;
  OrphanResult* result_;
  ProgressCounter* progress_;
  std::set<std::string> used_;
  std::vector<Candidate> candidates_;
  std::vector<std::string> data_dirs_;
};

}  // namespace

Result<OrphanResult> RemoveOrphanFiles(std::shared_ptr<const Table> table, OrphanOptions options) {
  if (!table) return Status::Invalid("RemoveOrphanFiles needs a table");
  OrphanResult result;
  result.dry_run = options.dry_run;
  const int64_t older_than = options.older_than_ms.value_or(NowMillis() - kDayMillis);
  Cleaner cleaner(table, &result, options.progress);
  // Candidates are listed before the used set is read: a file committed in between is then
  // in the used set, and one written after the listing is not a candidate.
  ARROW_RETURN_NOT_OK(cleaner.CollectCandidates());
  ARROW_RETURN_NOT_OK(cleaner.CollectUsed());
  ARROW_RETURN_NOT_OK(cleaner.Clean(older_than, options.dry_run));
  return result;
}

}  // namespace paimon_rowid
