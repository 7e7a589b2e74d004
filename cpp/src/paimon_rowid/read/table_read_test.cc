// The merge reader over tables with BLOB columns in .blob files: rolled files, row ranges,
// predicates, descriptors and the placeholder fallback of blob delta files (docs/format.md §5.3).
#include "paimon_rowid/read/table_read.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "arrow/api.h"
#include "paimon_rowid/catalog/catalog.h"
#include "paimon_rowid/codec/blob_file.h"
#include "paimon_rowid/commit/committer.h"
#include "paimon_rowid/read/group_plan.h"
#include "paimon_rowid/scan/plan.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"
#include "paimon_rowid/write/append_writer.h"

namespace paimon_rowid {
namespace {

constexpr int kRows = 60;

std::optional<std::string> Pic(int i) {
  if (i % 5 == 0) return std::nullopt;
  return std::string(static_cast<size_t>(i * 37 % 300), static_cast<char>('a' + i % 26));
}
std::optional<std::string> Doc(int i) {
  if (i % 7 == 0) return std::string();
  return "doc-" + std::to_string(i);
}

class BlobReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog_ = Catalog::Make({{"warehouse", dir_.path()}}).ValueOrDie();
    ASSERT_OK(catalog_->CreateDatabase("db", false));
    TableSchema schema;
    schema.fields = AssignFieldIds({
        DataField{-1, "id", DataType::Atomic(TypeRoot::kBigInt, false)},
        DataField{-1, "pic", DataType::Atomic(TypeRoot::kBlob)},
        DataField{-1, "doc", DataType::Atomic(TypeRoot::kBlob)},
    });
    schema.options = {{"row-tracking.enabled", "true"},
                      {"data-evolution.enabled", "true"},
                      {"blob.target-file-size", "1000"}};
    Status st = catalog_->CreateTable("db.t", schema, false);
    ASSERT_OK(st);
    table_ = catalog_->GetTable("db.t").ValueOrDie();

    arrow::Int64Builder ids;
    arrow::LargeBinaryBuilder pics, docs;
    for (int i = 0; i < kRows; ++i) {
      ASSERT_OK(ids.Append(i));
      auto p = Pic(i);
      ASSERT_OK(p ? pics.Append(*p) : pics.AppendNull());
      ASSERT_OK(docs.Append(*Doc(i)));
    }
    auto batch = arrow::RecordBatch::Make(
        arrow::schema({arrow::field("id", arrow::int64(), false),
                       arrow::field("pic", arrow::large_binary()),
                       arrow::field("doc", arrow::large_binary())}),
        kRows, {ids.Finish().ValueOrDie(), pics.Finish().ValueOrDie(), docs.Finish().ValueOrDie()});
    auto writer = AppendWriter::Make(table_).ValueOrDie();
    ASSERT_OK(writer->Write(batch));
    messages_ = writer->PrepareCommit().ValueOrDie();
    auto committer = Committer::Make(table_).ValueOrDie();
    auto id = committer->Commit(messages_);
    ASSERT_OK(id);
  }

  std::shared_ptr<arrow::Table> Read(std::shared_ptr<const Table> table,
                                     std::vector<std::string> fields,
                                     std::optional<std::vector<RowRange>> ranges = std::nullopt,
                                     std::shared_ptr<Predicate> predicate = nullptr,
                                     std::optional<int64_t> limit = std::nullopt) {
    ScanPlanner planner(table);
    if (ranges) planner.WithRowRanges(*ranges);
    auto plan = planner.Plan().ValueOrDie();
    ReadOptions opts;
    opts.fields = std::move(fields);
    opts.predicate = std::move(predicate);
    opts.limit = limit;
    auto read = TableRead::Make(table, opts);
    EXPECT_OK(read);
    auto reader = (*read)->Read(plan.splits).ValueOrDie();
    auto out = reader->ToTable();
    EXPECT_OK(out);
    return out.ValueOrDie()->CombineChunks().ValueOrDie();
  }

  static std::optional<std::string> Value(const std::shared_ptr<arrow::Table>& t,
                                          const std::string& name, int64_t row) {
    auto arr =
        std::static_pointer_cast<arrow::LargeBinaryArray>(t->GetColumnByName(name)->chunk(0));
    if (arr->IsNull(row)) return std::nullopt;
    return std::string(arr->GetView(row));
  }
  static int64_t Id(const std::shared_ptr<arrow::Table>& t, int64_t row) {
    return std::static_pointer_cast<arrow::Int64Array>(t->GetColumnByName("_ROW_ID")->chunk(0))
        ->Value(row);
  }

