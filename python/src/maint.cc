// Table maintenance (maint/): snapshot expiration and orphan-file cleaning. Both return plain
// dicts of what they did; the GIL is released while the C++ side lists, reads and deletes.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include "common.h"
#include "paimon_rowid/maint/expire.h"
#include "paimon_rowid/maint/orphan.h"

namespace paimon_rowid::python {

void RegisterMaint(nb::module_& m) {
  m.def(
      "expire_snapshots",
      [](std::shared_ptr<Table> table, std::optional<int32_t> retain_max,
         std::optional<int32_t> retain_min, std::optional<int64_t> older_than_ms,
         std::optional<int32_t> max_deletes) {
        ExpireOptions options{retain_max, retain_min, older_than_ms, max_deletes};
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
      nb::arg("older_than_ms").none(), nb::arg("max_deletes").none());

  m.def(
      "remove_orphan_files",
      [](std::shared_ptr<Table> table, std::optional<int64_t> older_than_ms, bool dry_run) {
        OrphanOptions options{older_than_ms, dry_run};
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
      nb::arg("table"), nb::arg("older_than_ms").none(), nb::arg("dry_run"));
}

}  // namespace paimon_rowid::python
