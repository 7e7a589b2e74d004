#include "paimon_rowid/catalog/table.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <ctime>
#include <mutex>

#include "paimon_rowid/catalog/snapshot_manager.h"
#include "paimon_rowid/catalog/tags.h"

namespace paimon_rowid {

struct Table::SchemaCache {
  std::mutex mu;
  std::map<int64_t, TableSchema> schemas;  // as read from schema-N, never modified
};

namespace {

constexpr const char* kSchemaPrefix = "schema-";
constexpr const char* kTagPrefix = "tag-";

// The time-travel keys, in pypaimon's order (its error message lists them so).
const std::vector<std::string>& TimeTravelKeys() {
  static const std::vector<std::string> keys = {
      options::kScanVersion,   options::kScanSnapshotId, options::kScanTagName,
      options::kScanWatermark, options::kScanTimestamp,  options::kScanTimestampMillis};
  return keys;
}

bool IsTimeTravelKey(const std::string& key) {
  const auto& keys = TimeTravelKeys();
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// Options that declare columns; under time travel they come from the travelled schema
// unless given explicitly (pypaimon's _exclude_current_schema_field_options).
const std::vector<std::vector<std::string>>& FieldDeclaringOptionGroups() {
  static const std::vector<std::vector<std::string>> groups = {
      {"vector-field"},
      {options::kBlobField},
      {options::kBlobDescriptorField, "blob.stored-descriptor-fields"},
      {"blob-view-field"},
  };
  return groups;
}

Status WithContext(const Status& st, const std::string& path) {
  return st.WithMessage("'", path, "': ", st.message());
}

}  // namespace

Result<std::shared_ptr<Table>> Table::Open(std::shared_ptr<FileIO> io, Identifier identifier,
                                           std::string path,
                                           std::map<std::string, std::string> dynamic_options) {
  std::shared_ptr<Table> table(new Table());
  table->io_ = std::move(io);
  table->identifier_ = std::move(identifier);
  table->path_ = std::move(path);
  table->schema_cache_ = std::make_shared<SchemaCache>();
  ARROW_ASSIGN_OR_RAISE(auto latest, table->LatestSchema());
  if (!latest) {
    return MakeKindError(arrow::StatusCode::KeyError, ErrorKind::kTableNotExist,
                         "Table " + table->identifier_.FullName() + " does not exist.");
  }
  table->base_schema_ = std::move(*latest);
  for (auto& [k, v] : dynamic_options) table->overrides_[k] = std::move(v);
  ARROW_RETURN_NOT_OK(table->ApplyOptions(/*resolve_time_travel=*/true));
  return table;
}

Status Table::ApplyOptions(bool resolve_time_travel) {
  std::map<std::string, std::string> effective = base_schema_.options;
  for (const auto& [k, v] : overrides_) {
    if (v) {
      effective[k] = *v;
    } else {
      effective.erase(k);
    }
  }
  options_ = Options(effective);
  if (resolve_time_travel) {
    ARROW_ASSIGN_OR_RAISE(travelled_, TravelToSnapshot());
  }
  TableSchema in_force = base_schema_;
  int64_t read_schema_id = travelled_ ? travelled_->schema_id : base_schema_.id;
  auto pinned_schema = overrides_.find(kReadSchemaIdOption);
  if (pinned_schema != overrides_.end() && pinned_schema->second) {
    // A job pinning the snapshot it read keeps the schema its handle had (an alter after
    // the latest snapshot must not send it back to that snapshot's schema).
    Options probe({{kReadSchemaIdOption, *pinned_schema->second}});
    ARROW_ASSIGN_OR_RAISE(read_schema_id, probe.GetInt(kReadSchemaIdOption, read_schema_id));
  }
  if (read_schema_id != base_schema_.id) {
    // Java reads a travelled snapshot with its own schema's fields and the effective
    // options, except the options that declare columns, which must match those fields.
    ARROW_ASSIGN_OR_RAISE(in_force, SchemaById(read_schema_id));
    for (const auto& group : FieldDeclaringOptionGroups()) {
      bool explicit_override = std::any_of(group.begin(), group.end(), [&](const std::string& k) {
        return overrides_.count(k) > 0;
      });
      if (explicit_override) continue;
      for (const auto& key : group) {
        auto it = in_force.options.find(key);
        if (it != in_force.options.end()) {
          effective[key] = it->second;
        } else {
          effective.erase(key);
        }
      }
    }
  }
  schema_ = std::move(in_force);
  schema_.options = effective;
  options_ = Options(std::move(effective));
  return Status::OK();
}

Result<std::shared_ptr<Table>> Table::Copy(
    const std::map<std::string, std::optional<std::string>>& overrides) const {
  auto bucket_it = overrides.find(options::kBucket);
  if (bucket_it != overrides.end()) {
    ARROW_ASSIGN_OR_RAISE(int64_t current, options_.GetInt(options::kBucket, -1));
    if (!bucket_it->second) return Status::Invalid("Cannot change bucket number");
    Options probe({{options::kBucket, *bucket_it->second}});
    ARROW_ASSIGN_OR_RAISE(int64_t requested, probe.GetInt(options::kBucket, -1));
    if (requested != current) return Status::Invalid("Cannot change bucket number");
  }
  std::shared_ptr<Table> copy(new Table(*this));
  bool travel_changed = false;
  for (const auto& [k, v] : overrides) {
    copy->overrides_[k] = v;
    travel_changed = travel_changed || IsTimeTravelKey(k);
  }
  ARROW_RETURN_NOT_OK(copy->ApplyOptions(/*resolve_time_travel=*/travel_changed));
  return copy;
}

std::shared_ptr<Table> Table::WithSnapshotCommit(
    std::shared_ptr<const SnapshotCommit> commit) const {
  std::shared_ptr<Table> copy(new Table(*this));
  copy->snapshot_commit_ = std::move(commit);
  return copy;
}

// ---- schemas

Result<TableSchema> Table::ReadSchema(int64_t schema_id) const {
  std::string path = SchemaPath(schema_id);
  ARROW_ASSIGN_OR_RAISE(bool exists, io_->Exists(path));
  if (!exists) return Status::Invalid("Schema id '", schema_id, "' doesn't exist.");
  ARROW_ASSIGN_OR_RAISE(std::string text, io_->ReadText(path));
  auto parsed = TableSchema::FromJson(text);
  if (!parsed.ok()) return WithContext(parsed.status(), path);
  if (parsed->id != schema_id) {
    return Status::Invalid("'", path, "' holds schema id ", parsed->id);
  }
  return parsed.MoveValueUnsafe();
}

Result<TableSchema> Table::SchemaById(int64_t schema_id) const {
  {
    std::lock_guard<std::mutex> lock(schema_cache_->mu);
    auto it = schema_cache_->schemas.find(schema_id);
    if (it != schema_cache_->schemas.end()) return it->second;
  }
  ARROW_ASSIGN_OR_RAISE(TableSchema schema, ReadSchema(schema_id));
  std::lock_guard<std::mutex> lock(schema_cache_->mu);
  schema_cache_->schemas.emplace(schema_id, schema);
  return schema;
}

Result<std::optional<TableSchema>> Table::LatestSchema() const {
  ARROW_ASSIGN_OR_RAISE(auto ids,
                        ListNumberedFiles(*io_, JoinPath(path_, "schema"), kSchemaPrefix));
  if (ids.empty()) return std::nullopt;
  ARROW_ASSIGN_OR_RAISE(TableSchema schema, SchemaById(ids.back()));
  return std::optional<TableSchema>(std::move(schema));
}

// ---- snapshots

Result<std::vector<int64_t>> Table::ListSnapshotIds() const {
  return SnapshotManager(io_, path_).ListSnapshotIds();
}

Result<std::optional<int64_t>> Table::LatestSnapshotId() const {
  return SnapshotManager(io_, path_).LatestSnapshotId();
}

Result<std::optional<Snapshot>> Table::LatestSnapshot() const {
  // An expiration can remove the snapshot LatestSnapshotId found before it is read (it keeps
  // the latest one, so a newer one exists then): look again, a bounded number of times.
  constexpr int kAttempts = 8;
  for (int attempt = 1;; ++attempt) {
    ARROW_ASSIGN_OR_RAISE(auto id, LatestSnapshotId());
    if (!id) return std::nullopt;
    auto snapshot = SnapshotById(*id);
    if (snapshot.ok()) return std::optional<Snapshot>(std::move(snapshot).MoveValueUnsafe());
    if (attempt == kAttempts) return snapshot.status();
    ARROW_ASSIGN_OR_RAISE(bool exists, io_->Exists(SnapshotPath(*id)));
    if (exists) return snapshot.status();  // damaged, not expired
  }
}

Result<Snapshot> Table::SnapshotById(int64_t id) const {
  std::string path = SnapshotPath(id);
  ARROW_ASSIGN_OR_RAISE(bool exists, io_->Exists(path));
  if (!exists) return Status::Invalid("Snapshot id '", id, "' doesn't exist.");
  ARROW_ASSIGN_OR_RAISE(std::string text, io_->ReadText(path));
  auto parsed = Snapshot::FromJson(text);
  if (!parsed.ok()) return WithContext(parsed.status(), path);
  if (parsed->id != id) return Status::Invalid("'", path, "' holds snapshot id ", parsed->id);
  return parsed.MoveValueUnsafe();
}

Result<std::optional<std::string>> Table::NewestSnapshotProperty(const std::string& key) const {
  ARROW_ASSIGN_OR_RAISE(std::optional<Snapshot> snapshot, LatestSnapshot());
  while (snapshot) {
    auto it = snapshot->properties.find(key);
    if (it != snapshot->properties.end()) return std::optional<std::string>(it->second);
    const int64_t previous = snapshot->id - 1;
    if (previous < 1) break;
    auto older = SnapshotById(previous);
    if (!older.ok()) {
      if (older.status().IsInvalid()) break;  // expired (or not a snapshot): the walk ends
      return older.status();
    }
    snapshot = std::move(older).MoveValueUnsafe();
  }
  return std::nullopt;
}

Result<std::optional<Snapshot>> Table::ResolveSnapshot() const {
  if (travelled_) return travelled_;
  return LatestSnapshot();
}

Result<std::optional<Snapshot>> Table::TravelToSnapshot() const {
  const auto& all_keys = TimeTravelKeys();
  std::vector<std::string> present;
  for (const auto& key : all_keys) {
    if (options_.Contains(key)) present.push_back(key);
  }
  if (present.empty()) return std::nullopt;
  if (present.size() > 1) {
    std::string listed;
    for (const auto& key : all_keys) listed += (listed.empty() ? "'" : ", '") + key + "'";
    return Status::Invalid("Only one of the following parameters may be set: [", listed, "]");
  }
  const std::string& key = present.front();
  std::string value = *options_.Get(key);

  if (key == options::kScanVersion) {
    // Java's adaptScanVersion: a tag name first, then a snapshot id.
    if (ValidateName(value, "tag").ok()) {
      ARROW_ASSIGN_OR_RAISE(bool is_tag, io_->Exists(TagPath(value)));
      if (is_tag) {
        ARROW_ASSIGN_OR_RAISE(Tag tag, TagByName(value));
        return std::optional<Snapshot>(std::move(tag.snapshot));
      }
    }
    if (value.rfind("watermark-", 0) == 0) {
      return Status::NotImplemented("time travel by watermark ('", key, "' = '", value,
                                    "') is not supported");
    }
    if (!value.empty() &&
        std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      ARROW_ASSIGN_OR_RAISE(int64_t id, options_.GetInt(key, 0));
      ARROW_ASSIGN_OR_RAISE(Snapshot snapshot, SnapshotById(id));
      return std::optional<Snapshot>(std::move(snapshot));
    }
    return Status::Invalid("Cannot find a time travel version for ", value);
  }
  if (key == options::kScanSnapshotId) {
    ARROW_ASSIGN_OR_RAISE(int64_t id, options_.GetInt(key, 0));
    ARROW_ASSIGN_OR_RAISE(Snapshot snapshot, SnapshotById(id));
    return std::optional<Snapshot>(std::move(snapshot));
  }
  if (key == options::kScanTagName) {
    ARROW_ASSIGN_OR_RAISE(Tag tag, TagByName(value));
    return std::optional<Snapshot>(std::move(tag.snapshot));
  }
  if (key == options::kScanTimestampMillis) {
    ARROW_ASSIGN_OR_RAISE(int64_t millis, options_.GetInt(key, 0));
    // Snapshot times grow with ids: binary search for the last one at or before `millis`.
    ARROW_ASSIGN_OR_RAISE(auto ids, ListSnapshotIds());
    std::optional<Snapshot> found;
    size_t lo = 0, hi = ids.size();
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      ARROW_ASSIGN_OR_RAISE(Snapshot snapshot, SnapshotById(ids[mid]));
      if (snapshot.time_millis <= millis) {
        found = std::move(snapshot);
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (!found) {
      return Status::Invalid("No snapshot found with timestamp earlier than or equal to ", millis,
                             "ms.");
    }
    return found;
  }
  return Status::NotImplemented("time travel with '", key,
                                "' is not supported; use scan.snapshot-id, scan.tag-name or "
                                "scan.timestamp-millis");
}

// ---- tags

Result<Tag> Table::TagByName(const std::string& name) const {
  ARROW_RETURN_NOT_OK(ValidateName(name, "tag"));
  std::string path = TagPath(name);
  ARROW_ASSIGN_OR_RAISE(bool exists, io_->Exists(path));
  if (!exists) return Status::Invalid("Tag '", name, "' doesn't exist.");
  ARROW_ASSIGN_OR_RAISE(std::string text, io_->ReadText(path));
  auto parsed = Tag::FromJson(text);
  if (!parsed.ok()) return WithContext(parsed.status(), path);
  return parsed.MoveValueUnsafe();
}

Result<std::vector<std::string>> Table::ListTags() const {
  ARROW_ASSIGN_OR_RAISE(auto entries, io_->List(JoinPath(path_, "tag")));
  std::vector<std::string> names;
  const std::string prefix = kTagPrefix;
  for (const auto& e : entries) {
    if (e.is_dir || e.name.size() <= prefix.size() || e.name.compare(0, prefix.size(), prefix)) {
      continue;
    }
    names.push_back(e.name.substr(prefix.size()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

// ---- layout

std::string Table::SnapshotPath(int64_t id) const {
  return SnapshotManager(io_, path_).SnapshotPath(id);
}

std::string Table::SchemaPath(int64_t id) const {
  return JoinPath(JoinPath(path_, "schema"), kSchemaPrefix + std::to_string(id));
}

std::string Table::TagPath(const std::string& name) const {
  return JoinPath(JoinPath(path_, "tag"), kTagPrefix + name);
}

std::string Table::ManifestPath(const std::string& file_name) const {
  return JoinPath(JoinPath(path_, "manifest"), file_name);
}

std::string Table::IndexFilePath(const std::string& file_name) const {
  return JoinPath(JoinPath(path_, "index"), file_name);
}

std::string Table::DataRoot() const {
  auto data_dir = options_.Get(options::kDataFilePathDirectory);
  return data_dir && !data_dir->empty() ? JoinPath(path_, *data_dir) : path_;
}

std::string Table::BucketPath(const std::string& partition_path, int32_t bucket) const {
  std::string dir = DataRoot();
  if (!partition_path.empty()) dir = JoinPath(dir, partition_path);
  return JoinPath(dir, "bucket-" + std::to_string(bucket));
}

// ---- flags

bool Table::row_tracking_enabled() const {
  return options_.GetBool(options::kRowTrackingEnabled, false).ValueOr(false);
}

bool Table::data_evolution_enabled() const {
  return options_.GetBool(options::kDataEvolutionEnabled, false).ValueOr(false);
}

bool Table::deletion_vectors_enabled() const {
  return options_.GetBool(options::kDeletionVectorsEnabled, false).ValueOr(false);
}

Status Table::CreateTag(const std::string& name, std::optional<int64_t> snapshot_id,
                        bool ignore_if_exists) const {
  return paimon_rowid::CreateTag(*this, name, snapshot_id, ignore_if_exists, std::nullopt);
}

Result<bool> Table::DeleteTag(const std::string& name) const {
  return paimon_rowid::DeleteTag(*this, name);
}

}  // namespace paimon_rowid