  testing::TempDir dir_;
  std::shared_ptr<Catalog> catalog_;
  std::shared_ptr<Table> table_;
  std::vector<CommitMessage> messages_;
};

TEST_F(BlobReadTest, WriterRollsBlobFilesAfterTheirDataFile) {
  ASSERT_EQ(messages_.size(), 1u);
  const auto& files = messages_[0].new_files;
  ASSERT_GT(files.size(), 3u);
  EXPECT_FALSE(files[0].is_blob_file());
  EXPECT_EQ(files[0].write_cols, (std::vector<std::string>{"id"}));
  int64_t pic_rows = 0, doc_rows = 0, pic_files = 0;
  for (size_t i = 1; i < files.size(); ++i) {
    ASSERT_TRUE(files[i].is_blob_file());
    ASSERT_TRUE(files[i].write_cols && files[i].write_cols->size() == 1);
    EXPECT_EQ(files[i].min_sequence_number, 0);
    EXPECT_EQ(files[i].value_stats_cols, std::vector<std::string>{});
    if (files[i].write_cols->front() == "pic") {
      pic_rows += files[i].row_count;
      ++pic_files;
    } else {
      doc_rows += files[i].row_count;
    }
  }
  EXPECT_EQ(pic_rows, kRows);
  EXPECT_EQ(doc_rows, kRows);
  EXPECT_GT(pic_files, 2);
}

TEST_F(BlobReadTest, FullRangeAndPredicateReads) {
  auto all = Read(table_, {"id", "pic", "doc", "_ROW_ID"});
  ASSERT_EQ(all->num_rows(), kRows);
  for (int i = 0; i < kRows; ++i) {
    EXPECT_EQ(Value(all, "pic", i), Pic(i)) << i;
    EXPECT_EQ(Value(all, "doc", i), Doc(i)) << i;
  }
  auto ranged = Read(table_, {"pic", "_ROW_ID"}, std::vector<RowRange>{{3, 7}, {41, 44}});
  ASSERT_EQ(ranged->num_rows(), 9);
  for (int64_t r = 0; r < ranged->num_rows(); ++r) {
    EXPECT_EQ(Value(ranged, "pic", r), Pic(static_cast<int>(Id(ranged, r))));
  }
  auto literal = arrow::MakeArrayFromScalar(arrow::Int64Scalar(50), 1).ValueOrDie();
  auto pred = Predicate::Leaf(Predicate::Op::kGreaterOrEqual, "id", literal).ValueOrDie();
  auto filtered = Read(table_, {"doc", "_ROW_ID"}, std::nullopt, pred);
  ASSERT_EQ(filtered->num_rows(), kRows - 50);
  for (int64_t r = 0; r < filtered->num_rows(); ++r) {
    EXPECT_EQ(Value(filtered, "doc", r), Doc(static_cast<int>(Id(filtered, r))));
  }
  auto null_pred = Predicate::Leaf(Predicate::Op::kIsNull, "pic", nullptr).ValueOrDie();
  auto nulls = Read(table_, {"pic", "_ROW_ID"}, std::nullopt, null_pred);
  EXPECT_EQ(nulls->num_rows(), kRows / 5);
  auto limited = Read(table_, {"pic", "_ROW_ID"}, std::nullopt, nullptr, 4);
  EXPECT_EQ(limited->num_rows(), 4);
}

TEST_F(BlobReadTest, DescriptorsPointAtThePayloads) {
  auto table = table_->Copy({{"blob-as-descriptor", "true"}}).ValueOrDie();
  auto all = Read(table, {"pic", "_ROW_ID"});
  ASSERT_EQ(all->num_rows(), kRows);
  for (int i = 0; i < kRows; ++i) {
    auto bytes = Value(all, "pic", i);
    ASSERT_EQ(bytes.has_value(), Pic(i).has_value());
    if (!bytes) continue;
    auto d = BlobDescriptor::Deserialize(*bytes).ValueOrDie();
    EXPECT_TRUE(d.uri.ends_with(".blob"));
    auto input = table->file_io()->OpenInput(d.uri).ValueOrDie();
    auto payload = input->ReadAt(d.offset, d.length).ValueOrDie();
    EXPECT_EQ(payload->ToString(), *Pic(i));
  }
}

