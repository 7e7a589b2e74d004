// Row-id updates of BLOB columns (merge_into): .blob files over the whole group, untouched
// payloads copied slice by slice, newest sequence number wins on read.
#include <gtest/gtest.h>

#include <algorithm>

#include "arrow/api.h"
#include "paimon_rowid/catalog/catalog.h"
#include "paimon_rowid/rowid/read_by_row_id.h"
#include "paimon_rowid/rowid/row_id_index.h"
#include "paimon_rowid/rowid/update_by_row_id.h"
#include "paimon_rowid/scan/plan.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"
#include "paimon_rowid/write/append_writer.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

using testing::DeOptions;
using testing::TempDir;
using testing::WriteFixture;

std::string Payload(int64_t id, const std::string& tag) {
  // Sizes vary so byte ranges differ; ~2 KiB so a few rows roll a 4 KiB .blob file.
  return tag + std::to_string(id) + std::string(static_cast<size_t>(1500 + id * 7), 'x');
}

// Table "db.t" (id BIGINT NOT NULL, name STRING, pic BLOB) with small .blob files.
class BlobTable {
 public:
  BlobTable() {
    catalog_ = Catalog::Make({{"warehouse", dir_.path()}}).ValueOrDie();
    EXPECT_OK(catalog_->CreateDatabase("db", false));
    TableSchema schema;
    schema.fields = AssignFieldIds({
        DataField{-1, "id", DataType::Atomic(TypeRoot::kBigInt, false)},
        DataField{-1, "name", DataType::Char(TypeRoot::kVarChar, DataType::kMaxLength)},
        DataField{-1, "pic", DataType::Atomic(TypeRoot::kBlob)},
    });
    schema.options = DeOptions({{"blob.target-file-size", "4 kb"}});
    EXPECT_OK(catalog_->CreateTable("db.t", schema, false));
    table_ = catalog_->GetTable("db.t").ValueOrDie();
  }
  std::shared_ptr<Table> table() const { return table_; }

  void Append(int64_t start, int64_t n) {
    arrow::Int64Builder ids;
    arrow::StringBuilder names;
    arrow::LargeBinaryBuilder pics;
    for (int64_t i = start; i < start + n; ++i) {
      ASSERT_OK(ids.Append(i));
      ASSERT_OK(names.Append("name-" + std::to_string(i)));
      ASSERT_OK(pics.Append(Payload(i, "old-")));
    }
    auto schema = arrow::schema({arrow::field("id", arrow::int64(), false),
                                 arrow::field("name", arrow::utf8()),
                                 arrow::field("pic", arrow::large_binary())});
    auto batch = arrow::RecordBatch::Make(
        schema, n,
        {ids.Finish().ValueOrDie(), names.Finish().ValueOrDie(), pics.Finish().ValueOrDie()});
    auto writer = AppendWriter::Make(table_).ValueOrDie();
    ASSERT_OK(writer->Write(batch));
    auto messages = writer->PrepareCommit().ValueOrDie();
    ASSERT_OK(Committer::Make(table_).ValueOrDie()->Commit(messages).status());
  }

  // (_ROW_ID, pic[, name]) rows setting pic = Payload(id, "new-") (null for id % 5 == 4).
  static std::shared_ptr<arrow::RecordBatch> Updates(const std::vector<int64_t>& ids,
                                                     bool with_name) {
    arrow::Int64Builder id_builder;
    arrow::LargeBinaryBuilder pics;
    arrow::StringBuilder names;
    for (int64_t id : ids) {
      EXPECT_OK(id_builder.Append(id));
      EXPECT_OK(id % 5 == 4 ? pics.AppendNull() : pics.Append(Payload(id, "new-")));
      EXPECT_OK(names.Append("new-name-" + std::to_string(id)));
    }
    arrow::FieldVector fields{arrow::field("_ROW_ID", arrow::int64()),
                              arrow::field("pic", arrow::large_binary())};
    arrow::ArrayVector arrays{id_builder.Finish().ValueOrDie(), pics.Finish().ValueOrDie()};
    if (with_name) {
      fields.push_back(arrow::field("name", arrow::utf8()));
      arrays.push_back(names.Finish().ValueOrDie());
    }
    return arrow::RecordBatch::Make(arrow::schema(fields), static_cast<int64_t>(ids.size()),
                                    arrays);
  }

