#include "paimon_rowid/commit/overwrite.h"

#include <utility>

#include "paimon_rowid/codec/binary_row.h"
#include "paimon_rowid/scan/partition.h"

namespace paimon_rowid {

Result<std::unique_ptr<OverwriteScope>> OverwriteScope::Make(const Table& table,
                                                             const OverwriteSpec& spec,
                                                             const CommitDelta& delta) {
  for (const auto& e : delta.entries) {
    if (e.kind != FileKind::kAdd || e.file.first_row_id) {
      return Status::Invalid("an overwrite commits newly written files only, but its messages ",
                             e.kind != FileKind::kAdd ? "delete" : "rewrite",
                             " the existing file '", e.file.file_name,
                             "' (an update, a delete or a compaction): commit those on their own");
    }
  }
  if (delta.changes_index() || delta.check_from) {
    return Status::Invalid(
        "an overwrite commits newly written files only, but its messages update or delete "
        "existing rows: commit those on their own");
  }
  std::unique_ptr<OverwriteScope> scope(new OverwriteScope());
  if (spec.dynamic) {
    scope->dynamic_ = true;
    ARROW_ASSIGN_OR_RAISE(scope->fields_, PartitionFields(table.schema()));
    for (const auto& e : delta.entries) {
      ARROW_ASSIGN_OR_RAISE(std::string canonical, scope->Canonical(e.partition));
      scope->written_.insert(std::move(canonical));
    }
    return scope;
  }
  ARROW_ASSIGN_OR_RAISE(scope->filter_,
                        PartitionFilter::Make(table.schema(), spec.partitions.get()));
  for (const auto& e : delta.entries) {
    ARROW_ASSIGN_OR_RAISE(bool inside, scope->filter_->Matches(e.partition));
    if (inside) continue;
    ARROW_ASSIGN_OR_RAISE(auto fields, PartitionFields(table.schema()));
    ARROW_ASSIGN_OR_RAISE(auto values, DecodePartition(e.partition, fields));
    const std::string default_name =
        table.options().GetOr(options::kPartitionDefaultName, "__DEFAULT_PARTITION__");
    return Status::ExecutionError(
        "Trying to overwrite partition ",
        spec.description.empty() ? std::string("(the given filter)") : spec.description,
        ", but the changes in partition '", JavaPartitionPath(fields, values, default_name),
        "' (file '", e.file.file_name,
        "') do not belong to this partition; nothing was committed and the new files were "
        "deleted");
  }
  return scope;
}

Result<std::string> OverwriteScope::Canonical(const std::string& partition) {
  if (fields_.empty()) return partition;
  ARROW_ASSIGN_OR_RAISE(auto values, DecodePartition(partition, fields_));
  return EncodeBinaryRow(values);
}

Result<bool> OverwriteScope::Replaces(const std::string& partition) {
  if (!dynamic_) return filter_->Matches(partition);
  auto it = replaced_.find(partition);
  if (it != replaced_.end()) return it->second;
  ARROW_ASSIGN_OR_RAISE(std::string canonical, Canonical(partition));
  bool hit = written_.count(canonical) > 0;
  replaced_.emplace(partition, hit);
  return hit;
}

Result<bool> OverwriteScope::Apply(std::vector<ManifestEntry> live,
                                   std::vector<IndexManifestEntry>* live_index,
                                   std::vector<ManifestEntry>* entries) {
  for (auto& e : live) {
    ARROW_ASSIGN_OR_RAISE(bool hit, Replaces(e.partition));
    if (!hit) continue;
    e.kind = FileKind::kDelete;
    entries->push_back(std::move(e));
  }
  bool removed = false;
  std::vector<IndexManifestEntry> kept;
  for (auto& e : *live_index) {
    ARROW_ASSIGN_OR_RAISE(bool hit, Replaces(e.partition));
    if (hit) {
      removed = true;
    } else {
      kept.push_back(std::move(e));
    }
  }
  *live_index = std::move(kept);
  return removed;
}

}  // namespace paimon_rowid