TEST_F(BlobReadTest, BlobDeltaFilesFallBackOnPlaceholders) {
  // A blob update of rows 0..9 (pypaimon's blob delta file): row 2 new, row 5 set to NULL,
  // the rest placeholders that fall back to the original files.
  std::string name = "data-delta-0.blob";
  std::string dir = table_->BucketPath("", 0);
  {
    auto sink = table_->file_io()->OpenOutput(dir + "/" + name).ValueOrDie();
    BlobFileWriter w(sink);
    for (int i = 0; i < 10; ++i) {
      if (i == 2) {
        ASSERT_OK(w.AddValue("new-2"));
      } else if (i == 5) {
        w.AddNull();
      } else {
        w.AddPlaceholder();
      }
    }
    ASSERT_OK(w.Close());
  }
  DataFileMeta meta = messages_[0].new_files[1];
  meta.file_name = name;
  meta.file_size = table_->file_io()->FileSize(dir + "/" + name).ValueOrDie();
  meta.row_count = 10;
  meta.first_row_id = 0;
  meta.min_sequence_number = meta.max_sequence_number = 0;
  meta.write_cols = std::vector<std::string>{"pic"};
  CommitMessage msg;
  msg.partition = messages_[0].partition;
  msg.new_files = {meta};
  msg.check_from_snapshot = 1;
  auto committer = Committer::Make(table_).ValueOrDie();
  auto id = committer->Commit({msg});
  ASSERT_OK(id);

  auto all = Read(table_, {"pic", "doc", "_ROW_ID"});
  ASSERT_EQ(all->num_rows(), kRows);
  for (int i = 0; i < kRows; ++i) {
    std::optional<std::string> want = Pic(i);
    if (i == 2) want = "new-2";
    if (i == 5) want = std::nullopt;
    EXPECT_EQ(Value(all, "pic", i), want) << i;
    EXPECT_EQ(Value(all, "doc", i), Doc(i)) << i;
  }
  auto some = Read(table_, {"pic", "_ROW_ID"}, std::vector<RowRange>{{2, 3}});
  ASSERT_EQ(some->num_rows(), 2);
  EXPECT_EQ(Value(some, "pic", 0), "new-2");
  EXPECT_EQ(Value(some, "pic", 1), Pic(3));
}

TEST_F(BlobReadTest, ManifestRowCountMismatchIsIOError) {
  // Truncate one blob file: its index no longer matches.
  for (const auto& f : messages_[0].new_files) {
    if (!f.is_blob_file()) continue;
    std::filesystem::resize_file(table_->BucketPath("", 0) + "/" + f.file_name, 3);
    break;
  }
  auto plan = ScanPlanner(table_).Plan().ValueOrDie();
  ReadOptions opts;
  opts.fields = {"pic", "doc"};
  auto read = TableRead::Make(table_, opts).ValueOrDie();
  auto reader = read->Read(plan.splits).ValueOrDie();
  auto out = reader->ToTable();
  EXPECT_TRUE(out.status().IsIOError()) << out.status().ToString();
}

// ---------------------------------------------------------------- parallel group reads

TEST(TableReadThreadsTest, ParallelReadsKeepSplitOrderAndMatchSequentialOnes) {
  testing::TempDir dir;
  auto catalog = Catalog::Make({{"warehouse", dir.path()}}).ValueOrDie();
  ASSERT_OK(catalog->CreateDatabase("db", false));
  TableSchema schema;
  schema.fields = AssignFieldIds({DataField{-1, "id", DataType::Atomic(TypeRoot::kBigInt)},
                                  DataField{-1, "y", DataType::Atomic(TypeRoot::kInt)}});
  schema.options = {{"row-tracking.enabled", "true"}, {"data-evolution.enabled", "true"}};
  ASSERT_OK(catalog->CreateTable("db.t", schema, false));
  constexpr int kCommits = 7, kRows = 300;
  for (int c = 0; c < kCommits; ++c) {  // one file group per commit
    auto table = catalog->GetTable("db.t").ValueOrDie();
    arrow::Int64Builder ids;
    arrow::Int32Builder ys;
    for (int i = 0; i < kRows; ++i) {
      ASSERT_OK(ids.Append(c * kRows + i));
      ASSERT_OK(ys.Append((c * kRows + i) * 7919 % 1000));
    }
    auto batch = arrow::RecordBatch::Make(
        arrow::schema({arrow::field("id", arrow::int64()), arrow::field("y", arrow::int32())}),
        kRows, {ids.Finish().ValueOrDie(), ys.Finish().ValueOrDie()});
    auto writer = AppendWriter::Make(table).ValueOrDie();
    ASSERT_OK(writer->Write(batch));
    ASSERT_OK(Committer::Make(table).ValueOrDie()->Commit(writer->PrepareCommit().ValueOrDie()));
  }
  auto table = catalog->GetTable("db.t").ValueOrDie();
  auto literal = arrow::MakeArrayFromScalar(arrow::Int32Scalar(100), 1).ValueOrDie();
  auto few = Predicate::Leaf(Predicate::Op::kLessThan, "y", literal).ValueOrDie();
  for (const auto& predicate : {std::shared_ptr<Predicate>(), few}) {
    auto plan = ScanPlanner(table).Plan().ValueOrDie();
    ASSERT_EQ(plan.splits.size() == 1 ? plan.splits[0].groups.size() : 0u, size_t{kCommits});
    std::shared_ptr<arrow::Table> results[2];
    for (int threads : {1, 3}) {
      ReadOptions opts;
      opts.fields = {"id", "y", "_ROW_ID"};
      opts.predicate = predicate;
      opts.threads = threads;
      auto read = TableRead::Make(table, opts).ValueOrDie();
      results[threads == 1 ? 0 : 1] = read->Read(plan.splits).ValueOrDie()->ToTable().ValueOrDie();
    }
    EXPECT_TRUE(results[0]->Equals(*results[1]));
    int64_t expected = 0;
    for (int64_t id = 0; id < kCommits * kRows; ++id) {
      expected += predicate == nullptr || id * 7919 % 1000 < 100;
    }
    EXPECT_EQ(results[0]->num_rows(), expected);
    auto ids = results[1]->GetColumnByName("id")->chunks();
    int64_t previous = -1;
    for (const auto& chunk : ids) {
      auto values = std::static_pointer_cast<arrow::Int64Array>(chunk);
      for (int64_t i = 0; i < values->length(); ++i) {
        EXPECT_GT(values->Value(i), previous);
        previous = values->Value(i);
      }
    }
  }
}