  // Every row's (pic, name) through a full scan, by row id.
  std::vector<std::pair<std::optional<std::string>, std::string>> ReadAll() {
    auto plan = ScanPlanner(table_).Plan().ValueOrDie();
    ReadOptions opts;
    opts.fields = {"pic", "name", "_ROW_ID"};
    auto read = TableRead::Make(table_, opts).ValueOrDie();
    auto got = read->Read(plan.splits).ValueOrDie()->ToTable().ValueOrDie();
    got = got->CombineChunks().ValueOrDie();
    auto pics = std::static_pointer_cast<arrow::LargeBinaryArray>(got->column(0)->chunk(0));
    auto names = std::static_pointer_cast<arrow::StringArray>(got->column(1)->chunk(0));
    auto ids = std::static_pointer_cast<arrow::Int64Array>(got->column(2)->chunk(0));
    std::vector<std::pair<std::optional<std::string>, std::string>> out(
        static_cast<size_t>(got->num_rows()));
    for (int64_t i = 0; i < got->num_rows(); ++i) {
      auto& row = out[static_cast<size_t>(ids->Value(i))];
      if (!pics->IsNull(i)) row.first = pics->GetString(i);
      row.second = names->GetString(i);
    }
    return out;
  }

  std::vector<std::string> Files() const { return WriteFixture::Files(table_->path()); }

 private:
  TempDir dir_;
  std::shared_ptr<Catalog> catalog_;
  std::shared_ptr<Table> table_;
};

RowIdUpdateOptions AllowBlobs(int64_t slice_bytes = int64_t{32} << 20) {
  RowIdUpdateOptions options;
  options.allow_blob_columns = true;
  options.blob_slice_bytes = slice_bytes;
  return options;
}

TEST(BlobUpdateTest, RefusedUnlessAllowed) {
  BlobTable t;
  t.Append(0, 10);
  auto refused = ValidateUpdateColumns(*t.table(), {"pic"}, "db.t", "update_by_row_id");
  ASSERT_TRUE(refused.status().IsInvalid());
  EXPECT_EQ(refused.status().message(), "update_by_row_id cannot update blob column 'pic'.");
  ASSERT_OK_AND_ASSIGN(auto cols, ValidateUpdateColumns(*t.table(), {"pic", "name"}, "db.t",
                                                        "merge_into", /*allow_blob_columns=*/true));
  EXPECT_EQ(cols, (std::vector<std::string>{"pic", "name"}));
  EXPECT_RAISES(Invalid, RowIdUpdate::Make(t.table(), {"pic"}, "db.t").status());
}

// Some rows of one group, slices of ~3 rows: untouched payloads are copied exactly, the
// other group is not touched, and every reader sees the new values.
TEST(BlobUpdateTest, SomeRowsInSlicesReadByScanAndRowId) {
  BlobTable t;
  t.Append(0, 20);
  t.Append(20, 10);
  auto before = t.ReadAll();
  ASSERT_OK_AND_ASSIGN(auto update,
                       RowIdUpdate::Make(t.table(), {"pic"}, "db.t", AllowBlobs(6000)));
  const std::vector<int64_t> ids{13, 2, 9, 3, 19};
  ASSERT_OK(update->Add(BlobTable::Updates(ids, /*with_name=*/false)));
  ASSERT_OK_AND_ASSIGN(auto messages, update->Finish(/*threads=*/1));
  ASSERT_EQ(messages.size(), 1u);
  // Only .blob files (no Parquet file: no non-BLOB column), contiguous over [0, 19].
  int64_t next = 0;
  for (const auto& f : messages[0].new_files) {
    ASSERT_TRUE(f.is_blob_file()) << f.file_name;
    EXPECT_EQ(f.write_cols, (std::optional<std::vector<std::string>>{{"pic"}}));
    EXPECT_EQ(f.first_row_id, next);
    next += f.row_count;
  }
  EXPECT_EQ(next, 20);
  EXPECT_GT(messages[0].new_files.size(), 1u);  // rolled at 4 kb
  ASSERT_OK_AND_ASSIGN(auto committed, Committer::Make(t.table()).ValueOrDie()->Commit(messages));
  EXPECT_EQ(committed, 3);

  auto after = t.ReadAll();
  ASSERT_EQ(after.size(), 30u);
  for (int64_t id = 0; id < 30; ++id) {
    const bool updated = std::find(ids.begin(), ids.end(), id) != ids.end();
    std::optional<std::string> want = before[static_cast<size_t>(id)].first;
    if (updated) want = id % 5 == 4 ? std::nullopt : std::optional(Payload(id, "new-"));
    EXPECT_EQ(after[static_cast<size_t>(id)].first, want) << id;
    EXPECT_EQ(after[static_cast<size_t>(id)].second, before[static_cast<size_t>(id)].second);
  }
  // By row id.
  auto snap = t.table()->LatestSnapshot().ValueOrDie();
  auto index = RowIdIndex::Build(t.table(), *snap).ValueOrDie();
  auto read = RowIdRead::Make(t.table(), {"pic"}, index).ValueOrDie();
  arrow::Int64Builder b;
  ASSERT_OK(b.AppendValues({13, 14}));
  auto got = read->Read({b.Finish().ValueOrDie()}).ValueOrDie()->ToTable().ValueOrDie();
  got = got->CombineChunks().ValueOrDie();
  auto pics =
      std::static_pointer_cast<arrow::LargeBinaryArray>(got->GetColumnByName("pic")->chunk(0));
  EXPECT_EQ(pics->GetString(0), Payload(13, "new-"));
  EXPECT_EQ(pics->GetString(1), Payload(14, "old-"));
}

