#include "paimon_rowid/commit/global_index_update.h"

#include <algorithm>
#include <set>
#include <string>

namespace paimon_rowid {

Result<std::vector<IndexManifestEntry>> CheckGlobalIndexColumnUpdates(
    const Table& table, const std::vector<ManifestEntry>& updates,
    const std::vector<IndexManifestEntry>& live_index) {
  std::vector<IndexManifestEntry> affected;
  std::string action = table.options().GetOr("global-index.column-update-action", "THROW_ERROR");
  std::transform(action.begin(), action.end(), action.begin(), ::toupper);
  if (action == "IGNORE") return affected;
  if (action != "THROW_ERROR" && action != "DROP_PARTITION_INDEX") {
    return Status::Invalid("global-index.column-update-action '", action,
                           "' is not one of THROW_ERROR, DROP_PARTITION_INDEX, IGNORE");
  }
  std::set<std::string> updated, partitions;
  for (const auto& e : updates) {
    if (e.kind != FileKind::kAdd || !e.file.write_cols) continue;
    updated.insert(e.file.write_cols->begin(), e.file.write_cols->end());
    partitions.insert(e.partition);
  }
  if (updated.empty()) return affected;
  std::set<std::string> conflicted;
  for (const auto& e : live_index) {
    if (!e.global_index || !partitions.count(e.partition)) continue;
    std::vector<int64_t> ids = {e.global_index->index_field_id};
    if (e.global_index->extra_field_ids) {
      ids.insert(ids.end(), e.global_index->extra_field_ids->begin(),
                 e.global_index->extra_field_ids->end());
    }
    bool matched = false;
    for (int64_t id : ids) {
      const DataField* field = table.schema().FieldById(static_cast<int32_t>(id));
      if (field != nullptr && updated.count(field->name)) {
        conflicted.insert(field->name);
        matched = true;
      }
    }
    if (matched) affected.push_back(e);
  }
  if (conflicted.empty()) return affected;
  if (action == "DROP_PARTITION_INDEX") return affected;
  auto list = [](const std::set<std::string>& names) {
    std::string out = "[";
    for (const auto& n : names) out += (out.size() > 1 ? ", '" : "'") + n + "'";
    return out + "]";
  };
  return Status::UnknownError(
      "Update columns contain globally indexed columns, not supported now.\nUpdated columns: ",
      list(updated), "\nConflicted columns: ", list(conflicted));
}

}  // namespace paimon_rowid