// ---------------------------------------------------------------- PlanGroupRead (pure)

class GroupPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Schema 0: id, name; schema 1 adds `pic` (BLOB) and renames name -> title.
    auto s0 = std::make_shared<TableSchema>();
    s0->id = 0;
    s0->fields = {DataField{0, "id", DataType::Atomic(TypeRoot::kBigInt, false)},
                  DataField{1, "name", DataType::Atomic(TypeRoot::kVarChar)},
                  DataField{2, "pt", DataType::Atomic(TypeRoot::kVarChar)}};
    s0->partition_keys = {"pt"};
    auto s1 = std::make_shared<TableSchema>(*s0);
    s1->id = 1;
    s1->fields[1].name = "title";
    s1->fields.push_back(DataField{3, "pic", DataType::Atomic(TypeRoot::kBlob)});
    schemas_ = {{0, s0}, {1, s1}};
    table_schema_ = *s1;
  }

  static DataFileMeta File(std::string name, int64_t first, int64_t rows, int64_t seq,
                           int64_t schema_id,
                           std::optional<std::vector<std::string>> write_cols = std::nullopt) {
    DataFileMeta f;
    f.file_name = std::move(name);
    f.first_row_id = first;
    f.row_count = rows;
    f.max_sequence_number = seq;
    f.schema_id = schema_id;
    f.write_cols = std::move(write_cols);
    return f;
  }

  SchemaLookup Lookup() {
    return [this](int64_t id) -> Result<std::shared_ptr<const TableSchema>> {
      ++lookups_;
      auto it = schemas_.find(id);
      if (it == schemas_.end()) return Status::KeyError("schema ", id);
      return it->second;
    };
  }

  std::map<int64_t, std::shared_ptr<const TableSchema>> schemas_;
  TableSchema table_schema_;
  int lookups_ = 0;
};

TEST_F(GroupPlanTest, NewestFileWinsEachColumnByFieldId) {
  // The base file (schema 0) wrote every column; a later partial update (schema 1) wrote
  // `title` only. `title` must come from the update, `id` from the base.
  FileGroup group = {File("base.parquet", 100, 10, 1, 0),
                     File("update.parquet", 100, 10, 5, 1, std::vector<std::string>{"title"})};
  auto plan =
      PlanGroupRead(table_schema_, {"id", "title", "pt", "_ROW_ID"}, group, std::nullopt, Lookup());
  ASSERT_OK(plan);
  ASSERT_TRUE(plan->has_value());
  const GroupReadPlan& p = **plan;
  EXPECT_EQ(p.range.from, 100);
  EXPECT_EQ(p.range.to, 109);
  EXPECT_EQ(p.num_rows, 10);
  ASSERT_EQ(p.selection.size(), 1u);
  EXPECT_EQ(p.selection[0].from, 0);
  EXPECT_EQ(p.selection[0].to, 9);
  ASSERT_EQ(p.normal.size(), 2u);
  EXPECT_EQ(p.normal[0]->file_name, "update.parquet");  // newest first
  ASSERT_EQ(p.supplies.size(), 2u);
  EXPECT_EQ(p.supplies[0].file->file_name, "update.parquet");
  EXPECT_EQ(p.supplies[0].columns,
            (std::vector<std::pair<std::string, std::string>>{{"title", "title"}}));
  EXPECT_EQ(p.supplies[1].file->file_name, "base.parquet");
  // The base file stores `title` under its old name; only `id` is left for it. Partition
  // and system columns are never read from files.
  EXPECT_EQ(p.supplies[1].columns,
            (std::vector<std::pair<std::string, std::string>>{{"id", "id"}}));
  EXPECT_TRUE(p.blob_files.empty());
}