// BLOB and non-BLOB columns of two groups, one updated whole: one message per group with
// its Parquet file first; committed through CommitUpdate.
TEST(BlobUpdateTest, WithANonBlobColumnAcrossGroups) {
  BlobTable t;
  t.Append(0, 8);
  t.Append(8, 8);
  auto before = t.ReadAll();
  ASSERT_OK_AND_ASSIGN(auto update,
                       RowIdUpdate::Make(t.table(), {"pic", "name"}, "db.t", AllowBlobs()));
  std::vector<int64_t> ids{0, 1, 2, 3, 4, 5, 6, 7, 12};
  ASSERT_OK(update->Add(BlobTable::Updates(ids, /*with_name=*/true)));
  ASSERT_OK_AND_ASSIGN(auto outcome, CommitUpdate(update.get(), t.table(), "u"));
  EXPECT_EQ(outcome.num_updated, 9);
  auto after = t.ReadAll();
  for (int64_t id = 0; id < 16; ++id) {
    const bool updated = id < 8 || id == 12;
    auto want = before[static_cast<size_t>(id)];
    if (updated) {
      want = {id % 5 == 4 ? std::nullopt : std::optional(Payload(id, "new-")),
              "new-name-" + std::to_string(id)};
    }
    EXPECT_EQ(after[static_cast<size_t>(id)], want) << id;
  }
}

// A failing group (duplicate ids) deletes the .blob files of every group.
TEST(BlobUpdateTest, FailureLeavesNothing) {
  BlobTable t;
  t.Append(0, 8);
  t.Append(8, 8);
  auto files = t.Files();
  ASSERT_OK_AND_ASSIGN(auto update,
                       RowIdUpdate::Make(t.table(), {"pic", "name"}, "db.t", AllowBlobs(3000)));
  ASSERT_OK(update->Add(BlobTable::Updates({1, 2, 9, 9}, /*with_name=*/true)));
  EXPECT_RAISES(Invalid, update->Finish(/*threads=*/2).status());
  EXPECT_EQ(t.Files(), files);
}

// With a file stem (Ray), UpdateFilePaths names every file the update wrote.
TEST(BlobUpdateTest, FileStemNamesTheBlobFiles) {
  BlobTable t;
  t.Append(0, 12);
  ASSERT_OK_AND_ASSIGN(auto named, t.table()->Copy({{AppendWriter::kFileStemOption, "job7"}}));
  ASSERT_OK_AND_ASSIGN(auto update,
                       RowIdUpdate::Make(named, {"name", "pic"}, "db.t", AllowBlobs()));
  ASSERT_OK(update->Add(BlobTable::Updates({3}, /*with_name=*/true)));
  ASSERT_OK_AND_ASSIGN(auto messages, update->Finish());
  ASSERT_EQ(messages.size(), 1u);
  std::vector<std::string> written;
  for (const auto& f : messages[0].new_files) written.push_back(f.file_name);
  auto snap = t.table()->LatestSnapshot().ValueOrDie();
  auto index = RowIdIndex::Build(t.table(), *snap).ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto paths, UpdateFilePaths(named, {"name", "pic"}, *index, {0}));
  std::vector<std::string> names;
  for (const auto& p : paths) names.push_back(p.substr(p.rfind('/') + 1));
  EXPECT_EQ(names, written);
  EXPECT_GT(names.size(), 2u);
}

}  // namespace
}  // namespace paimon_rowid
