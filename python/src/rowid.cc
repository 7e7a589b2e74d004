// Row-id job bindings: the RowIdIndex (built once, shipped to Ray workers as bytes),
// update_by_row_id and read_by_row_id kernels. Ids and values enter as Arrow C streams;
// results leave as Arrow C streams or native commit messages.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "arrow/api.h"
#include "arrow/compute/api.h"
#include "common.h"
#include "paimon_rowid/meta/commit_message.h"
#include "paimon_rowid/rowid/delete_by_row_id.h"
#include "paimon_rowid/rowid/read_by_row_id.h"
#include "paimon_rowid/rowid/row_id_index.h"
#include "paimon_rowid/rowid/update_by_row_id.h"
#include "paimon_rowid/write/stats.h"

namespace paimon_rowid::python {

namespace {

using IndexPtr = std::shared_ptr<const RowIdIndex>;

// Collects the int64 ids of column `column` of every batch of `reader`.
Result<std::vector<std::shared_ptr<arrow::Array>>> CollectIds(arrow::RecordBatchReader* reader,
                                                              const std::string& column) {
  ARROW_RETURN_NOT_OK(EnsureComputeInitialized());
  std::vector<std::shared_ptr<arrow::Array>> out;
  if (reader->schema()->GetFieldIndex(column) < 0) {
    return Status::Invalid("row_ids source is missing the '", column, "' column.");
  }
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (!batch) break;
    auto ids = batch->GetColumnByName(column);
    ARROW_RETURN_NOT_OK(CheckRowIdType(*ids->type(), column));
    if (ids->type_id() != arrow::Type::INT64) {
      ARROW_ASSIGN_OR_RAISE(auto cast, arrow::compute::Cast(*ids, arrow::int64()));
      ids = cast;
    }
    out.push_back(std::move(ids));
  }
  return out;
}

}  // namespace

