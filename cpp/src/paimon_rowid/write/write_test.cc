#include <gtest/gtest.h>

#include <numeric>

#include "arrow/api.h"
#include "paimon_rowid/catalog/bucket_spec.h"
#include "paimon_rowid/catalog/schema_validation.h"
#include "paimon_rowid/codec/binary_row.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

using testing::DeOptions;
using testing::WriteFixture;

std::vector<int64_t> Iota(int64_t start, int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(AppendWriterTest, RoundTripAssignsRowIdsAndSequenceNumbers) {
  WriteFixture fx;
  EXPECT_EQ(fx.Append(WriteFixture::Batch(0, 100)), 1);
  EXPECT_EQ(fx.Append(WriteFixture::Batch(100, 50)), 2);
  auto t = fx.ReadAll({"id", "name", "_ROW_ID", "_SEQUENCE_NUMBER"});
  ASSERT_EQ(t->num_rows(), 150);
  EXPECT_EQ(WriteFixture::Int64s(t, "id"), Iota(0, 150));
  EXPECT_EQ(WriteFixture::Int64s(t, "_ROW_ID"), Iota(0, 150));
  auto seq = WriteFixture::Int64s(t, "_SEQUENCE_NUMBER");
  for (int64_t i = 0; i < 150; ++i) EXPECT_EQ(seq[i], i < 100 ? 1 : 2);
  ASSERT_OK_AND_ASSIGN(auto snap, fx.table()->LatestSnapshot());
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->id, 2);
  EXPECT_EQ(snap->next_row_id, 150);
  EXPECT_EQ(snap->total_record_count, 150);
  EXPECT_EQ(snap->delta_record_count, 50);
  EXPECT_EQ(snap->writer_version, std::string(kWriterVersion));
  EXPECT_EQ(snap->commit_kind, "APPEND");
  EXPECT_TRUE(snap->base_manifest_list_size.has_value());
}

TEST(AppendWriterTest, FileMetaHasEveryField) {
  WriteFixture fx;
  auto msgs = fx.WriteMessages(WriteFixture::Batch(0, 10));
  ASSERT_EQ(msgs.size(), 1u);
  ASSERT_EQ(msgs[0].new_files.size(), 1u);
  const DataFileMeta& f = msgs[0].new_files[0];
  EXPECT_EQ(f.file_name.rfind("data-", 0), 0u);
  EXPECT_NE(f.file_name.find(".parquet"), std::string::npos);
  EXPECT_EQ(f.row_count, 10);
  EXPECT_GT(f.file_size, 0);
  EXPECT_EQ(f.min_sequence_number, 0);
  EXPECT_EQ(f.max_sequence_number, 0);
  EXPECT_EQ(f.file_source, 0);
  EXPECT_FALSE(f.first_row_id);
  EXPECT_FALSE(f.write_cols);
  EXPECT_EQ(f.delete_row_count, 0);
  ASSERT_TRUE(f.creation_time_millis);
  ASSERT_TRUE(f.value_stats_cols);
  EXPECT_EQ(*f.value_stats_cols, (std::vector<std::string>{"id", "name", "dt"}));
  ASSERT_TRUE(f.value_stats.null_counts);
  EXPECT_EQ(f.value_stats.null_counts->size(), 3u);
  EXPECT_EQ(f.min_key, EmptySerializedBinaryRow());
  EXPECT_EQ(msgs[0].bucket, 0);
  EXPECT_EQ(msgs[0].total_buckets, -1);
  // Serialization round trip.
  ASSERT_OK_AND_ASSIGN(auto bytes, msgs[0].Serialize());
  ASSERT_OK_AND_ASSIGN(auto back, CommitMessage::Deserialize(bytes));
  EXPECT_EQ(back.partition, msgs[0].partition);
  ASSERT_EQ(back.new_files.size(), 1u);
  EXPECT_EQ(back.new_files[0].file_name, f.file_name);
  EXPECT_EQ(back.new_files[0].value_stats.min_values, f.value_stats.min_values);
  EXPECT_FALSE(CommitMessage::Deserialize("garbage").ok());
  ASSERT_TRUE(fx.WriteMessages(WriteFixture::Batch(0, 1)).size() == 1);
}

