// Helpers shared by the write/ and commit/ tests: a table in a temporary warehouse, batches,
// full reads with _ROW_ID / _SEQUENCE_NUMBER.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "arrow/api.h"
#include "paimon_rowid/catalog/catalog.h"
#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/commit/committer.h"
#include "paimon_rowid/meta/manifest.h"
#include "paimon_rowid/read/table_read.h"
#include "paimon_rowid/scan/plan.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"
#include "paimon_rowid/write/append_writer.h"

namespace paimon_rowid::testing {

inline std::map<std::string, std::string> DeOptions(std::map<std::string, std::string> extra = {}) {
  std::map<std::string, std::string> opts{{"row-tracking.enabled", "true"},
                                          {"data-evolution.enabled", "true"}};
  for (auto& [k, v] : extra) opts[k] = v;
  return opts;
}

/// Rows of an update of "name": (_ROW_ID, name = prefix + id) for each id.
inline std::shared_ptr<arrow::RecordBatch> NameUpdates(const std::vector<int64_t>& ids,
                                                       const std::string& prefix) {
  arrow::Int64Builder id_builder;
  arrow::StringBuilder name_builder;
  for (int64_t id : ids) {
    EXPECT_OK(id_builder.Append(id));
    EXPECT_OK(name_builder.Append(prefix + std::to_string(id)));
  }
  auto schema =
      arrow::schema({arrow::field("_ROW_ID", arrow::int64()), arrow::field("name", arrow::utf8())});
  return arrow::RecordBatch::Make(
      schema, static_cast<int64_t>(ids.size()),
      {id_builder.Finish().ValueOrDie(), name_builder.Finish().ValueOrDie()});
}

/// Table "db.t" (id BIGINT NOT NULL, name STRING, dt STRING) in a fresh warehouse.
class WriteFixture {
 public:
  explicit WriteFixture(std::map<std::string, std::string> options = DeOptions(),
                        std::vector<std::string> partition_keys = {}) {
    catalog_ = Catalog::Make({{"warehouse", dir_.path()}}).ValueOrDie();
    EXPECT_OK(catalog_->CreateDatabase("db", false));
    TableSchema schema;
    schema.fields = AssignFieldIds({
        DataField{-1, "id", DataType::Atomic(TypeRoot::kBigInt, false)},
        DataField{-1, "name", DataType::Char(TypeRoot::kVarChar, DataType::kMaxLength)},
        DataField{-1, "dt", DataType::Char(TypeRoot::kVarChar, DataType::kMaxLength)},
    });
    schema.partition_keys = std::move(partition_keys);
    schema.options = std::move(options);
    Status st = catalog_->CreateTable("db.t", schema, false);
    EXPECT_OK(st);
    table_ = catalog_->GetTable("db.t").ValueOrDie();
  }

  std::shared_ptr<Table> table() const { return table_; }
  const std::string& warehouse() const { return dir_.path(); }
  std::string table_path() const { return table_->path(); }

  static std::shared_ptr<arrow::RecordBatch> Batch(int64_t start, int64_t n,
                                                   const std::vector<std::string>& dts = {"a"}) {
    arrow::Int64Builder ids;
    arrow::StringBuilder names, dt;
    for (int64_t i = start; i < start + n; ++i) {
      EXPECT_OK(ids.Append(i));
      EXPECT_OK(names.Append("name-" + std::to_string(i)));
      EXPECT_OK(dt.Append(dts[static_cast<size_t>(i) % dts.size()]));
    }
    auto schema =
        arrow::schema({arrow::field("id", arrow::int64(), false),
                       arrow::field("name", arrow::utf8()), arrow::field("dt", arrow::utf8())});
    return arrow::RecordBatch::Make(
        schema, n,
        {ids.Finish().ValueOrDie(), names.Finish().ValueOrDie(), dt.Finish().ValueOrDie()});
  }

  /// Writes `batch` with a fresh writer and returns its messages.
  std::vector<CommitMessage> WriteMessages(
      const std::shared_ptr<arrow::RecordBatch>& batch,
      std::optional<std::vector<std::string>> cols = std::nullopt) {
    auto writer = AppendWriter::Make(table_, cols).ValueOrDie();
    Status st = writer->Write(batch);
    EXPECT_OK(st);
    return writer->PrepareCommit().ValueOrDie();
  }

  /// Writes and commits; returns the snapshot id.
  int64_t Append(const std::shared_ptr<arrow::RecordBatch>& batch) {
    auto msgs = WriteMessages(batch);
    auto committer = Committer::Make(table_).ValueOrDie();
    auto id = committer->Commit(msgs);
    EXPECT_OK(id);
    return id.ok() && *id ? **id : -1;
  }

  /// All rows of the latest snapshot with the given fields, sorted by _ROW_ID when read.
  std::shared_ptr<arrow::Table> ReadAll(std::vector<std::string> fields) {
    auto plan = ScanPlanner(table_).Plan().ValueOrDie();
    ReadOptions opts;
    opts.fields = std::move(fields);
    auto read = TableRead::Make(table_, opts).ValueOrDie();
    auto reader = read->Read(plan.splits).ValueOrDie();
    return reader->ToTable().ValueOrDie();
  }

  static std::vector<int64_t> Int64s(const std::shared_ptr<arrow::Table>& t,
                                     const std::string& name) {
    std::vector<int64_t> out;
    auto col = t->GetColumnByName(name);
    for (const auto& chunk : col->chunks()) {
      auto arr = std::static_pointer_cast<arrow::Int64Array>(chunk);
      for (int64_t i = 0; i < arr->length(); ++i) out.push_back(arr->Value(i));
    }
    return out;
  }

  /// Regular files under `dir` (recursive), relative paths.
  static std::vector<std::string> Files(const std::string& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    if (!std::filesystem::exists(dir, ec)) return out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
      if (e.is_regular_file()) out.push_back(std::filesystem::relative(e.path(), dir).string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  TempDir dir_;
  std::shared_ptr<Catalog> catalog_;
  std::shared_ptr<Table> table_;
};

/// Manifest files (lists included) no snapshot references: what a failed or abandoned
/// commit attempt must not leave behind.
inline std::vector<std::string> OrphanManifests(const Table& table) {
  std::set<std::string> referenced;
  for (int64_t id : table.ListSnapshotIds().ValueOrDie()) {
    Snapshot s = table.SnapshotById(id).ValueOrDie();
    if (s.index_manifest) referenced.insert(*s.index_manifest);
    for (const auto& list : {s.base_manifest_list, s.delta_manifest_list}) {
      referenced.insert(list);
      auto metas =
          DecodeManifestList(table.file_io()->ReadFile(table.ManifestPath(list)).ValueOrDie())
              .ValueOrDie();
      for (const auto& m : metas) referenced.insert(m.file_name);
    }
  }
  std::vector<std::string> orphans;
  for (const auto& entry : std::filesystem::directory_iterator(table.path() + "/manifest")) {
    const std::string f = entry.path().filename().string();
    if (!referenced.count(f)) orphans.push_back(f);
  }
  return orphans;
}

}  // namespace paimon_rowid::testing
