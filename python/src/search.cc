// Support for the search indexes whose files paimon-vindex / paimon-ftindex write from Python
// (docs/search.md): the build plan, committing their index files, listing them, the deleted
// row ids of a snapshot, Roaring64 filter bytes, and index-file I/O through the table's FileIO.
// The GIL is released while the C++ side reads, writes and commits.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>

#include "common.h"
#include "paimon_rowid/codec/roaring.h"
#include "paimon_rowid/indexing/global_index.h"
#include "paimon_rowid/scan/deletion_files.h"
#include "paimon_rowid/scan/global_index_scan.h"
#include "paimon_rowid/scan/partition_filter.h"

namespace paimon_rowid::python {

namespace {

std::shared_ptr<Predicate> OptionalPredicate(nb::handle obj) {
  if (obj.is_none()) return nullptr;
  return ConvertPredicateTuple(obj);
}

nb::bytes Bytes(const std::string& s) { return nb::bytes(s.data(), s.size()); }

std::string StringOf(nb::handle obj) {
  nb::bytes b = nb::cast<nb::bytes>(obj);
  return std::string(b.c_str(), b.size());
}

Result<Snapshot> SnapshotOf(const Table& table, std::optional<int64_t> snapshot_id) {
  if (snapshot_id) return table.SnapshotById(*snapshot_id);
  ARROW_ASSIGN_OR_RAISE(auto latest, table.LatestSnapshot());
  if (!latest)
    return Status::KeyError("table '", table.identifier().FullName(), "' has no snapshot");
  return *latest;
}

}  // namespace

void RegisterSearch(nb::module_& m) {
  m.def(
      "external_index_plan",
      [](std::shared_ptr<Table> table, const std::string& column, const std::string& index_type,
         nb::handle partition_filter) {
        auto filter = OptionalPredicate(partition_filter);
        ExternalIndexPlan plan =
            WithoutGil([&] { return PlanExternalIndexBuild(table, column, index_type, filter); });
        nb::list ranges;
        for (const auto& r : plan.ranges) {
          ranges.append(nb::make_tuple(Bytes(r.partition), r.range.from, r.range.to));
        }
        nb::dict out;
        out["snapshot_id"] = plan.snapshot_id;
        out["field_id"] = plan.field_id;
        out["ranges"] = ranges;
        return out;
      },
      nb::arg("table"), nb::arg("column"), nb::arg("index_type"),
      nb::arg("partition_filter").none());

  m.def(
      "commit_external_index_files",
      [](std::shared_ptr<Table> table, nb::list files) {
        std::vector<IndexManifestEntry> entries;
        for (nb::handle item : files) {
          nb::dict d = nb::cast<nb::dict>(item);
          IndexManifestEntry e;
          e.kind = FileKind::kAdd;
          e.partition = StringOf(d["partition"]);
          e.bucket = 0;
          e.index_type = nb::cast<std::string>(d["index_type"]);
          e.file_name = nb::cast<std::string>(d["file_name"]);
          e.file_size = nb::cast<int64_t>(d["file_size"]);
          e.row_count = nb::cast<int64_t>(d["row_count"]);
          e.global_index =
              GlobalIndexMeta{nb::cast<int64_t>(d["from"]),     nb::cast<int64_t>(d["to"]),
                              nb::cast<int32_t>(d["field_id"]), std::nullopt,
                              StringOf(d["index_meta"]),        std::nullopt};
          entries.push_back(std::move(e));
        }
        return WithoutGil([&] { return CommitExternalIndexFiles(table, std::move(entries)); });
      },
      nb::arg("table"), nb::arg("files"));

  m.def(
      "external_index_files",
      [](std::shared_ptr<Table> table, const std::string& column, const std::string& index_type,
         std::optional<int64_t> snapshot_id, nb::handle partition_filter) {
        auto filter = OptionalPredicate(partition_filter);
        struct Found {
          IndexManifestEntry entry;
          std::string path;
        };
        auto found = WithoutGil([&]() -> Result<std::vector<Found>> {
          const DataField* field = table->schema().FieldByName(column);
          if (field == nullptr) {
            return Status::Invalid("Column '", column, "' does not exist in table '",
                                   table->identifier().FullName(), "'.");
          }
          ARROW_ASSIGN_OR_RAISE(Snapshot snapshot, SnapshotOf(*table, snapshot_id));
          ARROW_ASSIGN_OR_RAISE(auto files,
                                LiveGlobalIndexFiles(*table, snapshot, field->id, index_type));
          ARROW_ASSIGN_OR_RAISE(auto partitions,
                                PartitionFilter::Make(table->schema(), filter.get()));
          std::vector<Found> out;
          for (auto& e : files) {
            ARROW_ASSIGN_OR_RAISE(bool selected, partitions->Matches(e.partition));
            if (!selected) continue;
            std::string path = IndexEntryPath(*table, e);
            out.push_back({std::move(e), std::move(path)});
          }
          return out;
        });
        nb::list out;
        for (const auto& f : found) {
          nb::dict d;
          d["file_name"] = f.entry.file_name;
          d["path"] = f.path;
          d["file_size"] = f.entry.file_size;
          d["row_count"] = f.entry.row_count;
          d["partition"] = Bytes(f.entry.partition);
          d["from"] = f.entry.global_index->row_range_start;
          d["to"] = f.entry.global_index->row_range_end;
          d["index_meta"] = Bytes(f.entry.global_index->index_meta.value_or(""));
          out.append(d);
        }
        return out;
      },
      nb::arg("table"), nb::arg("column"), nb::arg("index_type"), nb::arg("snapshot_id").none(),
      nb::arg("partition_filter").none());

  m.def(
      "global_indexes_trusted",
      [](std::shared_ptr<Table> table) { return Unwrap(GlobalIndexesTrusted(*table)); },
      nb::arg("table"));

  m.def(
      "deleted_row_ids",
      [](std::shared_ptr<Table> table, std::optional<int64_t> snapshot_id) {
        auto ids = WithoutGil([&]() -> Result<std::vector<int64_t>> {
          ARROW_ASSIGN_OR_RAISE(Snapshot snapshot, SnapshotOf(*table, snapshot_id));
          return DeletedRowIds(*table, snapshot);
        });
        return nb::bytes(reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(int64_t));
      },
      nb::arg("table"), nb::arg("snapshot_id").none());

  m.def(
      "encode_roaring64",
      [](nb::bytes int64_le) {
        std::vector<int64_t> values(int64_le.size() / sizeof(int64_t));
        std::memcpy(values.data(), int64_le.c_str(), values.size() * sizeof(int64_t));
        for (size_t i = 0; i < values.size(); ++i) {
          if (values[i] < 0 || (i > 0 && values[i] <= values[i - 1])) {
            Check(Status::Invalid("Roaring64 values must be ascending, distinct, non-negative"));
          }
        }
        return Bytes(EncodeRoaring64(values));
      },
      nb::arg("int64_le"));

  m.def(
      "index_file_path",
      [](std::shared_ptr<Table> table, const std::string& file_name) {
        return table->IndexFilePath(file_name);
      },
      nb::arg("table"), nb::arg("file_name"));

  m.def(
      "write_index_file",
      [](std::shared_ptr<Table> table, const std::string& path, nb::bytes data) {
        std::string_view view(data.c_str(), data.size());
        WithoutGil([&] { return table->file_io()->WriteFileNoReplace(path, view); });
      },
      nb::arg("table"), nb::arg("path"), nb::arg("data"));

  m.def(
      "read_index_file",
      [](std::shared_ptr<Table> table, const std::string& path) {
        auto buffer = WithoutGil([&] { return table->file_io()->ReadFile(path); });
        return nb::bytes(reinterpret_cast<const char*>(buffer->data()),
                         static_cast<size_t>(buffer->size()));
      },
      nb::arg("table"), nb::arg("path"));
}

}  // namespace paimon_rowid::python