void RegisterRowId(nb::module_& m) {
  nb::class_<RowIdIndex>(m, "RowIdIndex")
      .def_static(
          "build",
          [](std::shared_ptr<Table> table, std::optional<int64_t> snapshot_id) {
            return WithoutGil([&]() -> Result<std::shared_ptr<RowIdIndex>> {
              std::optional<Snapshot> snap;
              if (snapshot_id) {
                ARROW_ASSIGN_OR_RAISE(snap, table->SnapshotById(*snapshot_id));
              } else {
                ARROW_ASSIGN_OR_RAISE(snap, table->ResolveSnapshot());
              }
              if (!snap) return Status::Invalid("table has no snapshot");
              return RowIdIndex::Build(table, *snap);
            });
          },
          nb::arg("table"), nb::arg("snapshot_id").none())
      .def_prop_ro("snapshot_id", &RowIdIndex::snapshot_id)
      .def_prop_ro("num_groups", [](const RowIdIndex& i) { return i.groups().size(); })
      .def_prop_ro("total_rows", &RowIdIndex::total_rows)
      .def("group_ranges",
           [](const RowIdIndex& i) {
             std::vector<std::pair<int64_t, int64_t>> out;
             for (const auto& g : i.groups()) out.emplace_back(g.range.from, g.range.to);
             return out;
           })
      .def("valid_ranges",
           [](const RowIdIndex& i) {
             std::vector<std::pair<int64_t, int64_t>> out;
             for (const auto& r : i.valid_ranges()) out.emplace_back(r.from, r.to);
             return out;
           })
      .def("route",
           [](const RowIdIndex& i, nb::handle ids, std::string context) {
             auto array = ImportArrayFrom(ids);
             if (array->type_id() != arrow::Type::INT64) {
               throw nb::type_error("route() takes an int64 array");
             }
             auto owners = WithoutGil(
                 [&] { return i.Route(static_cast<const arrow::Int64Array&>(*array), context); });
             arrow::Int32Builder b;
             Check(b.AppendValues(owners));
             return ToPyArrow(Unwrap(b.Finish()));
           })
      .def(
          "estimate_bytes",
          [](const RowIdIndex& i, std::shared_ptr<Table> table, nb::handle owners,
             std::vector<std::string> columns) {
            auto array = ImportArrayFrom(owners);
            if (array->type_id() != arrow::Type::INT32) {
              throw nb::type_error("estimate_bytes() takes route()'s int32 array");
            }
            const auto& typed = static_cast<const arrow::Int32Array&>(*array);
            std::vector<int32_t> groups(typed.raw_values(), typed.raw_values() + typed.length());
            return i.EstimateBytes(*table, groups, columns);
          },
          nb::arg("table"), nb::arg("owners"), nb::arg("columns"))
      .def("serialize",
           [](const RowIdIndex& i) {
             auto bytes = WithoutGil([&] { return i.Serialize(); });
             return nb::bytes(bytes.data(), bytes.size());
           })
      .def_static("deserialize", [](nb::bytes data) {
        std::string copy(data.c_str(), data.size());
        return WithoutGil([&] { return RowIdIndex::Deserialize(copy); });
      });

  m.def(
      "validate_update_columns",
      [](std::shared_ptr<Table> table, std::vector<std::string> cols, std::string target,
         std::string operation, bool allow_blob) {
        return Unwrap(ValidateUpdateColumns(*table, cols, target, operation, allow_blob));
      },
      nb::arg("table"), nb::arg("cols"), nb::arg("target"), nb::arg("operation"),
      nb::arg("allow_blob") = false);

  // The apply kernel of one update round: routes `source` with `index` (the driver's, shipped
  // to a Ray task) and writes one partial-column file per touched group; nothing is committed.
  // `verify_since` (a rebased round): first checks that no routed row changed since that
  // index's snapshot (RowIdUpdate::VerifyUnchangedSince).
  m.def(
      "update_by_row_id",
      [](std::shared_ptr<Table> table, nb::handle source, std::vector<std::string> cols,
         std::string target, int threads, std::optional<IndexPtr> index,
         std::optional<IndexPtr> verify_since, bool reject_deleted, bool allow_blob) {
        auto reader = ImportStreamFrom(source);
        return WithoutGil(
            [&]() -> Result<std::pair<std::vector<std::shared_ptr<CommitMessage>>, int64_t>> {
              std::unique_ptr<RowIdUpdate> update;
              RowIdUpdateOptions options;
              options.reject_deleted_rows = reject_deleted;
              options.allow_blob_columns = allow_blob;  // merge_into only
              if (index && *index) {
                ARROW_ASSIGN_OR_RAISE(update,
                                      RowIdUpdate::Make(table, cols, target, *index, options));
              } else {
                ARROW_ASSIGN_OR_RAISE(update, RowIdUpdate::Make(table, cols, target, options));
              }
              ARROW_RETURN_NOT_OK(update->AddAll(reader.get()));
              if (verify_since && *verify_since) {
                ARROW_RETURN_NOT_OK(update->VerifyUnchangedSince(*verify_since));
              }
              ARROW_ASSIGN_OR_RAISE(auto messages, update->Finish(threads));
              std::vector<std::shared_ptr<CommitMessage>> out;
              for (auto& msg : messages)
                out.push_back(std::make_shared<CommitMessage>(std::move(msg)));
              return std::make_pair(std::move(out), update->num_rows());
            });
      },
      nb::arg("table"), nb::arg("source"), nb::arg("update_cols"), nb::arg("target"),
      nb::arg("threads") = 0, nb::arg("index").none() = nb::none(),
      nb::arg("verify_since").none() = nb::none(), nb::arg("reject_deleted") = true,
      nb::arg("allow_blob") = false);

  m.def("validate_delete", [](std::shared_ptr<Table> table) { Check(ValidateDelete(*table)); });

  m.def(
      "delete_partitions",
      [](std::shared_ptr<Table> table, nb::object predicate) -> nb::object {
        auto pred = ConvertPredicateTuple(predicate);
        if (!pred || !IsPartitionOnly(*table, *pred)) return nb::none();
        auto messages = WithoutGil([&] { return DeletePartitions(table, *pred); });
        nb::list out;
        for (auto& msg : messages) out.append(std::make_shared<CommitMessage>(std::move(msg)));
        return out;
      },
      nb::arg("table"), nb::arg("predicate").none(),
      "pypaimon's partition fast path of delete_by_predicate: messages dropping the matching "
      "partitions' files, or None when the predicate is not on partition keys alone.");

  m.def(
      "delete_by_row_id",
      [](std::shared_ptr<Table> table, std::vector<int64_t> row_ids) {
        return WithoutGil([&]() -> Result<std::vector<std::shared_ptr<CommitMessage>>> {
          ARROW_ASSIGN_OR_RAISE(auto messages, DeleteByRowId(table, std::move(row_ids)));
          std::vector<std::shared_ptr<CommitMessage>> out;
          for (auto& msg : messages) out.push_back(std::make_shared<CommitMessage>(std::move(msg)));
          return out;
        });
      },
      nb::arg("table"), nb::arg("row_ids"),
      "Commit messages deleting `row_ids` through deletion vectors (nothing is committed).");

  nb::class_<RebaseStep>(m, "RebaseStep")
      .def_ro("previous_base_id", &RebaseStep::previous_base_id)
      .def_prop_ro("latest_index", [](const RebaseStep& s) { return s.latest_index; });

  // The one commit path of an update whose rounds run elsewhere (Ray): CommitWithRebase
  // calling back `round(step)` (step None first, then a RebaseStep) for each round's commit
  // messages. An exception `round` raises reaches the caller as itself.
  m.def(
      "commit_update",
      [](std::shared_ptr<Table> table, nb::callable round, int64_t num_updated,
         std::string commit_user, std::map<std::string, std::string> properties, int max_rebases,
         std::string operation) {
        std::optional<nb::python_error> raised;
        UpdateRound run = [&](const RebaseStep* step) -> Result<std::vector<CommitMessage>> {
          nb::gil_scoped_acquire gil;
          try {
            nb::object result = step ? round(*step) : round(nb::none());
            std::vector<CommitMessage> messages;
            for (nb::handle item : result) {
              messages.push_back(*nb::cast<std::shared_ptr<CommitMessage>>(item));
            }
            return messages;
          } catch (nb::python_error& error) {
            // A round whose base was expired under it (a task's kBaseExpired error, raised
            // through Ray) moves onto the latest snapshot like an embedded round.
            if (error.matches(ErrorClass(ErrorKind::kBaseExpired))) {
              return MakeKindError(arrow::StatusCode::Invalid, ErrorKind::kBaseExpired,
                                   nb::cast<std::string>(nb::str(error.value())));
            }
            raised.emplace(std::move(error));
            return Status::Cancelled("the update round raised a Python exception");
          } catch (const std::exception& error) {  // nb::cast_error, nb::next_overflow, ...
            return Status::TypeError("an update round must return commit messages: ", error.what());
          }
        };
        Result<UpdateOutcome> outcome;
        {
          nb::gil_scoped_release release;
          CommitOptions options;
          options.commit_user = std::move(commit_user);
          options.properties = std::move(properties);
          outcome =
              CommitWithRebase(table, std::move(options), max_rebases, num_updated, run, operation);
        }
        if (raised) {
          raised->restore();
          throw nb::python_error();
        }
        auto done = Unwrap(std::move(outcome));
        return std::make_tuple(done.snapshot_id, done.rebases);
      },
      nb::arg("table"), nb::arg("round"), nb::arg("num_updated"), nb::arg("commit_user"),
      nb::arg("properties") = std::map<std::string, std::string>{}, nb::arg("max_rebases") = 5,
      nb::arg("operation") = "update_by_row_id");

  m.def(
      "update_file_paths",
      [](std::shared_ptr<Table> table, std::vector<std::string> cols, IndexPtr index,
         std::vector<int32_t> groups) {
        return WithoutGil([&] { return UpdateFilePaths(table, cols, *index, groups); });
      },
      nb::arg("table"), nb::arg("update_cols"), nb::arg("index"), nb::arg("groups"),
      "The partial-column files an update with the table's file stem writes for `groups`.");

  m.def(
      "delete_files",
      [](std::shared_ptr<Table> table, std::vector<std::string> paths) {
        return WithoutGil([&]() -> Result<int64_t> {
          int64_t deleted = 0;
          for (const auto& path : paths) {
            ARROW_ASSIGN_OR_RAISE(bool exists, table->file_io()->Exists(path));
            if (!exists) continue;
            ARROW_RETURN_NOT_OK(table->file_io()->DeleteFile(path));
            ++deleted;
          }
          return deleted;
        });
      },
      nb::arg("table"), nb::arg("paths"),
      "Deletes the files of `paths` that exist, through the table's FileIO; returns how many.");

  m.def(
      "update_by_row_id_commit",
      [](std::shared_ptr<Table> table, nb::handle source, std::vector<std::string> cols,
         std::string target, std::string commit_user, int threads, int max_rebases,
         std::map<std::string, std::string> properties) {
        auto reader = ImportStreamFrom(source);
        auto outcome = WithoutGil([&]() -> Result<UpdateOutcome> {
          RowIdUpdateOptions options;
          options.reject_deleted_rows = true;  // the job refuses deleted rows, as pypaimon's
          ARROW_ASSIGN_OR_RAISE(auto update, RowIdUpdate::Make(table, cols, target, options));
          ARROW_RETURN_NOT_OK(update->AddAll(reader.get()));
          return CommitUpdate(update.get(), table, commit_user, threads, max_rebases, properties);
        });
        return std::make_tuple(outcome.num_updated, outcome.snapshot_id, outcome.rebases);
      },
      nb::arg("table"), nb::arg("source"), nb::arg("update_cols"), nb::arg("target"),
      nb::arg("commit_user"), nb::arg("threads") = 0, nb::arg("max_rebases") = 5,
      nb::arg("properties") = std::map<std::string, std::string>{});

  m.def(
      "read_by_row_id",
      [](std::shared_ptr<Table> table, nb::handle source, std::string row_id_col,
         std::vector<std::string> projection, IndexPtr index, int threads) {
        auto reader = ImportStreamFrom(source);
        auto stream = WithoutGil([&]() -> Result<std::shared_ptr<arrow::RecordBatchReader>> {
          ARROW_ASSIGN_OR_RAISE(auto ids, CollectIds(reader.get(), row_id_col));
          ARROW_ASSIGN_OR_RAISE(auto read, RowIdRead::Make(table, projection, index));
          return read->Read(ids, threads);
        });
        return ExportColumns(std::move(stream));
      },
      nb::arg("table"), nb::arg("source"), nb::arg("row_id_col"), nb::arg("projection"),
      nb::arg("index"), nb::arg("threads") = 0);

  m.def("read_by_row_id_schema",
        [](std::shared_ptr<Table> table, std::vector<std::string> projection) {
          if (std::find(projection.begin(), projection.end(), "_ROW_ID") == projection.end()) {
            projection.push_back("_ROW_ID");
          }
          auto schema = Unwrap(TableRead::OutputSchema(*table, projection));
          return ExportSchemaCapsule(*schema);
        });
}

}  // namespace paimon_rowid::python