TEST(AppendWriterTest, RollsAtTargetFileSize) {
  WriteFixture fx(DeOptions({{"target-file-size", "32 kb"}}));
  auto msgs = fx.WriteMessages(WriteFixture::Batch(0, 50000));
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_GT(msgs[0].new_files.size(), 3u);
  int64_t rows = 0;
  for (const auto& f : msgs[0].new_files) {
    rows += f.row_count;
    EXPECT_LT(f.file_size, 3 * 32 * 1024) << f.file_name;
  }
  EXPECT_EQ(rows, 50000);
  ASSERT_OK_AND_ASSIGN(auto committer, Committer::Make(fx.table()));
  ASSERT_EQ(committer->Commit(msgs).ValueOrDie(), 1);
  auto t = fx.ReadAll({"id", "_ROW_ID"});
  EXPECT_EQ(WriteFixture::Int64s(t, "id"), Iota(0, 50000));
  EXPECT_EQ(WriteFixture::Int64s(t, "_ROW_ID"), Iota(0, 50000));
}

// A writer that encodes on the caller's thread alone (an update's group tasks) writes the
// same bytes and stats as one encoding columns on parallel threads.
TEST(AppendWriterTest, SequentialEncodingWritesTheSameFile) {
  auto batch = WriteFixture::Batch(0, 200000);  // several of the writer's 64Ki-row chunks
  std::vector<DataFileMeta> metas;
  std::vector<std::string> bytes;
  for (bool parallel : {true, false}) {
    WriteFixture fx;
    AppendWriterOptions options;
    options.parallel = parallel;
    ASSERT_OK_AND_ASSIGN(auto writer, AppendWriter::Make(fx.table(), std::nullopt, options));
    ASSERT_OK(writer->Write(batch));
    ASSERT_OK_AND_ASSIGN(auto msgs, writer->PrepareCommit());
    ASSERT_EQ(msgs.size(), 1u);
    ASSERT_EQ(msgs[0].new_files.size(), 1u);
    DataFileMeta meta = msgs[0].new_files[0];
    ASSERT_OK_AND_ASSIGN(auto data, fx.table()->file_io()->ReadFile(fx.table_path() + "/bucket-0/" +
                                                                    meta.file_name));
    bytes.push_back(data->ToString());
    meta.file_name.clear();  // random per writer
    meta.creation_time_millis.reset();
    metas.push_back(meta);
    ASSERT_OK_AND_ASSIGN(auto committer, Committer::Make(fx.table()));
    ASSERT_OK(committer->Commit(msgs).status());
    EXPECT_EQ(WriteFixture::Int64s(fx.ReadAll({"id"}), "id"), Iota(0, 200000));
  }
  EXPECT_TRUE(metas[0] == metas[1]);
  EXPECT_EQ(metas[0].value_stats, metas[1].value_stats);
  EXPECT_TRUE(bytes[0] == bytes[1]);
}

TEST(AppendWriterTest, RoutesPartitionsWithJavaPaths) {
  WriteFixture fx(DeOptions(), {"dt"});
  auto batch = WriteFixture::Batch(0, 30, {"a", "b/c", "d"});
  auto msgs = fx.WriteMessages(batch);
  ASSERT_EQ(msgs.size(), 3u);
  ASSERT_OK_AND_ASSIGN(auto committer, Committer::Make(fx.table()));
  ASSERT_EQ(committer->Commit(msgs).ValueOrDie(), 1);
  auto files = WriteFixture::Files(fx.table_path());
  int in_escaped = 0;
  for (const auto& f : files) {
    if (f.rfind("dt=b%2Fc/bucket-0/data-", 0) == 0) ++in_escaped;
  }
  EXPECT_EQ(in_escaped, 1);
  auto t = fx.ReadAll({"id", "dt", "_ROW_ID"});
  ASSERT_EQ(t->num_rows(), 30);
  // Row ids are contiguous per partition (grouped on commit) and cover 0..29.
  auto ids = WriteFixture::Int64s(t, "_ROW_ID");
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, Iota(0, 30));
  ASSERT_OK_AND_ASSIGN(auto snap, fx.table()->LatestSnapshot());
  EXPECT_EQ(snap->next_row_id, 30);
}

