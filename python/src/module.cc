// paimon_rowid._native: the thin binding. It owns C++ objects, converts arguments, releases
// the GIL around C++ work and moves data only as Arrow C streams/arrays.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "arrow/array.h"
#include "arrow/builder.h"
#include "common.h"
#include "paimon_rowid/catalog/catalog.h"
#include "paimon_rowid/catalog/rest_catalog.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/catalog/tags.h"
#include "paimon_rowid/common/fault_points.h"
#include "paimon_rowid/read/table_read.h"
#include "paimon_rowid/scan/manifest_cache.h"
#include "paimon_rowid/scan/partition.h"
#include "paimon_rowid/scan/partition_stats.h"
#include "paimon_rowid/scan/plan.h"
#include "paimon_rowid/scan/predicate.h"

namespace paimon_rowid::python {
namespace {

using RangeList = std::vector<std::pair<int64_t, int64_t>>;

struct PyPlan {
  std::optional<int64_t> snapshot_id;
  std::vector<std::shared_ptr<DataSplit>> splits;
};

std::shared_ptr<Predicate> ConvertPredicate(nb::handle obj) {
  if (obj.is_none()) return nullptr;
  nb::tuple t = nb::cast<nb::tuple>(obj);
  if (t.size() < 2) throw nb::value_error("malformed predicate tuple");
  std::string kind = nb::cast<std::string>(t[0]);
  if (kind == "and" || kind == "or") {
    std::vector<std::shared_ptr<Predicate>> children;
    for (nb::handle child : nb::cast<nb::sequence>(t[1]))
      children.push_back(ConvertPredicate(child));
    return Unwrap(Predicate::Compound(kind == "and" ? Predicate::Op::kAnd : Predicate::Op::kOr,
                                      std::move(children)));
  }
  if (kind != "leaf" || t.size() != 4) throw nb::value_error("malformed predicate tuple");
  auto op = Unwrap(Predicate::OpFromName(nb::cast<std::string>(t[1])));
  std::shared_ptr<arrow::Array> literals;
  if (!t[3].is_none()) literals = ImportArrayFrom(t[3]);
  return Unwrap(Predicate::Leaf(op, nb::cast<std::string>(t[2]), std::move(literals)));
}

std::vector<RowRange> ToRowRanges(const RangeList& ranges) {
  std::vector<RowRange> out;
  for (const auto& [from, to] : ranges) out.push_back({from, to});
  return out;
}

nb::object PartitionDict(const Table& table, const DataSplit& split) {
  auto fields = Unwrap(PartitionFields(table.schema()));
  nb::dict out;
  if (fields.empty()) return out;
  auto values = Unwrap(DecodePartition(split.partition, fields));
  for (size_t i = 0; i < fields.size(); ++i) {
    auto array = Unwrap(arrow::MakeArrayFromScalar(*values[i], 1));
    out[fields[i].name.c_str()] = ToPyArrow(array).attr("to_pylist")()[0];
  }
  return out;
}

}  // namespace

// The predicate-tuple conversion, for the other files of the module (range_plan.cc).
std::shared_ptr<Predicate> ConvertPredicateTuple(nb::handle obj) { return ConvertPredicate(obj); }

// Defined in write.cc: catalog writes, the append writer and the committer.
void RegisterWrite(nb::module_& m);
// Defined in rowid.cc: the row-id index and the update/read-by-row-id kernels.
void RegisterRowId(nb::module_& m);
// Defined in blob.cc: verified BLOB payload fetches by descriptor.
void RegisterBlob(nb::module_& m);
// Defined in types.cc: the Arrow <-> Paimon type mapping.
void RegisterTypes(nb::module_& m);
// Defined in snapshot.cc: the Snapshot class and snapshot-property lookups.
void RegisterSnapshot(nb::module_& m);
// Defined in join.cc: the hash join kernel and bucket_join's manifest facts.
void RegisterJoin(nb::module_& m);
// Defined in range_plan.cc: range-join planning (key bounds per split, cut into ranges).
void RegisterRangePlan(nb::module_& m);
// Defined in compact.cc: data-evolution compaction.
void RegisterCompact(nb::module_& m);
// Defined in maint.cc: snapshot expiration and orphan-file cleaning.
void RegisterMaint(nb::module_& m);
// Defined in gindex.cc: global indexes (build, drop, lookup).
void RegisterGlobalIndex(nb::module_& m);
// Defined in progress.cc: the progress counter the long jobs report to.
void RegisterProgress(nb::module_& m);
// search.cc: support for the vector / full-text indexes written from Python.
void RegisterSearch(nb::module_& m);
// vindex_io.cc: paimon-vindex's read and write callbacks in C.
void RegisterVindexIO(nb::module_& m);
// Defined in rest.cc: the REST catalog client.
void RegisterRest(nb::module_& m);

NB_MODULE(_native, m) {
  m.doc() = "paimon-rowid native core (C++ on Arrow). See _native.pyi for the contract.";

  m.def("register_error_classes", &RegisterErrorClasses);
  // Test-only (tests/test_crash.py): arms a commit fault point; the process SIGKILLs itself there.
  m.def("_arm_crash_point", &ArmCrashPoint, nb::arg("point"));
  // Test-only (race tests): the first thread reaching `point` calls `hook()` there, once; an
  // exception it raises is printed and ignored (the point cannot fail). "" disarms.
  m.def(
      "_arm_fault_hook",
      [](const std::string& point, nb::object hook) {
        if (point.empty() || hook.is_none()) return ArmFaultHook("", nullptr);
        auto held = std::make_shared<nb::object>(std::move(hook));
        ArmFaultHook(point, [held] {
          nb::gil_scoped_acquire gil;
          try {
            (*held)();
          } catch (nb::python_error& error) {
            error.discard_as_unraisable("paimon_rowid fault hook");
          }
        });
      },
      nb::arg("point"), nb::arg("hook").none());
  RegisterSnapshot(m);

  nb::class_<Table>(m, "Table")
      .def_prop_ro("identifier", [](const Table& t) { return t.identifier().FullName(); })
      .def_prop_ro("path", [](const Table& t) { return t.path(); })
      .def("schema_json", [](const Table& t) { return t.schema().ToJson(); })
      .def("options", [](const Table& t) { return t.options().values(); })
      .def("copy",
           [](const Table& t, const std::map<std::string, std::optional<std::string>>& overrides) {
             return Unwrap(t.Copy(overrides));
           })
      .def(
          "create_tag",
          [](const Table& t, const std::string& name, std::optional<int64_t> snapshot_id,
             bool ignore_if_exists, std::optional<std::string> time_retained) {
            WithoutGil(
                [&] { return CreateTag(t, name, snapshot_id, ignore_if_exists, time_retained); });
          },
          nb::arg("name"), nb::arg("snapshot_id").none(), nb::arg("ignore_if_exists"),
          nb::arg("time_retained").none() = nb::none())
      .def(
          "replace_tag",
          [](const Table& t, const std::string& name, std::optional<int64_t> snapshot_id,
             std::optional<std::string> time_retained) {
            WithoutGil([&] { return ReplaceTag(t, name, snapshot_id, time_retained); });
          },
          nb::arg("name"), nb::arg("snapshot_id").none(), nb::arg("time_retained").none())
      .def(
          "rename_tag",
          [](const Table& t, const std::string& old_name, const std::string& new_name) {
            WithoutGil([&] { return RenameTag(t, old_name, new_name); });
          },
          nb::arg("old_name"), nb::arg("new_name"))
      .def("delete_tag",
           [](const Table& t, const std::string& name) {
             return WithoutGil([&] { return DeleteTag(t, name); });
           })
      // (snapshot, tagCreateTime as epoch ms in the host's zone or None, tagTimeRetained in
      // nanoseconds or None); None when the tag does not exist.
      .def(
          "get_tag",
          [](const Table& t, const std::string& name) -> nb::object {
            bool exists = WithoutGil([&] { return t.file_io()->Exists(t.TagPath(name)); });
            if (!exists) return nb::none();
            Tag tag = WithoutGil([&] { return t.TagByName(name); });
            TagTimes times = Unwrap(TagTimesOf(tag));
            auto opt = [](const std::optional<int64_t>& v) {
              return v ? nb::cast(*v) : nb::none();
            };
            return nb::make_tuple(tag.snapshot, opt(times.create_time_millis),
                                  opt(times.time_retained_nanos));
          },
          nb::arg("name"))
      .def("list_tags", [](const Table& t) { return WithoutGil([&] { return ListTagNames(t); }); })
      // The latest snapshot's partitions with their statistics (scan/partition_stats.h).
      .def("partition_stats",
           [](const Table& t) {
             auto stats = WithoutGil([&] { return ListPartitionStats(t); });
             nb::list out;
             for (const auto& p : stats) {
               nb::dict d;
               nb::dict spec;
               for (const auto& [k, v] : p.spec) spec[nb::cast(k)] = v;
               d["spec"] = spec;
               d["record_count"] = p.record_count;
               d["file_size_in_bytes"] = p.file_size_in_bytes;
               d["file_count"] = p.file_count;
               d["last_file_creation_time"] = p.last_file_creation_time;
               d["total_buckets"] = p.total_buckets;
               out.append(d);
             }
             return out;
           })
      .def("list_snapshot_ids",
           [](const Table& t) { return WithoutGil([&] { return t.ListSnapshotIds(); }); })
      .def(
          "snapshot",
          [](const Table& t, int64_t id) { return WithoutGil([&] { return t.SnapshotById(id); }); },
          nb::arg("snapshot_id"))
      .def("latest_snapshot",
           [](const Table& t) { return WithoutGil([&] { return t.LatestSnapshot(); }); })
      .def("resolve_snapshot",
           [](const Table& t) { return WithoutGil([&] { return t.ResolveSnapshot(); }); })
      .def_prop_ro("file_io_options", [](const Table& t) { return t.file_io()->options(); })
      // Pickling (for Ray workers): a table is its identifier, directory, options and the
      // filesystem options its FileIO was made from (an object store's endpoint and keys).
      .def("__getstate__",
           [](const Table& t) {
             std::map<std::string, std::string> commit_state;
             if (t.snapshot_commit()) commit_state = t.snapshot_commit()->State();
             return std::make_tuple(t.identifier().FullName(), t.path(), t.options().values(),
                                    t.file_io()->options(), commit_state);
           })
      .def("__setstate__",
           [](Table& self,
              const std::tuple<std::string, std::string, std::map<std::string, std::string>,
                               std::map<std::string, std::string>,
                               std::map<std::string, std::string>>& state) {
             // The fifth element: a REST table's commit seam (catalog/snapshot_commit.h).
             auto id = Unwrap(Identifier::Parse(std::get<0>(state)));
             // A REST table with data tokens gets its RestTokenFileIO back (with the token
             // shipped in the state); any other table its FileIO from the options.
             auto io = std::get<4>(state).empty()
                           ? Unwrap(FileIO::Make(std::get<1>(state), std::get<3>(state)))
                           : WithoutGil([&] {
                               return RestCatalog::FileIOFromState(
                                   std::get<1>(state), std::get<3>(state), std::get<4>(state));
                             });
             auto table = Unwrap(Table::Open(io, id, std::get<1>(state), std::get<2>(state)));
             if (!std::get<4>(state).empty()) {
               auto commit = WithoutGil(
                   [&] { return RestCatalog::SnapshotCommitFromState(std::get<4>(state)); });
               table = table->WithSnapshotCommit(std::move(commit));
             }
             new (&self) Table(*table);
           });

  nb::class_<Catalog>(m, "Catalog")
      .def("__init__",
           [](Catalog* self, const std::map<std::string, std::string>& options) {
             auto catalog = Unwrap(Catalog::Make(options));
             new (self) Catalog(*catalog);
           })
      .def_prop_ro("warehouse", &Catalog::warehouse)
      .def("list_databases", [](const Catalog& c) { return Unwrap(c.ListDatabases()); })
      .def("list_tables",
           [](const Catalog& c, const std::string& db) { return Unwrap(c.ListTables(db)); })
      .def("get_table",
           [](const Catalog& c, const std::string& id) {
             std::shared_ptr<Table> table;
             {
               nb::gil_scoped_release release;
               auto r = c.GetTable(id);
               if (r.ok())
                 table = *r;
               else {
                 nb::gil_scoped_acquire acquire;
                 RaiseStatus(r.status());
               }
             }
             return table;
           })
      .def("create_database", [](const Catalog& c, const std::string& name,
                                 bool ignore) { Check(c.CreateDatabase(name, ignore)); })
      .def("drop_database", [](const Catalog& c, const std::string& name, bool ignore,
                               bool cascade) { Check(c.DropDatabase(name, ignore, cascade)); })
      .def(
          "create_table",
          [](const Catalog& c, const std::string& id, const std::string& schema_json, bool ignore) {
            // CreateTable validates the schema (catalog/schema_validation.h) before writing.
            auto schema = Unwrap(TableSchema::FromJson(schema_json));
            Check(c.CreateTable(id, std::move(schema), ignore));
          })
      .def("drop_table", [](const Catalog& c, const std::string& id,
                            bool ignore) { Check(c.DropTable(id, ignore)); })
      .def("rename_table",
           [](const Catalog& c, const std::string& from, const std::string& to) {
             WithoutGil([&] { return c.RenameTable(from, to); });
           })
      .def("alter_table",
           [](const Catalog& c, const std::string& id, const std::string& changes_json,
              bool ignore) -> std::optional<std::string> {
             // Returns the JSON of the schema written (None for an ignored missing table).
             auto changes = Unwrap(SchemaChange::ListFromJson(changes_json));
             auto written = WithoutGil([&] { return c.AlterTable(id, changes, ignore); });
             if (!written) return std::nullopt;
             return written->ToJson();
           });

  nb::class_<DataSplit>(m, "Split")
      .def_prop_ro("row_count", &DataSplit::RowCount)
      .def_prop_ro("file_paths", &DataSplit::FilePaths)
      .def_prop_ro("snapshot_id", [](const DataSplit& s) { return s.snapshot_id; })
      .def_prop_ro("bucket", [](const DataSplit& s) { return s.bucket; })
      .def_prop_ro("row_ranges",
                   [](const DataSplit& s) -> std::optional<RangeList> {
                     if (!s.row_ranges) return std::nullopt;
                     RangeList out;
                     for (const auto& r : *s.row_ranges) out.emplace_back(r.from, r.to);
                     return out;
                   })
      .def("partition_of", [](const DataSplit& s, const Table& t) { return PartitionDict(t, s); })
      .def("serialize",
           [](const DataSplit& s) {
             auto bytes = Unwrap(s.Serialize());
             return nb::bytes(bytes.data(), bytes.size());
           })
      .def_static("deserialize", [](nb::bytes data) {
        return std::make_shared<DataSplit>(
            Unwrap(DataSplit::Deserialize(std::string_view(data.c_str(), data.size()))));
      });

  nb::class_<PyPlan>(m, "Plan")
      .def_prop_ro("snapshot_id", [](const PyPlan& p) { return p.snapshot_id; })
      .def("splits", [](const PyPlan& p) { return p.splits; });

  m.def(
      "plan",
      [](std::shared_ptr<Table> table, nb::object predicate, std::optional<RangeList> row_ranges) {
        auto pred = ConvertPredicate(predicate);
        Result<ScanPlan> result;
        {
          nb::gil_scoped_release release;
          ScanPlanner planner(table);
          if (pred) planner.WithPredicate(pred);
          if (row_ranges) planner.WithRowRanges(ToRowRanges(*row_ranges));
          result = planner.Plan();
        }
        auto plan = Unwrap(std::move(result));
        auto out = std::make_shared<PyPlan>();
        out->snapshot_id = plan.snapshot_id;
        for (auto& s : plan.splits)
          out->splits.push_back(std::make_shared<DataSplit>(std::move(s)));
        return out;
      },
      nb::arg("table"), nb::arg("predicate").none(), nb::arg("row_ranges").none());

  m.def(
      "row_ranges_of",
      [](nb::object predicate) -> std::optional<RangeList> {
        auto pred = ConvertPredicate(predicate);
        if (!pred) return std::nullopt;
        auto ranges = RowRangesFromPredicate(*pred);
        if (!ranges) return std::nullopt;
        RangeList out;
        for (const auto& r : *ranges) out.emplace_back(r.from, r.to);
        return out;
      },
      nb::arg("predicate").none());

  m.def(
      "read",
      [](std::shared_ptr<Table> table, std::vector<std::shared_ptr<DataSplit>> splits,
         std::vector<std::string> fields, nb::object predicate, std::optional<int64_t> limit,
         int threads, bool whole) {
        ReadOptions options;
        options.fields = std::move(fields);
        options.predicate = ConvertPredicate(predicate);
        options.limit = limit;
        options.threads = threads;
        auto read = Unwrap(TableRead::Make(table, std::move(options)));
        std::vector<DataSplit> owned;
        for (const auto& s : splits) owned.push_back(*s);
        auto reader = Unwrap(read->Read(std::move(owned)));
        return whole ? ExportColumns(std::move(reader)) : ExportStreamCapsule(std::move(reader));
      },
      nb::arg("table"), nb::arg("splits"), nb::arg("read_fields"), nb::arg("predicate").none(),
      nb::arg("limit").none(), nb::arg("threads") = 1, nb::arg("whole") = false);

  RegisterWrite(m);
  RegisterRowId(m);
  RegisterBlob(m);
  RegisterTypes(m);
  RegisterJoin(m);
  RegisterRangePlan(m);
  RegisterProgress(m);
  RegisterRest(m);
  RegisterCompact(m);
  RegisterMaint(m);
  RegisterGlobalIndex(m);
  RegisterSearch(m);
  RegisterVindexIO(m);

  m.def("manifest_cache_stats", [] {
    const ManifestCache::Stats s = ManifestCache::Default()->stats();
    return std::map<std::string, int64_t>{{"hits", s.hits},
                                          {"misses", s.misses},
                                          {"manifests", s.manifests},
                                          {"bytes", s.bytes},
                                          {"capacity", ManifestCache::Default()->capacity()}};
  });
  m.def(
      "set_manifest_cache_capacity",
      [](int64_t bytes) { ManifestCache::Default()->SetCapacity(bytes); }, nb::arg("bytes"));

  m.def("read_schema", [](std::shared_ptr<Table> table, std::vector<std::string> fields) {
    auto schema = Unwrap(TableRead::OutputSchema(*table, fields));
    return ExportSchemaCapsule(*schema);
  });
}

}  // namespace paimon_rowid::python
