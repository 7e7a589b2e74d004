// Table maintenance (maint/): snapshot expiration and orphan-file cleaning. Both return plain
// dicts of what they did; the GIL is released while the C++ side lists, reads and deletes.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include "common.h"
#include "paimon_rowid/maint/expire.h"
#include "paimon_rowid/maint/orphan.h"
#include "paimon_rowid/maint/rollback.h"

namespace paimon_rowid::python {
namespace {

nb::dict RollbackDict(const RollbackResult& r) {
  nb::dict out;
  nb::list tags;
  for (const auto& t : r.tags_deleted) tags.append(t);
  out["snapshot_id"] = r.snapshot_id;
  out["snapshots_deleted"] = r.snapshots_deleted;
  out["tags_deleted"] = tags;
  out["data_files_deleted"] = r.data_files_deleted;
  out["manifest_files_deleted"] = r.manifest_files_deleted;
  out["bytes_freed"] = r.bytes_freed;
  return out;
}

}  // namespace

void RegisterMaint(nb::module_& m) {
  m.def(
      "expire_snapshots",
      [](std::shared_ptr<Table> table, std::optional<int32_t> retain_max,
         std::optional<int32_t> retain_min, std::optional<int64_t> older_than_ms,
         std::optional<int32_t> max_deletes, ProgressCounter* progress) {
        ExpireOptions options{retain_max, retain_min, older_than_ms, max_deletes, progress};
        ExpireResult r = WithoutGil([&] { return ExpireSnapshots(table, options); });
        nb::dict out;
        out["snapshots_expired"] = r.snapshots_expired;
        out["data_files_deleted"] = r.data_files_deleted;
        out["manifest_files_deleted"] = r.manifest_files_deleted;
        out["bytes_freed"] = r.bytes_freed;
        out["earliest_snapshot_id"] =
            r.earliest_snapshot_id ? nb::cast(*r.earliest_snapshot_id) : nb::none();
        return out;
      },
      nb::arg("table"), nb::arg("retain_max").none(), nb::arg("retain_min").none(),
      nb::arg("older_than_ms").none(), nb::arg("max_deletes").none(),
      nb::arg("progress").none() = nb::none());

  m.def(
      "remove_orphan_files",
      [](std::shared_ptr<Table> table, std::optional<int64_t> older_than_ms, bool dry_run,
         ProgressCounter* progress) {
        OrphanOptions options{older_than_ms, dry_run, progress};
        OrphanResult r = WithoutGil([&] { return RemoveOrphanFiles(table, options); });
        nb::dict out;
        nb::list paths;
        for (const auto& p : r.paths) paths.append(p);
        out["files"] = r.files;
        out["bytes"] = r.bytes;
        out["paths"] = paths;
        out["dirs_removed"] = r.dirs_removed;
        out["dry_run"] = r.dry_run;
        return out;
      },
      nb::arg("table"), nb::arg("older_than_ms").none(), nb::arg("dry_run"),
      nb::arg("progress").none() = nb::none());

  m.def(
      "rollback_to_snapshot",
      [](std::shared_ptr<Table> table, int64_t snapshot_id, bool delete_unused_files) {
        return RollbackDict(WithoutGil([&] {
          return RollbackToSnapshot(table, snapshot_id, RollbackOptions{delete_unused_files});
        }));
      },
      nb::arg("table"), nb::arg("snapshot_id"), nb::arg("delete_unused_files") = false);
  m.def(
      "rollback_to_tag",
      [](std::shared_ptr<Table> table, const std::string& tag_name, bool delete_unused_files) {
        return RollbackDict(WithoutGil(
            [&] { return RollbackToTag(table, tag_name, RollbackOptions{delete_unused_files}); }));
      },
      nb::arg("table"), nb::arg("tag_name"), nb::arg("delete_unused_files") = false);
  m.def(
      "rollback_to_timestamp",
      [](std::shared_ptr<Table> table, int64_t timestamp_millis, bool delete_unused_files) {
        return RollbackDict(WithoutGil([&] {
          return RollbackToTimestamp(table, timestamp_millis, RollbackOptions{delete_unused_files});
        }));
      },
      nb::arg("table"), nb::arg("timestamp_millis"), nb::arg("delete_unused_files") = false);
}

}  // namespace paimon_rowid::python
