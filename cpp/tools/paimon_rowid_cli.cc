// paimon-rowid: the command-line tool. Tables are read and updated by row id from the shell;
// data goes out as CSV (or Arrow IPC with --ipc) and comes in as CSV or Arrow IPC.
//
//   paimon-rowid WAREHOUSE databases
//   paimon-rowid WAREHOUSE tables DB
//   paimon-rowid WAREHOUSE schema DB.TABLE
//   paimon-rowid WAREHOUSE snapshot DB.TABLE
//   paimon-rowid WAREHOUSE ranges DB.TABLE [--rows-per-batch N]
//   paimon-rowid WAREHOUSE read DB.TABLE [--columns a,b] [--range FROM TO] [--ipc]
//   paimon-rowid WAREHOUSE read-by-row-id DB.TABLE --ids 1,5,9 [--columns a,b] [--ipc]
//   paimon-rowid WAREHOUSE update-by-row-id DB.TABLE --columns a,b --input FILE|-
//       (FILE: CSV with a _ROW_ID column and the columns, or Arrow IPC stream; - = stdin)
//   paimon-rowid WAREHOUSE delete-by-row-id DB.TABLE --ids 1,5,9
//       (deletion vectors; one OVERWRITE snapshot, docs/deletes.md)
//   paimon-rowid WAREHOUSE compact DB.TABLE [--full] [--min-file-num N] [--threads N]
//       (data-evolution compaction: one COMPACT snapshot, docs/maintenance.md)
//   paimon-rowid WAREHOUSE expire-snapshots DB.TABLE [--retain-max N] [--retain-min N]
//       [--older-than-ms T] [--max-deletes N]
//       (unset options take the table's snapshot.num-retained.max/min, snapshot.time-retained,
//       snapshot.expire.limit; T is epoch milliseconds)
//   paimon-rowid WAREHOUSE remove-orphan-files DB.TABLE [--older-than-ms T] [--dry-run]
//       (default T: now minus one day; --dry-run lists what would be deleted)
// Maintenance verbs print what they did, one "key: value" line each (docs/maintenance.md).
//
// Every command takes catalog options as `--option KEY=VALUE` (repeatable), e.g. an S3
// warehouse's `--option fs.s3.endpoint=http://host:9000 --option fs.s3.region=us-east-1`
// (docs/object-stores.md); without keys the AWS environment/credential chain is used.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "arrow/api.h"
#include "arrow/csv/api.h"
#include "arrow/io/api.h"
#include "arrow/io/stdio.h"
#include "arrow/ipc/api.h"
#include "paimon_rowid/api.h"  // the CLI uses only the public C++ API

namespace pr = paimon_rowid;
using arrow::Status;

namespace {

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> catalog_options;
  std::vector<std::string> columns;
  std::vector<int64_t> ids;
  std::optional<pr::RowRange> range;
  int64_t rows_per_batch = 1000000;
  std::string input;
  bool ipc = false;
  bool full = false;
  std::optional<int64_t> min_file_num;
  int64_t threads = 0;
  pr::ExpireOptions expire;
  std::optional<int64_t> older_than_ms;
  bool dry_run = false;
};

// A whole decimal integer (optional '-'), nothing else: "1.5", "0x10", "", " 7", "1e3" and
// values outside int64 are refused, naming the option and the text.
arrow::Result<int64_t> ParseInt64(const std::string& option, const std::string& text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range) {
    return Status::Invalid(option, ": '", text, "' is out of range (a 64-bit integer)");
  }
  if (text.empty() || ec != std::errc() || ptr != end) {
    return Status::Invalid(option, ": '", text, "' is not an integer");
  }
  return value;
}

