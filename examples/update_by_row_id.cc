// Updates one column of some rows by _ROW_ID, then reads those rows back by row id.
//
//   update_by_row_id <warehouse> [db.table]      (default: examples.people)
//
// 1. (Re)creates the table as a data-evolution table (row tracking on) and appends five rows
//    in one commit: they get the row ids 0..4.
// 2. Rewrites `name` of rows 1 and 3 with RowIdUpdate + CommitUpdate: one partial-column file
//    for the one file group, committed as a new snapshot. `score` is not touched.
// 3. Reads (name, score) of the row ids 3, 1, 4 with RowIdRead and prints them.
//
// Exits 0 when the rows read back hold the updated names and the untouched scores, 1 on any
// error or a wrong value (printed), 2 on bad arguments. Uses only paimon_rowid/api.h.
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "arrow/api.h"
#include "arrow/pretty_print.h"
#include "paimon_rowid/api.h"

namespace pr = paimon_rowid;

namespace {

std::shared_ptr<arrow::Schema> PeopleSchema() {
  return arrow::schema({arrow::field("id", arrow::int64(), /*nullable=*/false),
                        arrow::field("name", arrow::utf8()),
                        arrow::field("score", arrow::float64())});
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> PeopleRows() {
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  arrow::DoubleBuilder scores;
  ARROW_RETURN_NOT_OK(ids.AppendValues({100, 101, 102, 103, 104}));
  ARROW_RETURN_NOT_OK(names.AppendValues({"alice", "bob", "carol", "dave", "erin"}));
  ARROW_RETURN_NOT_OK(scores.AppendValues({1.5, 2.5, 3.5, 4.5, 5.5}));
  ARROW_ASSIGN_OR_RAISE(auto id_array, ids.Finish());
  ARROW_ASSIGN_OR_RAISE(auto name_array, names.Finish());
  ARROW_ASSIGN_OR_RAISE(auto score_array, scores.Finish());
  return arrow::RecordBatch::Make(PeopleSchema(), 5, {id_array, name_array, score_array});
}

// Step 1: a fresh table holding the five rows (row ids 0..4).
arrow::Status CreateAndAppend(const pr::Catalog& catalog, const std::string& target) {
  ARROW_ASSIGN_OR_RAISE(auto id, pr::Identifier::Parse(target));
  ARROW_RETURN_NOT_OK(catalog.CreateDatabase(id.database, /*ignore_if_exists=*/true));
  ARROW_RETURN_NOT_OK(catalog.DropTable(target, /*ignore_if_not_exists=*/true));
  pr::TableSchema schema;
  ARROW_ASSIGN_OR_RAISE(schema.fields, pr::FieldsFromArrow(*PeopleSchema()));
  schema.options = {{"row-tracking.enabled", "true"}, {"data-evolution.enabled", "true"}};
  ARROW_RETURN_NOT_OK(catalog.CreateTable(target, schema, /*ignore_if_exists=*/false));

  ARROW_ASSIGN_OR_RAISE(auto table, catalog.GetTable(target));
  ARROW_ASSIGN_OR_RAISE(auto writer, pr::AppendWriter::Make(table));
  ARROW_ASSIGN_OR_RAISE(auto rows, PeopleRows());
  ARROW_RETURN_NOT_OK(writer->Write(rows));
  ARROW_ASSIGN_OR_RAISE(auto messages, writer->PrepareCommit());
  ARROW_ASSIGN_OR_RAISE(auto committer, pr::Committer::Make(table));
  ARROW_ASSIGN_OR_RAISE(auto snapshot_id, committer->Commit(messages));
  std::cout << "appended " << rows->num_rows() << " rows in snapshot "
            << (snapshot_id ? std::to_string(*snapshot_id) : "none") << "\n";
  return arrow::Status::OK();
}

// Step 2: name := new value for the given row ids.
arrow::Status UpdateNames(const pr::Catalog& catalog, const std::string& target,
                          const std::map<int64_t, std::string>& new_names) {
  ARROW_ASSIGN_OR_RAISE(auto table, catalog.GetTable(target));
  ARROW_ASSIGN_OR_RAISE(auto columns,
                        pr::ValidateUpdateColumns(*table, {"name"}, target, "update_by_row_id"));
  ARROW_ASSIGN_OR_RAISE(auto update, pr::RowIdUpdate::Make(table, columns, target));

  arrow::Int64Builder row_ids;
  arrow::StringBuilder names;
  for (const auto& [row_id, name] : new_names) {
    ARROW_RETURN_NOT_OK(row_ids.Append(row_id));
    ARROW_RETURN_NOT_OK(names.Append(name));
  }
  ARROW_ASSIGN_OR_RAISE(auto row_id_array, row_ids.Finish());
  ARROW_ASSIGN_OR_RAISE(auto name_array, names.Finish());
  auto source_schema = arrow::schema({arrow::field("_ROW_ID", arrow::int64(), /*nullable=*/false),
                                      arrow::field("name", arrow::utf8())});
  ARROW_RETURN_NOT_OK(update->Add(
      arrow::RecordBatch::Make(source_schema, row_id_array->length(), {row_id_array, name_array})));

  ARROW_ASSIGN_OR_RAISE(auto outcome, pr::CommitUpdate(update.get(), table, pr::RandomUuid()));
  std::cout << "updated " << outcome.num_updated << " rows in snapshot "
            << (outcome.snapshot_id ? std::to_string(*outcome.snapshot_id) : "none")
            << " (rebases: " << outcome.rebases << ")\n";
  return arrow::Status::OK();
}

// Step 3: read (name, score) of `ids` by row id and check them.
arrow::Status ReadBack(const pr::Catalog& catalog, const std::string& target,
                       const std::vector<int64_t>& ids,
                       const std::map<int64_t, std::string>& expected_names,
                       const std::map<int64_t, double>& expected_scores) {
  ARROW_ASSIGN_OR_RAISE(auto table, catalog.GetTable(target));
  ARROW_ASSIGN_OR_RAISE(auto snapshot, table->LatestSnapshot());
  if (!snapshot) return arrow::Status::Invalid("table '", target, "' has no snapshot");
  ARROW_ASSIGN_OR_RAISE(auto index, pr::RowIdIndex::Build(table, *snapshot));
  ARROW_ASSIGN_OR_RAISE(auto read, pr::RowIdRead::Make(table, {"name", "score"}, index));

  arrow::Int64Builder id_builder;
  ARROW_RETURN_NOT_OK(id_builder.AppendValues(ids));
  ARROW_ASSIGN_OR_RAISE(auto id_array, id_builder.Finish());
  ARROW_ASSIGN_OR_RAISE(auto reader, read->Read({id_array}));
  ARROW_ASSIGN_OR_RAISE(auto result, reader->ToTable());
  ARROW_ASSIGN_OR_RAISE(result, result->CombineChunks());
  std::cout << "read " << result->num_rows() << " rows by row id at snapshot " << snapshot->id
            << ":\n";
  ARROW_RETURN_NOT_OK(arrow::PrettyPrint(*result, arrow::PrettyPrintOptions{}, &std::cout));

  if (result->num_rows() != static_cast<int64_t>(expected_names.size())) {
    return arrow::Status::Invalid("expected ", expected_names.size(), " rows, read ",
                                  result->num_rows());
  }
  auto names =
      std::static_pointer_cast<arrow::StringArray>(result->GetColumnByName("name")->chunk(0));
  auto scores =
      std::static_pointer_cast<arrow::DoubleArray>(result->GetColumnByName("score")->chunk(0));
  auto row_ids =
      std::static_pointer_cast<arrow::Int64Array>(result->GetColumnByName("_ROW_ID")->chunk(0));
  for (int64_t i = 0; i < result->num_rows(); ++i) {
    int64_t row_id = row_ids->Value(i);
    auto name = expected_names.find(row_id);
    auto score = expected_scores.find(row_id);
    if (name == expected_names.end() || score == expected_scores.end()) {
      return arrow::Status::Invalid("row id ", row_id, " was not asked for");
    }
    if (names->GetString(i) != name->second || scores->Value(i) != score->second) {
      return arrow::Status::Invalid("row id ", row_id, ": read (", names->GetString(i), ", ",
                                    scores->Value(i), "), expected (", name->second, ", ",
                                    score->second, ")");
    }
  }
  std::cout << "ok: the updated names and the untouched scores read back\n";
  return arrow::Status::OK();
}

arrow::Status Run(const std::string& warehouse, const std::string& target) {
  ARROW_ASSIGN_OR_RAISE(auto catalog, pr::Catalog::Make({{"warehouse", warehouse}}));
  ARROW_RETURN_NOT_OK(CreateAndAppend(*catalog, target));
  ARROW_RETURN_NOT_OK(UpdateNames(*catalog, target, {{1, "BOB"}, {3, "DAVE"}}));
  return ReadBack(*catalog, target, {3, 1, 4}, {{1, "BOB"}, {3, "DAVE"}, {4, "erin"}},
                  {{1, 2.5}, {3, 4.5}, {4, 5.5}});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::cerr << "usage: update_by_row_id <warehouse> [db.table]\n";
    return 2;
  }
  arrow::Status st = Run(argv[1], argc == 3 ? argv[2] : "examples.people");
  if (!st.ok()) {
    std::cerr << "error: " << st.ToString() << "\n";
    return 1;
  }
  return 0;
}
