// Global indexes (indexing/global_index.h): build, drop, look keys up. The GIL is released
// while the C++ side reads, writes and commits.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include "common.h"
#include "paimon_rowid/indexing/global_index.h"
#include "paimon_rowid/indexing/key_lookup.h"
#include "paimon_rowid/scan/deletion_files.h"
#include "paimon_rowid/scan/partition.h"

namespace paimon_rowid::python {

namespace {
std::shared_ptr<Predicate> OptionalPredicate(nb::handle obj) {
  if (obj.is_none()) return nullptr;
  return ConvertPredicateTuple(obj);
}
}  // namespace

void RegisterGlobalIndex(nb::module_& m) {
  m.def(
      "create_global_index",
      [](std::shared_ptr<Table> table, const std::string& column, const std::string& index_type,
         nb::handle partition_filter, std::map<std::string, std::string> options,
         ProgressCounter* progress) {
        GlobalIndexBuildOptions build;
        build.progress = progress;
        build.column = column;
        build.index_type = index_type;
        build.partition_filter = OptionalPredicate(partition_filter);
        build.options = std::move(options);
        return WithoutGil([&] { return CreateGlobalIndex(table, build); });
      },
      nb::arg("table"), nb::arg("column"), nb::arg("index_type"),
      nb::arg("partition_filter").none(), nb::arg("options"),
      nb::arg("progress").none() = nb::none());

  m.def(
      "drop_global_index",
      [](std::shared_ptr<Table> table, const std::string& column, const std::string& index_type,
         nb::handle partition_filter, bool dry_run) {
        auto filter = OptionalPredicate(partition_filter);
        return WithoutGil(
            [&] { return DropGlobalIndex(table, column, index_type, filter, dry_run); });
      },
      nb::arg("table"), nb::arg("column"), nb::arg("index_type"),
      nb::arg("partition_filter").none(), nb::arg("dry_run"));

  m.def(
      "global_index_lookup",
      [](std::shared_ptr<Table> table, const std::string& column, nb::handle keys,
         std::optional<int64_t> snapshot_id) {
        std::shared_ptr<arrow::Array> array = ImportArrayFrom(keys);
        GlobalIndexLookup found = WithoutGil([&]() -> Result<GlobalIndexLookup> {
          Snapshot snapshot;
          if (snapshot_id) {
            ARROW_ASSIGN_OR_RAISE(snapshot, table->SnapshotById(*snapshot_id));
          } else {
            ARROW_ASSIGN_OR_RAISE(auto latest, table->LatestSnapshot());
            if (!latest) {
              return Status::KeyError("table '", table->identifier().FullName(),
                                      "' has no snapshot");
            }
            snapshot = *latest;
          }
          return LookupGlobalIndex(*table, snapshot, column, *array);
        });
        nb::list row_ids, covered;
        for (int64_t id : found.row_ids) row_ids.append(id);
        for (const RowRange& r : found.covered) covered.append(nb::make_tuple(r.from, r.to));
        nb::dict out;
        out["row_ids"] = row_ids;
        out["covered"] = covered;
        out["files_read"] = found.files_read;
        out["bytes_read"] = found.bytes_read;
        return out;
      },
      nb::arg("table"), nb::arg("column"), nb::arg("keys"), nb::arg("snapshot_id").none());

  m.def(
      "write_sorted_index_range",
      [](std::shared_ptr<Table> table, const std::string& column, const std::string& index_type,
         std::map<std::string, std::string> options, nb::bytes partition, int64_t from,
         int64_t to) {
        GlobalIndexBuildOptions build;
        build.column = column;
        build.index_type = index_type;
        build.options = std::move(options);
        std::string part(partition.c_str(), partition.size());
        auto entries = WithoutGil([&] {
          return WriteSortedIndexRange(table, build, part, RowRange{from, to});
        });
        nb::list out;
        for (const auto& e : entries) {
          const GlobalIndexMeta& g = *e.global_index;
          nb::dict d;
          d["partition"] = nb::bytes(e.partition.data(), e.partition.size());
          d["index_type"] = e.index_type;
          d["file_name"] = e.file_name;
          d["path"] = table->IndexFilePath(e.file_name);
          d["file_size"] = e.file_size;
          d["row_count"] = e.row_count;
          d["from"] = g.row_range_start;
          d["to"] = g.row_range_end;
          d["field_id"] = g.index_field_id;
          const std::string meta = g.index_meta.value_or("");
          d["index_meta"] = nb::bytes(meta.data(), meta.size());
          out.append(d);
        }
        return out;
      },
      nb::arg("table"), nb::arg("column"), nb::arg("index_type"), nb::arg("options"),
      nb::arg("partition"), nb::arg("from"), nb::arg("to"));

  m.def(
      "global_index_entries",
      [](std::shared_ptr<Table> table) {
        auto entries = WithoutGil([&]() -> Result<std::vector<IndexManifestEntry>> {
          ARROW_ASSIGN_OR_RAISE(auto snapshot, table->ResolveSnapshot());
          std::vector<IndexManifestEntry> out;
          if (!snapshot) return out;
          ARROW_ASSIGN_OR_RAISE(auto live, ReadLiveIndexEntries(*table, *snapshot));
          for (auto& e : live) {
            if (e.global_index) out.push_back(std::move(e));
          }
          return out;
        });
        auto fields = Unwrap(PartitionFields(table->schema()));
        nb::list out;
        for (const auto& e : entries) {
          const GlobalIndexMeta& g = *e.global_index;
          const DataField* field = table->schema().FieldById(g.index_field_id);
          nb::dict partition;
          if (!fields.empty()) {
            auto values = Unwrap(DecodePartition(e.partition, fields));
            for (size_t i = 0; i < fields.size(); ++i) {
              auto array = Unwrap(arrow::MakeArrayFromScalar(*values[i], 1));
              partition[fields[i].name.c_str()] = ToPyArrow(array).attr("to_pylist")()[0];
            }
          }
          nb::dict row;
          row["index_type"] = e.index_type;
          row["column"] = field != nullptr ? nb::cast(field->name) : nb::none();
          row["field_id"] = g.index_field_id;
          row["partition"] = partition;
          row["row_range"] = nb::make_tuple(g.row_range_start, g.row_range_end);
          row["row_count"] = e.row_count;
          row["file_name"] = e.file_name;
          row["file_size"] = e.file_size;
          out.append(row);
        }
        return out;
      },
      nb::arg("table"));

  m.def(
      "lookup_row_ids",
      [](std::shared_ptr<Table> table, nb::handle keys, const std::string& key_column) {
        std::shared_ptr<arrow::Array> array = ImportArrayFrom(keys);
        RowIdLookupStats stats;
        auto found = WithoutGil([&] { return LookupRowIds(table, *array, key_column, &stats); });
        nb::dict info;
        info["index_used"] = stats.index_used;
        info["index_files_read"] = stats.index_files_read;
        info["index_rows"] = stats.index_rows;
        info["scanned_ranges"] = stats.scanned_ranges;
        info["scanned_rows"] = stats.scanned_rows;
        return nb::make_tuple(ExportColumns(std::make_shared<arrow::TableBatchReader>(found)),
                              info);
      },
      nb::arg("table"), nb::arg("keys"), nb::arg("key_column"));

  m.def(
      "global_index_plan_stats",
      [](std::shared_ptr<Table> table, nb::handle predicate) -> nb::object {
        auto pred = ConvertPredicateTuple(predicate);
        auto found = WithoutGil([&]() -> Result<std::optional<GlobalIndexRanges>> {
          ARROW_ASSIGN_OR_RAISE(auto snapshot, table->ResolveSnapshot());
          if (!snapshot || !table->data_evolution_enabled()) {
            return std::optional<GlobalIndexRanges>();
          }
          return RangesFromGlobalIndexes(*table, *snapshot, *pred);
        });
        if (!found) return nb::none();
        nb::list columns, ranges;
        for (const auto& c : found->stats.columns) columns.append(c);
        for (const auto& r : found->ranges) ranges.append(nb::make_tuple(r.from, r.to));
        nb::dict out;
        out["columns"] = columns;
        out["files_read"] = found->stats.files_read;
        out["rows_total"] = found->stats.rows_total;
        out["rows_selected"] = found->stats.rows_selected;
        out["row_ranges"] = ranges;
        return out;
      },
      nb::arg("table"), nb::arg("predicate"));
}

}  // namespace paimon_rowid::python