TEST(AppendWriterTest, CastsInputAndAcceptsAnyColumnOrder) {
  WriteFixture fx;
  arrow::Int32Builder ids;
  arrow::StringBuilder names;
  ASSERT_OK(ids.AppendValues({1, 2, 3}));
  ASSERT_OK(names.AppendValues({"x", "y", "z"}));
  arrow::StringBuilder dts;
  ASSERT_OK(dts.AppendValues({"a", "a", "a"}));
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("name", arrow::utf8()), arrow::field("dt", arrow::utf8()),
                     arrow::field("id", arrow::int32())}),
      3, {names.Finish().ValueOrDie(), dts.Finish().ValueOrDie(), ids.Finish().ValueOrDie()});
  EXPECT_EQ(fx.Append(batch), 1);
  auto t = fx.ReadAll({"id", "name"});
  EXPECT_EQ(WriteFixture::Int64s(t, "id"), (std::vector<int64_t>{1, 2, 3}));
}

// Every error leaves no file behind and fails the writer.
TEST(AppendWriterTest, BadInputWritesNothing) {
  WriteFixture fx;
  auto expect_clean_failure = [&](const std::shared_ptr<arrow::RecordBatch>& bad,
                                  arrow::StatusCode code) {
    auto writer = AppendWriter::Make(fx.table()).ValueOrDie();
    ASSERT_OK(writer->Write(WriteFixture::Batch(0, 1000)));
    Status st = writer->Write(bad);
    EXPECT_EQ(st.code(), code) << st.ToString();
    EXPECT_TRUE(WriteFixture::Files(fx.table_path() + "/bucket-0").empty());
    EXPECT_FALSE(writer->PrepareCommit().ok());
  };
  auto good = WriteFixture::Batch(0, 3);
  // Missing column.
  expect_clean_failure(good->RemoveColumn(1).ValueOrDie(), arrow::StatusCode::Invalid);
  // Uncastable column.
  arrow::ListBuilder lb(arrow::default_memory_pool(), std::make_shared<arrow::Int64Builder>());
  for (int i = 0; i < 3; ++i) ASSERT_OK(lb.Append());
  ASSERT_OK_AND_ASSIGN(auto list, lb.Finish());
  expect_clean_failure(good->SetColumn(0, arrow::field("id", list->type()), list).ValueOrDie(),
                       arrow::StatusCode::TypeError);
  // Null in a NOT NULL column.
  arrow::Int64Builder nb;
  ASSERT_OK(nb.AppendValues({1}));
  ASSERT_OK(nb.AppendNull());
  ASSERT_OK(nb.AppendValues({3}));
  ASSERT_OK_AND_ASSIGN(auto nulls, nb.Finish());
  expect_clean_failure(good->SetColumn(0, arrow::field("id", arrow::int64()), nulls).ValueOrDie(),
                       arrow::StatusCode::Invalid);
  // Unknown column.
  expect_clean_failure(
      good->AddColumn(3, arrow::field("extra", arrow::int64()), good->column(0)).ValueOrDie(),
      arrow::StatusCode::Invalid);
  EXPECT_FALSE(fx.table()->LatestSnapshot().ValueOrDie());
}