arrow::Result<Args> ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> arrow::Result<std::string> {
      if (i + 1 >= argc) return Status::Invalid(arg, " needs a value");
      return std::string(argv[++i]);
    };
    if (arg == "--columns") {
      ARROW_ASSIGN_OR_RAISE(auto v, next());
      a.columns = pr::SplitOptionList(v);
    } else if (arg == "--ids") {
      ARROW_ASSIGN_OR_RAISE(auto v, next());
      for (const auto& s : pr::SplitOptionList(v)) {
        ARROW_ASSIGN_OR_RAISE(auto id, ParseInt64("--ids", s));
        a.ids.push_back(id);
      }
    } else if (arg == "--range") {
      ARROW_ASSIGN_OR_RAISE(auto from_text, next());
      ARROW_ASSIGN_OR_RAISE(auto to_text, next());
      ARROW_ASSIGN_OR_RAISE(auto from, ParseInt64("--range FROM", from_text));
      ARROW_ASSIGN_OR_RAISE(auto to, ParseInt64("--range TO", to_text));
      if (from < 0 || from > to) {
        return Status::Invalid("--range FROM TO: need 0 <= FROM <= TO (both inclusive), got ", from,
                               " ", to);
      }
      a.range = pr::RowRange{from, to};
    } else if (arg == "--rows-per-batch") {
      ARROW_ASSIGN_OR_RAISE(auto v, next());
      ARROW_ASSIGN_OR_RAISE(a.rows_per_batch, ParseInt64("--rows-per-batch", v));
      if (a.rows_per_batch <= 0) {
        return Status::Invalid("--rows-per-batch: must be a positive integer, got ", v);
      }
    } else if (arg == "--input") {
      ARROW_ASSIGN_OR_RAISE(a.input, next());
    } else if (arg == "--ipc") {
      a.ipc = true;
    } else if (arg == "--full") {
      a.full = true;
    } else if (arg == "--min-file-num") {
      ARROW_ASSIGN_OR_RAISE(auto v, next());
      ARROW_ASSIGN_OR_RAISE(a.min_file_num, ParseInt64("--min-file-num", v));
    } else if (arg == "--threads") {
      ARROW_ASSIGN_OR_RAISE(auto v, next());
      ARROW_ASSIGN_OR_RAISE(a.threads, ParseInt64("--threads", v));
      if (a.threads < 0 || a.threads > 1024) {
        return Status::Invalid("--threads: must be in [0, 1024], got ", v);
      }
    } else if (arg == "--retain-max" || arg == "--retain-min" || arg == "--max-deletes") {
      ARROW_ASSIGN_OR_RAISE(auto v, next());
      ARROW_ASSIGN_OR_RAISE(auto n, ParseInt64(arg, v));
      if (n < INT32_MIN || n > INT32_MAX) {
        return Status::Invalid(arg, ": '", v, "' is out of range (a 32-bit integer)");
      }
      auto& field = arg == "--retain-max"   ? a.expire.retain_max
                    : arg == "--retain-min" ? a.expire.retain_min
                                            : a.expire.max_deletes;
      field = static_cast<int32_t>(n);
    } else if (arg == "--older-than-ms") {
      ARROW_ASSIGN_OR_RAISE(auto v, next());
      ARROW_ASSIGN_OR_RAISE(a.older_than_ms, ParseInt64(arg, v));
    } else if (arg == "--option") {
      ARROW_ASSIGN_OR_RAISE(auto v, next());
      const size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0) {
        return Status::Invalid("--option: expected KEY=VALUE, got '", v, "'");
      }
      const std::string key = v.substr(0, eq);
      if (key == "warehouse") {
        return Status::Invalid("--option: the warehouse is the first argument, not an option");
      }
      if (!a.catalog_options.emplace(key, v.substr(eq + 1)).second) {
        return Status::Invalid("--option: '", key, "' is given twice");
      }
    } else if (arg == "--dry-run") {
      a.dry_run = true;
    } else {
      a.positional.push_back(arg);
    }
  }
  return a;
}

Status Emit(const std::shared_ptr<arrow::RecordBatchReader>& reader, bool ipc) {
  ARROW_ASSIGN_OR_RAISE(auto table, reader->ToTable());
  auto out = std::make_shared<arrow::io::StdoutStream>();
  if (ipc) {
    ARROW_ASSIGN_OR_RAISE(auto writer, arrow::ipc::MakeStreamWriter(out, table->schema()));
    ARROW_RETURN_NOT_OK(writer->WriteTable(*table));
    return writer->Close();
  }
  return arrow::csv::WriteCSV(*table, arrow::csv::WriteOptions::Defaults(), out.get());
}

arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> OpenInput(const std::string& path) {
  std::shared_ptr<arrow::io::InputStream> in;
  if (path == "-" || path.empty()) {
    in = std::make_shared<arrow::io::StdinStream>();
  } else {
    ARROW_ASSIGN_OR_RAISE(in, arrow::io::ReadableFile::Open(path));
  }
  ARROW_ASSIGN_OR_RAISE(auto buffered, arrow::io::BufferedInputStream::Create(
                                           1 << 16, arrow::default_memory_pool(), in));
  ARROW_ASSIGN_OR_RAISE(auto head, buffered->Peek(8));
  // Arrow IPC streams start with the 0xFFFFFFFF continuation marker.
  if (head.size() >= 4 && static_cast<unsigned char>(head[0]) == 0xFF &&
      static_cast<unsigned char>(head[1]) == 0xFF) {
    return arrow::ipc::RecordBatchStreamReader::Open(buffered);
  }
  ARROW_ASSIGN_OR_RAISE(
      auto csv, arrow::csv::StreamingReader::Make(
                    arrow::io::default_io_context(), buffered, arrow::csv::ReadOptions::Defaults(),
                    arrow::csv::ParseOptions::Defaults(), arrow::csv::ConvertOptions::Defaults()));
  return csv;
}

