// Join bindings: the hash join kernel (two Arrow C streams in, one out) and the facts the
// bucket_join driver needs from a table's manifests (the bucket counts its files were written
// under, for the rescale guard).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <set>

#include "common.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/join/hash_join.h"
#include "paimon_rowid/scan/plan.h"

namespace paimon_rowid::python {
namespace {

HashJoinOptions::Build ParseBuild(const std::string& build) {
  if (build == "auto") return HashJoinOptions::Build::kAuto;
  if (build == "left") return HashJoinOptions::Build::kLeft;
  if (build == "right") return HashJoinOptions::Build::kRight;
  throw nb::value_error("build must be 'auto', 'left' or 'right'");
}

}  // namespace

void RegisterJoin(nb::module_& m) {
  m.def(
      "hash_join_inner",
      [](nb::handle left, nb::handle right, std::vector<std::string> left_keys,
         std::vector<std::string> right_keys, const std::string& build,
         std::optional<int64_t> batch_rows) {
        HashJoinOptions options;
        options.build = ParseBuild(build);
        if (batch_rows) options.batch_rows = *batch_rows;
        auto left_reader = ImportStreamFrom(left);
        auto right_reader = ImportStreamFrom(right);
        // Reads the build side; a Python-backed stream takes the GIL itself when pulled.
        auto reader = WithoutGil([&] {
          return HashJoinInner(std::move(left_reader), std::move(right_reader),
                               std::move(left_keys), std::move(right_keys), options);
        });
        return ExportStreamCapsule(std::move(reader));
      },
      nb::arg("left"), nb::arg("right"), nb::arg("left_keys"), nb::arg("right_keys"),
      nb::arg("build") = "auto", nb::arg("batch_rows").none() = nb::none());

  // The distinct total_buckets of the live files of the snapshot `table` reads (sorted; empty
  // without a snapshot). One manifest read.
  m.def(
      "live_total_buckets",
      [](std::shared_ptr<Table> table) {
        return WithoutGil([&]() -> Result<std::vector<int32_t>> {
          ARROW_ASSIGN_OR_RAISE(auto snapshot, table->ResolveSnapshot());
          std::vector<int32_t> out;
          if (!snapshot) return out;
          ARROW_ASSIGN_OR_RAISE(auto entries, ReadLiveEntries(*table, *snapshot, nullptr));
          std::set<int32_t> totals;
          for (const auto& e : entries) totals.insert(e.total_buckets);
          out.assign(totals.begin(), totals.end());
          return out;
        });
      },
      nb::arg("table"));
}

}  // namespace paimon_rowid::python