TEST(AppendWriterTest, PartialColumnWrite) {
  WriteFixture fx;
  auto batch = WriteFixture::Batch(0, 5);
  auto partial = arrow::RecordBatch::Make(
      arrow::schema({batch->schema()->field(0), batch->schema()->field(2)}), 5,
      {batch->column(0), batch->column(2)});
  auto msgs = fx.WriteMessages(partial, std::vector<std::string>{"id", "dt"});
  ASSERT_EQ(msgs.size(), 1u);
  ASSERT_TRUE(msgs[0].new_files[0].write_cols);
  EXPECT_EQ(*msgs[0].new_files[0].write_cols, (std::vector<std::string>{"id", "dt"}));
  ASSERT_OK_AND_ASSIGN(auto committer, Committer::Make(fx.table()));
  ASSERT_EQ(committer->Commit(msgs).ValueOrDie(), 1);
  auto t = fx.ReadAll({"id", "name", "_ROW_ID"});
  EXPECT_EQ(WriteFixture::Int64s(t, "_ROW_ID"), Iota(0, 5));
  EXPECT_EQ(t->GetColumnByName("name")->null_count(), 5);
  // A full-row write type in table order is a full-row write.
  auto full = fx.WriteMessages(batch, std::vector<std::string>{"id", "name", "dt"});
  EXPECT_FALSE(full[0].new_files[0].write_cols);
}

TEST(SchemaValidationTest, RowTrackingRules) {
  TableSchema s;
  s.fields = AssignFieldIds({DataField{-1, "id", DataType::Atomic(TypeRoot::kBigInt)}});
  s.options = DeOptions();
  EXPECT_OK(ValidateTableSchema(s));
  s.options["bucket"] = "2";
  EXPECT_RAISES(Invalid, ValidateTableSchema(s));
  s.options["bucket"] = "-1";
  EXPECT_OK(ValidateTableSchema(s));
  s.options["row-tracking.enabled"] = "false";
  EXPECT_RAISES(Invalid, ValidateTableSchema(s));  // DE needs row tracking
  s.options = DeOptions();
  s.primary_keys = {"id"};
  EXPECT_FALSE(ValidateTableSchema(s).ok());
  s.primary_keys.clear();
  s.fields.push_back(DataField{1, "_ROW_ID", DataType::Atomic(TypeRoot::kBigInt)});
  EXPECT_RAISES(Invalid, ValidateTableSchema(s));
  s.fields.pop_back();
  s.fields.push_back(DataField{1, "pic", DataType::Atomic(TypeRoot::kBlob)});
  EXPECT_OK(ValidateTableSchema(s));
  s.options.erase("data-evolution.enabled");
  EXPECT_RAISES(Invalid, ValidateTableSchema(s));  // BLOB needs both options
}

TEST(SchemaValidationTest, FixedBucketRules) {
  TableSchema s;
  s.fields = AssignFieldIds({DataField{-1, "id", DataType::Atomic(TypeRoot::kBigInt)},
                             DataField{-1, "dt", DataType::Atomic(TypeRoot::kInt)}});
  s.partition_keys = {"dt"};
  s.options = {{"bucket", "4"}, {"bucket-key", "id"}};
  EXPECT_OK(ValidateTableSchema(s));
  s.options = {{"bucket", "4"}};
  EXPECT_RAISES(Invalid, ValidateTableSchema(s));  // no bucket key
  s.options = {{"bucket", "-1"}, {"bucket-key", "id"}};
  EXPECT_RAISES(Invalid, ValidateTableSchema(s));  // bucket key without buckets
  s.options = {{"bucket", "0"}, {"bucket-key", "id"}};
  EXPECT_RAISES(Invalid, ValidateTableSchema(s));
  s.options = {{"bucket", "-2"}};
  EXPECT_RAISES(NotImplemented, ValidateTableSchema(s));  // postpone
  s.options = {{"bucket", "4"}, {"bucket-key", "nope"}};
  EXPECT_RAISES(Invalid, ValidateTableSchema(s));
  s.options = {{"bucket", "4"}, {"bucket-key", "dt"}};
  EXPECT_RAISES(Invalid, ValidateTableSchema(s));  // a partition key
  s.options = {{"bucket", "4"}, {"bucket-key", "id"}, {"bucket-function.type", "mod"}};
  EXPECT_OK(ValidateTableSchema(s));
  s.options["bucket-function.type"] = "crc";
  EXPECT_RAISES(Invalid, ValidateTableSchema(s));
}

