// Write-side bindings: schema validation on table creation, the append writer, commit
// messages and the committer. Data enters only as Arrow C streams (ImportStreamFrom); the
// GIL is released around all C++ work.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "common.h"
#include "paimon_rowid/catalog/catalog.h"
#include "paimon_rowid/catalog/schema_validation.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/commit/committer.h"
#include "paimon_rowid/meta/commit_message.h"
#include "paimon_rowid/write/append_writer.h"

namespace paimon_rowid::python {
namespace {

struct PyWriter {
  std::unique_ptr<AppendWriter> writer;
};

struct PyCommitter {
  std::unique_ptr<Committer> committer;
};

using MessagePtr = std::shared_ptr<CommitMessage>;

std::vector<CommitMessage> Messages(const std::vector<MessagePtr>& messages) {
  std::vector<CommitMessage> out;
  out.reserve(messages.size());
  for (const auto& m : messages) {
    if (!m) throw nb::type_error("commit messages must not be None");
    out.push_back(*m);
  }
  return out;
}

}  // namespace

void RegisterWrite(nb::module_& m) {
  m.def(
      "validate_table_schema",
      [](const std::string& schema_json) {
        auto schema = Unwrap(TableSchema::FromJson(schema_json));
        Check(ValidateTableSchema(schema));
      },
      "Raises when the schema JSON is not a valid table for this engine (docs/format.md §9).");

  nb::class_<CommitMessage>(m, "CommitMessage")
      .def_prop_ro("partition",
                   [](const CommitMessage& msg) {
                     return nb::bytes(msg.partition.data(), msg.partition.size());
                   })
      .def_prop_ro("bucket", [](const CommitMessage& msg) { return msg.bucket; })
      .def_prop_rw(
          "check_from_snapshot", [](const CommitMessage& msg) { return msg.check_from_snapshot; },
          [](CommitMessage& msg, std::optional<int64_t> v) { msg.check_from_snapshot = v; },
          nb::arg("value").none())
      .def_prop_ro("index_file_names",
                   [](const CommitMessage& msg) {
                     std::vector<std::string> names;
                     for (const auto& f : msg.new_index_files) names.push_back(f.file_name);
                     return names;
                   })
      .def_prop_ro("file_names",
                   [](const CommitMessage& msg) {
                     std::vector<std::string> names;
                     for (const auto& f : msg.new_files) names.push_back(f.file_name);
                     return names;
                   })
      .def_prop_ro("row_count",
                   [](const CommitMessage& msg) {
                     int64_t n = 0;
                     for (const auto& f : msg.new_files) n += f.row_count;
                     return n;
                   })
      .def("is_empty", &CommitMessage::empty)
      .def("serialize",
           [](const CommitMessage& msg) {
             auto bytes = Unwrap(msg.Serialize());
             return nb::bytes(bytes.data(), bytes.size());
           })
      .def_static("deserialize", [](nb::bytes data) {
        return std::make_shared<CommitMessage>(
            Unwrap(CommitMessage::Deserialize(std::string_view(data.c_str(), data.size()))));
      });

  nb::class_<PyWriter>(m, "AppendWriter")
      .def(
          "__init__",
          [](PyWriter* self, std::shared_ptr<Table> table,
             std::optional<std::vector<std::string>> write_cols) {
            auto writer = Unwrap(AppendWriter::Make(std::move(table), std::move(write_cols)));
            new (self) PyWriter{std::move(writer)};
          },
          nb::arg("table"), nb::arg("write_cols").none())
      .def("write_schema",
           [](const PyWriter& w) { return ExportSchemaCapsule(*w.writer->write_schema()); })
      .def("write",
           [](PyWriter& w, nb::handle data) {
             auto reader = ImportStreamFrom(data);
             WithoutGil([&] { return w.writer->WriteAll(reader.get()); });
           })
      .def("prepare_commit",
           [](PyWriter& w) {
             auto messages = WithoutGil([&] { return w.writer->PrepareCommit(); });
             std::vector<MessagePtr> out;
             for (auto& msg : messages)
               out.push_back(std::make_shared<CommitMessage>(std::move(msg)));
             return out;
           })
      .def("abort", [](PyWriter& w) { WithoutGil([&] { return w.writer->Abort(); }); })
      .def("written_paths", [](const PyWriter& w) { return w.writer->written_paths(); });

  nb::class_<PyCommitter>(m, "Committer")
      .def(
          "__init__",
          [](PyCommitter* self, std::shared_ptr<Table> table, std::string commit_user,
             std::optional<int64_t> commit_identifier,
             std::map<std::string, std::string> properties, bool overwrite,
             nb::handle overwrite_partitions, bool overwrite_dynamic,
             bool overwrite_skip_if_unchanged, std::string overwrite_description) {
            CommitOptions opts;
            opts.commit_user = std::move(commit_user);
            if (commit_identifier) opts.commit_identifier = *commit_identifier;
            opts.properties = std::move(properties);
            if (overwrite) {
              CommitOptions::Overwrite o;
              if (!overwrite_partitions.is_none()) {
                o.partitions = ConvertPredicateTuple(overwrite_partitions);
              }
              o.dynamic = overwrite_dynamic;
              o.skip_if_unchanged = overwrite_skip_if_unchanged;
              o.description = std::move(overwrite_description);
              opts.overwrite = std::move(o);
            }
            new (self) PyCommitter{Unwrap(Committer::Make(std::move(table), std::move(opts)))};
          },
          nb::arg("table"), nb::arg("commit_user"), nb::arg("commit_identifier").none(),
          nb::arg("properties") = std::map<std::string, std::string>{},
          nb::arg("overwrite") = false, nb::arg("overwrite_partitions") = nb::none(),
          nb::arg("overwrite_dynamic") = false, nb::arg("overwrite_skip_if_unchanged") = false,
          nb::arg("overwrite_description") = std::string())
      .def_prop_ro("commit_user", [](const PyCommitter& c) { return c.committer->commit_user(); })
      .def("commit",
           [](PyCommitter& c, const std::vector<MessagePtr>& messages) {
             auto owned = Messages(messages);
             return WithoutGil([&] { return c.committer->Commit(owned); });
           })
      .def("abort", [](PyCommitter& c, const std::vector<MessagePtr>& messages) {
        auto owned = Messages(messages);
        WithoutGil([&] { return c.committer->Abort(owned); });
      });
}

}  // namespace paimon_rowid::python