std::vector<std::string> ReadFields(const pr::Table& table,
                                    const std::vector<std::string>& columns) {
  std::vector<std::string> fields = columns.empty() ? table.schema().field_names() : columns;
  if (table.row_tracking_enabled() &&
      std::find(fields.begin(), fields.end(), "_ROW_ID") == fields.end()) {
    fields.push_back("_ROW_ID");
  }
  return fields;
}

constexpr const char* kCommands =
    "databases, tables, schema, snapshot, ranges, read, read-by-row-id, update-by-row-id, "
    "delete-by-row-id, compact, expire-snapshots, remove-orphan-files";

Status Run(const Args& a) {
  if (a.positional.size() < 2) {
    return Status::Invalid("usage: paimon-rowid WAREHOUSE COMMAND ... (commands: ", kCommands, ")");
  }
  const std::string& command = a.positional[1];
  std::map<std::string, std::string> catalog_options = a.catalog_options;
  catalog_options["warehouse"] = a.positional[0];
  ARROW_ASSIGN_OR_RAISE(auto catalog, pr::Catalog::Make(catalog_options));
  if (command == "databases") {
    ARROW_ASSIGN_OR_RAISE(auto dbs, catalog->ListDatabases());
    for (const auto& d : dbs) std::cout << d << "\n";
    return Status::OK();
  }
  if (a.positional.size() < 3) return Status::Invalid(command, " needs a database or table");
  const std::string& target = a.positional[2];
  if (command == "tables") {
    ARROW_ASSIGN_OR_RAISE(auto tables, catalog->ListTables(target));
    for (const auto& t : tables) std::cout << t << "\n";
    return Status::OK();
  }
  ARROW_ASSIGN_OR_RAISE(auto table, catalog->GetTable(target));
  if (command == "schema") {
    std::cout << table->schema().ToJson() << "\n";
    return Status::OK();
  }
  if (command == "snapshot") {
    ARROW_ASSIGN_OR_RAISE(auto snap, table->ResolveSnapshot());
    std::cout << (snap ? snap->ToJson() : std::string("no snapshot")) << "\n";
    return Status::OK();
  }
  if (command == "ranges") {
    ARROW_ASSIGN_OR_RAISE(auto snap, table->LatestSnapshot());
    if (!snap) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(auto index, pr::RowIdIndex::Build(table, *snap));
    int64_t pending = 0;
    std::string batch;
    for (const auto& g : index->groups()) {
      batch += (batch.empty() ? "" : " ") + std::to_string(g.range.from) + "-" +
               std::to_string(g.range.to);
      pending += g.range.count();
      if (pending >= a.rows_per_batch) {
        std::cout << batch << "\n";
        batch.clear();
        pending = 0;
      }
    }
    if (!batch.empty()) std::cout << batch << "\n";
    return Status::OK();
  }
  if (command == "read") {
    pr::ScanPlanner planner(table);
    if (a.range) planner.WithRowRanges({*a.range});
    ARROW_ASSIGN_OR_RAISE(auto plan, planner.Plan());
    pr::ReadOptions options;
    options.fields = ReadFields(*table, a.columns);
    ARROW_ASSIGN_OR_RAISE(auto read, pr::TableRead::Make(table, options));
    ARROW_ASSIGN_OR_RAISE(auto reader, read->Read(plan.splits));
    return Emit(reader, a.ipc);
  }
  if (command == "read-by-row-id") {
    ARROW_ASSIGN_OR_RAISE(auto snap, table->ResolveSnapshot());
    if (!snap) return Status::Invalid("table '", target, "' has no rows");
    ARROW_ASSIGN_OR_RAISE(auto index, pr::RowIdIndex::Build(table, *snap));
    std::vector<std::string> projection =
        a.columns.empty() ? table->schema().field_names() : a.columns;
    ARROW_ASSIGN_OR_RAISE(auto read, pr::RowIdRead::Make(table, projection, index));
    arrow::Int64Builder ids;
    ARROW_RETURN_NOT_OK(ids.AppendValues(a.ids));
    ARROW_ASSIGN_OR_RAISE(auto id_array, ids.Finish());
    ARROW_ASSIGN_OR_RAISE(auto reader, read->Read({id_array}));
    return Emit(reader, a.ipc);
  }
  if (command == "update-by-row-id") {
    if (a.columns.empty()) return Status::Invalid("update-by-row-id needs --columns");
    ARROW_ASSIGN_OR_RAISE(auto cols,
                          pr::ValidateUpdateColumns(*table, a.columns, target, "update_by_row_id"));
    ARROW_ASSIGN_OR_RAISE(auto input, OpenInput(a.input));
    pr::RowIdUpdateOptions update_options;
    update_options.reject_deleted_rows = true;  // as the Python and Ray jobs
    ARROW_ASSIGN_OR_RAISE(auto update, pr::RowIdUpdate::Make(table, cols, target, update_options));
    ARROW_RETURN_NOT_OK(update->AddAll(input.get()));
    ARROW_ASSIGN_OR_RAISE(auto outcome, pr::CommitUpdate(update.get(), table, pr::RandomUuid()));
    std::cout << "{\"num_updated\": " << outcome.num_updated << ", \"snapshot_id\": "
              << (outcome.snapshot_id ? std::to_string(*outcome.snapshot_id) : "null") << "}\n";
    return Status::OK();
  }
  if (command == "delete-by-row-id") {
    if (a.ids.empty()) return Status::Invalid("delete-by-row-id needs --ids");
    ARROW_ASSIGN_OR_RAISE(auto messages, pr::DeleteByRowId(table, a.ids));
    ARROW_ASSIGN_OR_RAISE(auto committer, pr::Committer::Make(table));
    ARROW_ASSIGN_OR_RAISE(auto snapshot_id, committer->Commit(messages));
    std::cout << "{\"snapshot_id\": " << (snapshot_id ? std::to_string(*snapshot_id) : "null")
              << "}\n";
    return Status::OK();
  }
  if (command == "compact") {
    pr::CompactOptions options;
    options.full = a.full;
    options.min_file_num = a.min_file_num;
    options.threads = static_cast<int>(a.threads);
    ARROW_ASSIGN_OR_RAISE(auto r, pr::Compact(table, options));
    std::cout << "snapshot: " << (r.snapshot_id ? std::to_string(*r.snapshot_id) : "none") << "\n"
              << "file groups compacted: " << r.groups_compacted << " of " << r.groups_total << "\n"
              << "files replaced: " << r.files_removed << " (" << r.bytes_before << " bytes)\n"
              << "files written: " << r.files_written << " (" << r.bytes_written << " bytes)\n"
              << "rows rewritten: " << r.rows_rewritten << "\n";
    return Status::OK();
  }
  if (command == "expire-snapshots") {
    pr::ExpireOptions options = a.expire;
    options.older_than_ms = a.older_than_ms;
    ARROW_ASSIGN_OR_RAISE(auto r, pr::ExpireSnapshots(table, options));
    std::cout << "snapshots expired: " << r.snapshots_expired << "\n"
              << "data files deleted: " << r.data_files_deleted << "\n"
              << "manifest files deleted: " << r.manifest_files_deleted << "\n"
              << "bytes freed: " << r.bytes_freed << "\n"
              << "earliest snapshot: "
              << (r.earliest_snapshot_id ? std::to_string(*r.earliest_snapshot_id) : "none")
              << "\n";
    return Status::OK();
  }
  if (command == "remove-orphan-files") {
    ARROW_ASSIGN_OR_RAISE(
        auto r, pr::RemoveOrphanFiles(table, pr::OrphanOptions{a.older_than_ms, a.dry_run}));
    for (const auto& path : r.paths) {
      std::cout << (r.dry_run ? "would delete: " : "deleted: ") << path << "\n";
    }
    std::cout << (r.dry_run ? "orphan files found (dry run): " : "orphan files deleted: ")
              << r.files << "\n"
              << (r.dry_run ? "bytes to free: " : "bytes freed: ") << r.bytes << "\n"
              << "empty directories removed: " << r.dirs_removed << "\n";
    return Status::OK();
  }
  return Status::Invalid("unknown command '", command, "' (commands: ", kCommands, ")");
}

}  // namespace

int main(int argc, char** argv) {
  auto args = ParseArgs(argc, argv);
  Status st = args.ok() ? Run(*args) : args.status();
  (void)pr::FinalizeObjectStores();  // before exit, after the last object-store call
  if (!st.ok()) {
    std::cerr << "paimon-rowid: " << st.message() << "\n";
    return st.IsInvalid() || st.IsKeyError() ? 2 : 1;
  }
  return 0;
}
