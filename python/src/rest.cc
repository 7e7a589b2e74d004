// The REST catalog client (catalog/rest_catalog.h). Every call is one or a few HTTP requests,
// made with the GIL released; the server's errors arrive as the mapped ErrorKind classes.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "common.h"
#include "paimon_rowid/catalog/rest_catalog.h"

namespace paimon_rowid::python {

void RegisterRest(nb::module_& m) {
  using Strings = std::map<std::string, std::string>;
  nb::class_<RestCatalog>(m, "RestCatalog")
      .def_static("make",
                  [](const Strings& options) {
                    return WithoutGil([&] { return RestCatalog::Make(options); });
                  })
      .def_prop_ro("uri", &RestCatalog::uri)
      .def_prop_ro("warehouse", &RestCatalog::warehouse)
      .def_prop_ro("options", [](const RestCatalog& c) { return c.options().values(); })
      .def("list_databases",
           [](const RestCatalog& c) { return WithoutGil([&] { return c.ListDatabases(); }); })
      .def("list_tables",
           [](const RestCatalog& c, const std::string& db) {
             return WithoutGil([&] { return c.ListTables(db); });
           })
      .def("create_database",
           [](const RestCatalog& c, const std::string& name, bool ignore, const Strings& props) {
             WithoutGil([&] { return c.CreateDatabase(name, ignore, props); });
           })
      .def("get_database",
           [](const RestCatalog& c, const std::string& name) {
             return WithoutGil([&] { return c.GetDatabase(name); });
           })
      .def("alter_database",
           [](const RestCatalog& c, const std::string& name, const Strings& updates,
              const std::vector<std::string>& removals) {
             WithoutGil([&] { return c.AlterDatabase(name, updates, removals); });
           })
      .def("drop_database",
           [](const RestCatalog& c, const std::string& name, bool ignore, bool cascade) {
             WithoutGil([&] { return c.DropDatabase(name, ignore, cascade); });
           })
      .def("get_table",
           [](const RestCatalog& c, const std::string& id) {
             return WithoutGil([&] { return c.GetTable(id); });
           })
      .def("create_table",
           [](const RestCatalog& c, const std::string& id, const std::string& schema_json,
              bool ignore) {
             auto schema = Unwrap(TableSchema::FromJson(schema_json));
             WithoutGil([&] { return c.CreateTable(id, schema, ignore); });
           })
      .def("drop_table", [](const RestCatalog& c, const std::string& id,
                            bool ignore) { WithoutGil([&] { return c.DropTable(id, ignore); }); })
      .def("rename_table",
           [](const RestCatalog& c, const std::string& from, const std::string& to) {
             WithoutGil([&] { return c.RenameTable(from, to); });
           })
      .def("alter_table",
           [](const RestCatalog& c, const std::string& id, const std::string& changes_json,
              bool ignore) { WithoutGil([&] { return c.AlterTable(id, changes_json, ignore); }); })
      .def("create_tag",
           [](const RestCatalog& c, const std::string& id, const std::string& tag,
              std::optional<int64_t> snapshot_id, std::optional<std::string> time_retained) {
             WithoutGil([&] { return c.CreateTag(id, tag, snapshot_id, time_retained); });
           })
      // (snapshot, tagCreateTime epoch ms or None, tagTimeRetained or None).
      .def("get_tag",
           [](const RestCatalog& c, const std::string& id, const std::string& tag) {
             RestTag found = WithoutGil([&] { return c.GetTag(id, tag); });
             return std::make_tuple(found.snapshot, found.create_time_millis, found.time_retained);
           })
      .def("list_tags",
           [](const RestCatalog& c, const std::string& id, const std::string& prefix) {
             return WithoutGil([&] { return c.ListTags(id, prefix); });
           })
      .def("delete_tag",
           [](const RestCatalog& c, const std::string& id, const std::string& tag) {
             WithoutGil([&] { return c.DeleteTag(id, tag); });
           })
      .def("create_partitions",
           [](const RestCatalog& c, const std::string& id,
              const std::vector<std::map<std::string, std::string>>& specs,
              bool ignore) { WithoutGil([&] { return c.CreatePartitions(id, specs, ignore); }); })
      .def("mark_done_partitions",
           [](const RestCatalog& c, const std::string& id,
              const std::vector<std::map<std::string, std::string>>& specs) {
             WithoutGil([&] { return c.MarkDonePartitions(id, specs); });
           })
      // One dict per partition, with the catalog_objects.Partition field names.
      .def("list_partitions", [](const RestCatalog& c, const std::string& id) {
        auto parts = WithoutGil([&] { return c.ListPartitions(id); });
        nb::list out;
        for (const auto& p : parts) {
          nb::dict d;
          d["spec"] = p.spec;
          d["record_count"] = p.record_count;
          d["file_size_in_bytes"] = p.file_size_in_bytes;
          d["file_count"] = p.file_count;
          d["last_file_creation_time"] = p.last_file_creation_time;
          d["total_buckets"] = p.total_buckets;
          d["done"] = p.done;
          d["created_at"] = p.created_at;
          out.append(d);
        }
        return out;
      });
}

}  // namespace paimon_rowid::python