TEST_F(GroupPlanTest, RenamedColumnIsReadUnderItsOldName) {
  FileGroup group = {File("base.parquet", 0, 4, 1, 0)};
  auto plan = PlanGroupRead(table_schema_, {"title"}, group, std::nullopt, Lookup());
  ASSERT_OK(plan);
  ASSERT_EQ((*plan)->supplies.size(), 1u);
  EXPECT_EQ((*plan)->supplies[0].columns,
            (std::vector<std::pair<std::string, std::string>>{{"title", "name"}}));
}

TEST_F(GroupPlanTest, RowRangesSelectGroupRelativePositions) {
  FileGroup group = {File("base.parquet", 100, 10, 1, 0)};
  std::vector<RowRange> ranges = {{90, 101}, {105, 105}, {200, 300}};
  auto plan = PlanGroupRead(table_schema_, {"id"}, group, ranges, Lookup());
  ASSERT_OK(plan);
  const GroupReadPlan& p = **plan;
  ASSERT_EQ(p.selection.size(), 2u);
  EXPECT_EQ(p.selection[0].from, 0);
  EXPECT_EQ(p.selection[0].to, 1);
  EXPECT_EQ(p.selection[1].from, 5);
  EXPECT_EQ(p.selection[1].to, 5);
  EXPECT_EQ(p.num_rows, 3);
}

TEST_F(GroupPlanTest, NoSelectedRowMeansNoPlanAndNoSchemaLookup) {
  FileGroup group = {File("base.parquet", 100, 10, 1, 0)};
  std::vector<RowRange> ranges = {{0, 99}};
  auto plan = PlanGroupRead(table_schema_, {"id"}, group, ranges, Lookup());
  ASSERT_OK(plan);
  EXPECT_FALSE(plan->has_value());
  EXPECT_EQ(lookups_, 0);
}

TEST_F(GroupPlanTest, MisalignedNormalFilesAreInvalid) {
  FileGroup group = {File("a.parquet", 0, 10, 1, 0), File("b.parquet", 5, 10, 2, 0)};
  auto plan = PlanGroupRead(table_schema_, {"id"}, group, std::nullopt, Lookup());
  ASSERT_FALSE(plan.ok());
  EXPECT_TRUE(plan.status().IsInvalid());
  EXPECT_NE(plan.status().message().find("must cover the same row ids"), std::string::npos);
}

TEST_F(GroupPlanTest, BlobColumnComesFromBlobFilesOfItsField) {
  FileGroup group = {File("base.parquet", 0, 4, 1, 1, std::vector<std::string>{"id", "title"}),
                     File("p-0.blob", 0, 2, 1, 1, std::vector<std::string>{"pic"}),
                     File("p-1.blob", 2, 2, 1, 1, std::vector<std::string>{"pic"})};
  auto plan = PlanGroupRead(table_schema_, {"id", "pic"}, group, std::nullopt, Lookup());
  ASSERT_OK(plan);
  const GroupReadPlan& p = **plan;
  EXPECT_EQ(p.range.to, 3);  // .blob files do not widen the group's range
  ASSERT_EQ(p.normal.size(), 1u);
  ASSERT_EQ(p.blob_files.count("pic"), 1u);
  ASSERT_EQ(p.blob_files.at("pic").size(), 2u);
  EXPECT_EQ(p.blob_files.at("pic")[1]->file_name, "p-1.blob");
}

TEST_F(GroupPlanTest, SchemaLookupErrorsPropagate) {
  FileGroup group = {File("base.parquet", 0, 4, 1, 7)};
  auto plan = PlanGroupRead(table_schema_, {"id"}, group, std::nullopt, Lookup());
  ASSERT_FALSE(plan.ok());
  EXPECT_TRUE(plan.status().IsKeyError());
}

}  // namespace
}  // namespace paimon_rowid
