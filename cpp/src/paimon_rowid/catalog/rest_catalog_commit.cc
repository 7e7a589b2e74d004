#include <nlohmann/json.hpp>

#include "paimon_rowid/catalog/rest_catalog.h"
#include "paimon_rowid/catalog/rest_catalog_internal.h"
#include "paimon_rowid/catalog/tags.h"
#include "paimon_rowid/fs/file_io.h"

// Commits, rollbacks and the table's tag calls of REST tables through the server
// (RestSnapshotCommit), and the state a pickled table carries to rebuild its commit seam and
// its FileIO on a Ray worker.
namespace paimon_rowid {
namespace {

using nlohmann::json;
using rest_internal::ForTable;
using rest_internal::HasKind;
using rest_internal::TablePath;

constexpr const char* kStateTableId = "__rest.table-id";
constexpr const char* kStateIdentifier = "__rest.identifier";

class RestSnapshotCommit final : public SnapshotCommit, public CatalogTags {
 public:
  RestSnapshotCommit(std::shared_ptr<const RestCatalog> catalog, Identifier identifier,
                     std::string table_id)
      : catalog_(std::move(catalog)),
        identifier_(std::move(identifier)),
        table_id_(std::move(table_id)) {}

  Status Commit(const Snapshot& snapshot, const std::string& statistics_json) const override {
    json statistics = json::parse(statistics_json, nullptr, false);
    if (!statistics.is_array()) statistics = json::array();
    json body{{"snapshot", json::parse(snapshot.ToJson())}, {"statistics", statistics}};
    if (!table_id_.empty()) body["tableId"] = table_id_;
    auto answer = catalog_->Call("POST", TablePath(identifier_) + "/commit", body.dump());
    if (!answer.ok()) return ForTable(answer.status(), identifier_.FullName());
    json parsed = json::parse(*answer, nullptr, false);
    if (parsed.is_object() && parsed.value("success", false)) return Status::OK();
    return Status::AlreadyExists("the REST catalog server refused snapshot ", snapshot.id, " of ",
                                 identifier_.FullName(), " (a concurrent commit won)");
  }

  Status Rollback(int64_t snapshot_id, const std::string& tag_name) const override {
    json instant = tag_name.empty() ? json{{"type", "snapshot"}, {"snapshotId", snapshot_id}}
                                    : json{{"type", "tag"}, {"tagName", tag_name}};
    json body{{"instant", instant}};
    auto answer = catalog_->Call("POST", TablePath(identifier_) + "/rollback", body.dump());
    return answer.ok() ? Status::OK() : ForTable(answer.status(), identifier_.FullName());
  }

  std::map<std::string, std::string> State() const override {
    auto state = catalog_->user_options();
    state[kStateTableId] = table_id_;
    state[kStateIdentifier] = identifier_.FullName();
    return state;
  }

  const CatalogTags* catalog_tags() const override { return this; }

  // CatalogTags: the server's tag endpoints (RestCatalog's tag calls).
  Status Create(const std::string& name, int64_t snapshot_id,
                const std::optional<std::string>& time_retained) const override {
    Status st = catalog_->CreateTag(identifier_.FullName(), name, snapshot_id, time_retained);
    if (HasKind(st, ErrorKind::kRestAlreadyExists)) {
      return Status::AlreadyExists("Tag '", name, "' already exists.");
    }
    return st;
  }

  Result<std::optional<CatalogTag>> Get(const std::string& name) const override {
    auto found = catalog_->GetTag(identifier_.FullName(), name);
    if (!found.ok()) {
      if (HasKind(found.status(), ErrorKind::kRestNoSuchResource)) {
        return std::optional<CatalogTag>();
      }
      return found.status();
    }
    return std::optional<CatalogTag>(CatalogTag{found->snapshot.id, found->time_retained});
  }

  Result<bool> Delete(const std::string& name) const override {
    Status st = catalog_->DeleteTag(identifier_.FullName(), name);
    if (HasKind(st, ErrorKind::kRestNoSuchResource)) return false;
    ARROW_RETURN_NOT_OK(st);
    return true;
  }

  Result<std::vector<std::string>> List() const override {
    return catalog_->ListTags(identifier_.FullName(), "");
  }

 private:
  std::shared_ptr<const RestCatalog> catalog_;
  Identifier identifier_;
  std::string table_id_;
};

}  // namespace

Result<std::shared_ptr<FileIO>> RestCatalog::FileIOFromState(
    const std::string& path, const std::map<std::string, std::string>& io_options,
    const std::map<std::string, std::string>& commit_state) {
  std::map<std::string, std::string> base;
  auto shipped = RestTokenFileIO::ShippedToken(io_options, &base);
  if (!shipped || commit_state.empty()) return FileIO::Make(path, io_options);
  auto options = commit_state;
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(options[kStateIdentifier]));
  options.erase(kStateTableId);
  options.erase(kStateIdentifier);
  auto loader = [options, id]() -> Result<RestDataToken> {
    ARROW_ASSIGN_OR_RAISE(auto catalog, Make(options));
    return catalog->LoadDataToken(id);
  };
  ARROW_ASSIGN_OR_RAISE(
      auto io, RestTokenFileIO::Make(path, std::move(base), std::move(loader), std::move(shipped)));
  return io;
}
std::shared_ptr<const SnapshotCommit> RestCatalog::MakeSnapshotCommit(
    const Identifier& identifier, const std::string& table_id) const {
  return std::make_shared<RestSnapshotCommit>(shared_from_this(), identifier, table_id);
}

Result<std::shared_ptr<const SnapshotCommit>> RestCatalog::SnapshotCommitFromState(
    const std::map<std::string, std::string>& state) {
  auto options = state;
  const std::string table_id = options[kStateTableId];
  ARROW_ASSIGN_OR_RAISE(Identifier id, Identifier::Parse(options[kStateIdentifier]));
  options.erase(kStateTableId);
  options.erase(kStateIdentifier);
  ARROW_ASSIGN_OR_RAISE(auto catalog, Make(options));
  return catalog->MakeSnapshotCommit(id, table_id);
}

}  // namespace paimon_rowid
