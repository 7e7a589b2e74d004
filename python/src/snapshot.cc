// Snapshots as typed, read-only Python objects (meta/snapshot.h), and the snapshot-property
// lookups the resumable backfill needs. Python never sees snapshot JSON: attributes are the
// C++ fields (pypaimon's snake_case names), and `snapshot["nextRowId"]` answers the Java JSON
// key names for code written against the earlier dict form.
#include "paimon_rowid/meta/snapshot.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "common.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/common/row_range.h"

namespace paimon_rowid::python {
namespace {

template <typename T>
nb::object Optional(const std::optional<T>& value) {
  return value ? nb::cast(*value) : nb::none();
}

// The value under a Java JSON key (the keys Snapshot::ToJson writes), or an invalid object
// when the key is unknown or its value is absent (ToJson omits it).
nb::object JsonKeyValue(const Snapshot& s, const std::string& key) {
  if (key == "version") return nb::cast(s.version);
  if (key == "uuid") return Optional(s.uuid);
  if (key == "id") return nb::cast(s.id);
  if (key == "schemaId") return nb::cast(s.schema_id);
  if (key == "baseManifestList") return nb::cast(s.base_manifest_list);
  if (key == "baseManifestListSize") return Optional(s.base_manifest_list_size);
  if (key == "deltaManifestList") return nb::cast(s.delta_manifest_list);
  if (key == "deltaManifestListSize") return Optional(s.delta_manifest_list_size);
  if (key == "changelogManifestList") return Optional(s.changelog_manifest_list);
  if (key == "changelogManifestListSize") return Optional(s.changelog_manifest_list_size);
  if (key == "indexManifest") return Optional(s.index_manifest);
  if (key == "commitUser") return nb::cast(s.commit_user);
  if (key == "writerVersion") return Optional(s.writer_version);
  if (key == "commitIdentifier") return nb::cast(s.commit_identifier);
  if (key == "commitKind") return nb::cast(s.commit_kind);
  if (key == "timeMillis") return nb::cast(s.time_millis);
  if (key == "totalRecordCount") return Optional(s.total_record_count);
  if (key == "deltaRecordCount") return Optional(s.delta_record_count);
  if (key == "changelogRecordCount") return Optional(s.changelog_record_count);
  if (key == "watermark") return Optional(s.watermark);
  if (key == "statistics") return Optional(s.statistics);
  if (key == "properties") return s.properties.empty() ? nb::none() : nb::cast(s.properties);
  if (key == "nextRowId") return Optional(s.next_row_id);
  if (key == "operation") return Optional(s.operation);
  return nb::object();
}

nb::object Lookup(const Snapshot& s, const std::string& key) {
  nb::object value = JsonKeyValue(s, key);
  return value.is_valid() && !value.is_none() ? value : nb::object();
}

}  // namespace

void RegisterSnapshot(nb::module_& m) {
  nb::class_<Snapshot>(m, "Snapshot")
      .def_ro("version", &Snapshot::version)
      .def_ro("id", &Snapshot::id)
      .def_ro("schema_id", &Snapshot::schema_id)
      .def_ro("base_manifest_list", &Snapshot::base_manifest_list)
      .def_ro("delta_manifest_list", &Snapshot::delta_manifest_list)
      .def_ro("changelog_manifest_list", &Snapshot::changelog_manifest_list)
      .def_ro("index_manifest", &Snapshot::index_manifest)
      .def_ro("commit_user", &Snapshot::commit_user)
      .def_ro("commit_identifier", &Snapshot::commit_identifier)
      .def_ro("commit_kind", &Snapshot::commit_kind)
      .def_ro("time_millis", &Snapshot::time_millis)
      .def_ro("total_record_count", &Snapshot::total_record_count)
      .def_ro("delta_record_count", &Snapshot::delta_record_count)
      .def_ro("changelog_record_count", &Snapshot::changelog_record_count)
      .def_ro("watermark", &Snapshot::watermark)
      .def_ro("statistics", &Snapshot::statistics)
      .def_ro("next_row_id", &Snapshot::next_row_id)
      .def_ro("writer_version", &Snapshot::writer_version)
      .def_ro("operation", &Snapshot::operation)
      .def_prop_ro("properties", [](const Snapshot& s) { return s.properties; })
      .def("__getitem__",
           [](const Snapshot& s, const std::string& key) {
             nb::object value = Lookup(s, key);
             if (!value.is_valid()) throw nb::key_error(key.c_str());
             return value;
           })
      .def(
          "get",
          [](const Snapshot& s, const std::string& key, nb::object default_value) {
            nb::object value = Lookup(s, key);
            return value.is_valid() ? value : default_value;
          },
          nb::arg("key"), nb::arg("default").none() = nb::none())
      .def("__contains__",
           [](const Snapshot& s, const std::string& key) { return Lookup(s, key).is_valid(); })
      .def("to_json", &Snapshot::ToJson)
      .def("__eq__",
           [](const Snapshot& a, nb::handle b) {
             if (!nb::isinstance<Snapshot>(b)) return false;
             return a.ToJson() == nb::cast<const Snapshot&>(b).ToJson();
           })
      .def("__hash__", [](const Snapshot& s) { return nb::hash(nb::cast(s.id)); })
      .def("__repr__",
           [](const Snapshot& s) {
             return "Snapshot(id=" + std::to_string(s.id) +
                    ", schema_id=" + std::to_string(s.schema_id) + ", commit_kind='" +
                    s.commit_kind + "')";
           })
      // Pickling (Ray): a snapshot is its JSON file's text.
      .def("__getstate__", [](const Snapshot& s) { return std::make_tuple(s.ToJson()); })
      .def("__setstate__", [](Snapshot& self, const std::tuple<std::string>& state) {
        new (&self) Snapshot(Unwrap(Snapshot::FromJson(std::get<0>(state))));
      });

  m.def(
      "backfill_done_ranges",
      [](const Table& table, const std::string& property_key) {
        auto value = WithoutGil([&] { return table.NewestSnapshotProperty(property_key); });
        std::vector<std::pair<int64_t, int64_t>> out;
        if (!value) return out;
        for (const auto& r : Unwrap(ParseRowRangesJson(*value))) out.emplace_back(r.from, r.to);
        return out;
      },
      nb::arg("table"), nb::arg("property_key"));
}

}  // namespace paimon_rowid::python