// Rows land in bucket-<n>/ of their partition as the bucket function says, every file's
// message carries its bucket and the bucket count, and the table reads back whole.
TEST(AppendWriterTest, RoutesFixedBuckets) {
  WriteFixture fx({{"bucket", "3"}, {"bucket-key", "id"}}, {"dt"});
  auto batch = WriteFixture::Batch(0, 300, {"a", "b"});
  auto msgs = fx.WriteMessages(batch);
  ASSERT_EQ(msgs.size(), 6u);  // 2 partitions x 3 buckets
  ASSERT_OK_AND_ASSIGN(auto spec, BucketSpec::Of(fx.table()->schema()));
  ASSERT_OK_AND_ASSIGN(auto expected, spec.function->Buckets({batch->column(0)}, 3));
  ASSERT_OK_AND_ASSIGN(auto committer, Committer::Make(fx.table()));
  ASSERT_OK(committer->Commit(msgs).status());
  ASSERT_OK_AND_ASSIGN(auto plan, ScanPlanner(fx.table()).Plan());
  ReadOptions opts;
  opts.fields = {"id"};
  ASSERT_OK_AND_ASSIGN(auto read, TableRead::Make(fx.table(), opts));
  int64_t rows = 0;
  for (const auto& split : plan.splits) {
    EXPECT_NE(split.bucket_dir.find("/bucket-" + std::to_string(split.bucket)), std::string::npos);
    ASSERT_OK_AND_ASSIGN(auto reader, read->Read({split}));
    ASSERT_OK_AND_ASSIGN(auto t, reader->ToTable());
    auto ids = WriteFixture::Int64s(t, "id");
    for (int64_t id : ids) EXPECT_EQ(expected[id], split.bucket) << "id " << id;
    rows += t->num_rows();
  }
  EXPECT_EQ(rows, 300);
  for (const auto& m : msgs) EXPECT_EQ(m.total_buckets, 3);
}

TEST(AppendWriterTest, BlobColumnsInBlobFilesAndInline) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto catalog, Catalog::Make({{"warehouse", dir.path()}}));
  ASSERT_OK(catalog->CreateDatabase("db", false));
  TableSchema s;
  s.fields = AssignFieldIds({DataField{-1, "id", DataType::Atomic(TypeRoot::kBigInt)},
                             DataField{-1, "pic", DataType::Atomic(TypeRoot::kBlob)}});
  s.options = DeOptions();
  ASSERT_OK(catalog->CreateTable("db.b", s, false));
  ASSERT_OK_AND_ASSIGN(auto table, catalog->GetTable("db.b"));
  EXPECT_OK(AppendWriter::Make(table));
  // Only BLOB columns: nothing for the data file.
  EXPECT_RAISES(Invalid, AppendWriter::Make(table, std::vector<std::string>{"pic"}));
  TableSchema arr = s;
  arr.fields[1].type = DataType::Array(DataType::Atomic(TypeRoot::kBlob));
  ASSERT_OK(catalog->CreateTable("db.a", arr, false));
  EXPECT_OK(AppendWriter::Make(catalog->GetTable("db.a").ValueOrDie()));
  // MAP<K, BLOB> needs a key type with a serializer; DOUBLE has none (as in pypaimon).
  TableSchema map = s;
  map.fields[1].type =
      DataType::Map(DataType::Atomic(TypeRoot::kDouble, false), DataType::Atomic(TypeRoot::kBlob));
  ASSERT_OK(catalog->CreateTable("db.m", map, false));
  EXPECT_RAISES(Invalid, AppendWriter::Make(catalog->GetTable("db.m").ValueOrDie()));
  s.options["blob-descriptor-field"] = "pic";
  ASSERT_OK(catalog->CreateTable("db.d", s, false));
  EXPECT_OK(AppendWriter::Make(catalog->GetTable("db.d").ValueOrDie()));
}

}  // namespace
}  // namespace paimon_rowid
