#include "paimon_rowid/read/group_plan.h"

#include <algorithm>
#include <set>

namespace paimon_rowid {
namespace {

bool Supplied(const std::vector<GroupReadPlan::Supply>& supplies, const std::string& name) {
  for (const auto& s : supplies) {
    for (const auto& c : s.columns) {
      if (c.first == name) return true;
    }
  }
  return false;
}

}  // namespace

Result<std::optional<GroupReadPlan>> PlanGroupRead(
    const TableSchema& schema, const std::vector<std::string>& needed_fields,
    const FileGroup& group, const std::optional<std::vector<RowRange>>& row_ranges,
    const SchemaLookup& schemas) {
  GroupReadPlan plan;
  plan.range = GroupRange(group);
  const RowRange& range = plan.range;
  if (row_ranges) {
    for (const auto& r : IntersectRanges(*row_ranges, range.from, range.to)) {
      plan.selection.push_back({r.from - range.from, r.to - range.from});
    }
    if (plan.selection.empty()) return std::nullopt;
  } else {
    plan.selection.push_back({0, range.count() - 1});
  }
  for (const auto& r : plan.selection) plan.num_rows += r.count();

  // Normal files, newest first; all must cover the group's range.
  for (const auto& f : group) {
    if (!f.is_normal_file()) continue;
    if (f.first_row_id && (*f.first_row_id != range.from || f.last_row_id() != range.to)) {
      return Status::Invalid(
          "all normal files of a data-evolution file group must cover the "
          "same row ids; '",
          f.file_name, "' covers [", *f.first_row_id, ", ", f.last_row_id(),
          "] but the group covers [", range.from, ", ", range.to, "]");
    }
    plan.normal.push_back(&f);
  }
  std::stable_sort(plan.normal.begin(), plan.normal.end(),
                   [](const DataFileMeta* a, const DataFileMeta* b) {
                     return a->max_sequence_number > b->max_sequence_number;
                   });

  // Each user column comes from the newest normal file that wrote it (matched by field id,
  // so renamed columns are found under their old names).
  const std::set<std::string> partition_names(schema.partition_keys.begin(),
                                              schema.partition_keys.end());
  for (const DataFileMeta* f : plan.normal) {
    ARROW_ASSIGN_OR_RAISE(auto file_schema, schemas(f->schema_id));
    auto written = WrittenFields(*f, *file_schema);
    GroupReadPlan::Supply supply{f, {}};
    for (const auto& name : needed_fields) {
      if (system_fields::IsSystemField(name) || partition_names.count(name)) continue;
      const DataField* tf = schema.FieldByName(name);
      if (tf == nullptr) continue;
      auto hit = std::find_if(written.begin(), written.end(),
                              [&](const WrittenField& w) { return w.field_id == tf->id; });
      if (hit == written.end()) continue;
      if (!Supplied(plan.supplies, name)) {
        supply.columns.emplace_back(name, hit->field->name);
        supply.file_types.push_back(hit->field->type);
      }
    }
    if (!supply.columns.empty()) plan.supplies.push_back(std::move(supply));
  }

  // BLOB columns no normal file supplies come from the group's .blob files (one bunch per
  // field, matched by field id through each file's own schema).
  for (const auto& name : needed_fields) {
    const DataField* tf = schema.FieldByName(name);
    if (tf == nullptr || partition_names.count(name) || !tf->type->holds_blob()) continue;
    if (Supplied(plan.supplies, name)) continue;
    std::vector<const DataFileMeta*> bunch;
    for (const auto& f : group) {
      if (!f.is_blob_file() || !f.write_cols || f.write_cols->empty() || !f.first_row_id) {
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto file_schema, schemas(f.schema_id));
      const DataField* ff = file_schema->FieldByName(f.write_cols->front());
      if (ff == nullptr || ff->id != tf->id) continue;
      bunch.push_back(&f);
    }
    if (!bunch.empty()) plan.blob_files.emplace(name, std::move(bunch));
  }
  return plan;
}

}  // namespace paimon_rowid
