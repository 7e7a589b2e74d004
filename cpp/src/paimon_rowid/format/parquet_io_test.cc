#include "paimon_rowid/format/parquet_io.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "arrow/api.h"
#include "arrow/compute/cast.h"
#include "arrow/compute/initialize.h"
#include "arrow/io/file.h"
#include "paimon_rowid/format/test_util.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"
#include "parquet/arrow/writer.h"
#include "parquet/file_reader.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"

namespace paimon_rowid {
namespace {

std::shared_ptr<arrow::RecordBatch> MakeBatch(int64_t start, int64_t n) {
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  for (int64_t i = start; i < start + n; ++i) {
    EXPECT_OK(ids.Append(i));
    EXPECT_OK(names.Append("name-" + std::to_string(i)));
  }
  auto schema = arrow::schema(
      {arrow::field("id", arrow::int64(), false), arrow::field("name", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, n,
                                  {ids.Finish().ValueOrDie(), names.Finish().ValueOrDie()});
}

std::string WriteFile(const std::string& dir, int64_t rows, int64_t rows_per_group) {
  std::string path = dir + "/f.parquet";
  auto sink = arrow::io::FileOutputStream::Open(path).ValueOrDie();
  ParquetWriteOptions opts;
  opts.row_group_size_rows = rows_per_group;
  auto batch = MakeBatch(0, rows);
  auto writer = ParquetFileWriter::Open(sink, batch->schema(), opts).ValueOrDie();
  EXPECT_OK(writer->Write(*batch));
  EXPECT_OK(writer->Close());
  return path;
}

TEST(ParquetIOTest, ReadsSelectedRowsAcrossRowGroups) {
  testing::TempDir dir;
  std::string path = WriteFile(dir.path(), 1000, 100);
  ASSERT_OK_AND_ASSIGN(auto file, arrow::io::ReadableFile::Open(path));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(file, path));
  EXPECT_EQ(reader->num_rows(), 1000);
  EXPECT_EQ(reader->num_row_groups(), 10);
  std::vector<RowRange> sel{{5, 7}, {99, 101}, {950, 950}};
  ASSERT_OK_AND_ASSIGN(auto table, reader->Read({"name", "id"}, &sel));
  ASSERT_EQ(table->num_rows(), 7);
  auto ids = table->GetColumnByName("id");
  std::vector<int64_t> got;
  for (const auto& chunk : ids->chunks()) {
    auto arr = std::static_pointer_cast<arrow::Int64Array>(chunk);
    for (int64_t i = 0; i < arr->length(); ++i) got.push_back(arr->Value(i));
  }
  EXPECT_EQ(got, (std::vector<int64_t>{5, 6, 7, 99, 100, 101, 950}));
  EXPECT_EQ(table->schema()->field(0)->name(), "name");
}

TEST(ParquetIOTest, ColumnMinMaxPerRowGroup) {
  testing::TempDir dir;
  std::string path = WriteFile(dir.path(), 250, 100);
  ASSERT_OK_AND_ASSIGN(auto file, arrow::io::ReadableFile::Open(path));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(file, path));
  ASSERT_OK_AND_ASSIGN(auto ids, reader->ColumnMinMax("id"));
  ASSERT_TRUE(ids.has_value());
  ASSERT_EQ(ids->size(), 3u);
  EXPECT_EQ(static_cast<const arrow::Int64Scalar&>(*(*ids)[0].min).value, 0);
  EXPECT_EQ(static_cast<const arrow::Int64Scalar&>(*(*ids)[2].max).value, 249);
  ASSERT_OK_AND_ASSIGN(auto names, reader->ColumnMinMax("name"));
  ASSERT_TRUE(names.has_value());
  EXPECT_TRUE((*names)[0].min->type->Equals(*arrow::utf8()));
  EXPECT_EQ((*names)[0].min->ToString(), "name-0");
  ASSERT_OK_AND_ASSIGN(auto missing, reader->ColumnMinMax("nope"));
  EXPECT_FALSE(missing.has_value());

  // A column whose values are all NULL has no min/max: unknown, not an error.
  std::string null_path = dir.path() + "/nulls.parquet";
  auto sink = arrow::io::FileOutputStream::Open(null_path).ValueOrDie();
  auto schema = arrow::schema({arrow::field("k", arrow::int64())});
  arrow::Int64Builder keys;
  ASSERT_OK(keys.AppendNulls(5));
  auto batch = arrow::RecordBatch::Make(schema, 5, {keys.Finish().ValueOrDie()});
  auto writer = ParquetFileWriter::Open(sink, schema, ParquetWriteOptions{}).ValueOrDie();
  ASSERT_OK(writer->Write(*batch));
  ASSERT_OK(writer->Close());
  ASSERT_OK_AND_ASSIGN(auto null_file, arrow::io::ReadableFile::Open(null_path));
  ASSERT_OK_AND_ASSIGN(auto null_reader, ParquetFileReader::Open(null_file, null_path));
  ASSERT_OK_AND_ASSIGN(auto none, null_reader->ColumnMinMax("k"));
  EXPECT_FALSE(none.has_value());
}

TEST(ParquetIOTest, ErrorsAreStatuses) {
  testing::TempDir dir;
  std::string path = WriteFile(dir.path(), 10, 10);
  ASSERT_OK_AND_ASSIGN(auto file, arrow::io::ReadableFile::Open(path));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(file, path));
  EXPECT_RAISES(KeyError, reader->Read({"missing"}, nullptr));
  std::vector<RowRange> bad{{5, 20}};
  EXPECT_RAISES(Invalid, reader->Read({"id"}, &bad));
  std::vector<RowRange> unsorted{{5, 6}, {1, 2}};
  EXPECT_RAISES(Invalid, reader->Read({"id"}, &unsorted));
  // A truncated file is an error, not a crash.
  std::string truncated = dir.path() + "/t.parquet";
  {
    auto in = arrow::io::ReadableFile::Open(path).ValueOrDie();
    auto bytes = in->Read(in->GetSize().ValueOrDie() - 9).ValueOrDie();
    auto out = arrow::io::FileOutputStream::Open(truncated).ValueOrDie();
    ASSERT_OK(out->Write(bytes));
    ASSERT_OK(out->Close());
  }
  ASSERT_OK_AND_ASSIGN(auto tfile, arrow::io::ReadableFile::Open(truncated));
  EXPECT_FALSE(ParquetFileReader::Open(tfile, truncated).ok());
}

// ---------------------------------------------------------------------------------------
// Timestamps: INT96 for nanoseconds (Java Paimon's choice for TIMESTAMP(7..9)), INT64 for
// the coarser units.

std::shared_ptr<arrow::Field> WithId(std::shared_ptr<arrow::Field> field, int id) {
  return field->WithMetadata(arrow::key_value_metadata({"PARQUET:field_id"}, {std::to_string(id)}));
}

// Epoch nanoseconds around the edges Paimon cares about: 1700 and 2250 (Arrow's int64 range
// is 1677..2262), the epoch from both sides, sub-microsecond parts, a leap day.
const std::vector<int64_t> kNanos = {
    -8'520'336'000'000'000'000LL + 1,  // 1700-01-01T00:00:00.000000001
    8'835'955'199'999'999'999LL,       // 2249-12-31T23:59:59.999999999
    -1,
    0,
    1,
    -86'400'000'000'000LL - 1,
    951'782'400'123'456'789LL,     // 2000-02-29...
    -2'208'988'800'000'000'007LL,  // 1900-01-01 minus 7 ns
};

std::shared_ptr<arrow::Array> TimestampArray(const std::shared_ptr<arrow::DataType>& type,
                                             int64_t divisor, bool with_null) {
  arrow::TimestampBuilder builder(type, arrow::default_memory_pool());
  for (int64_t v : kNanos) {
    // Floor division keeps negative values on their unit's grid.
    int64_t q = v / divisor - ((v % divisor) < 0 ? 1 : 0);
    EXPECT_OK(builder.Append(q));
  }
  if (with_null) EXPECT_OK(builder.AppendNull());
  return builder.Finish().ValueOrDie();
}

TEST(ParquetIOTest, NanosecondTimestampsAreInt96) {
  ASSERT_OK(arrow::compute::Initialize());
  testing::TempDir dir;
  const int64_t n = static_cast<int64_t>(kNanos.size()) + 1;
  auto ts = [](arrow::TimeUnit::type unit, const char* tz = "") {
    return arrow::timestamp(unit, tz);
  };
  auto ns = ts(arrow::TimeUnit::NANO);
  auto ns_utc = ts(arrow::TimeUnit::NANO, "UTC");
  auto row_type = arrow::struct_(
      {WithId(arrow::field("t9", ns), 10), WithId(arrow::field("x", arrow::int32()), 11)});
  auto list_type = arrow::list(arrow::field("element", ns_utc));
  auto schema = arrow::schema({
      WithId(arrow::field("ts0", ts(arrow::TimeUnit::SECOND)), 1),
      WithId(arrow::field("ts3", ts(arrow::TimeUnit::MILLI)), 2),
      WithId(arrow::field("ts6", ts(arrow::TimeUnit::MICRO)), 3),
      WithId(arrow::field("ts9", ns, /*nullable=*/false), 4),
      WithId(arrow::field("ltz3", ts(arrow::TimeUnit::MILLI, "UTC")), 5),
      WithId(arrow::field("ltz6", ts(arrow::TimeUnit::MICRO, "UTC")), 6),
      WithId(arrow::field("ltz9", ns_utc), 7),
      WithId(arrow::field("row", row_type), 8),
      WithId(arrow::field("arr", list_type), 9),
  });
  auto ts9 = TimestampArray(ns, 1, false)->Slice(0, n - 1);
  // ts9 is NOT NULL: give it one more real value instead of the null.
  {
    arrow::TimestampBuilder b(ns, arrow::default_memory_pool());
    auto typed = std::static_pointer_cast<arrow::TimestampArray>(ts9);
    for (int64_t i = 0; i < typed->length(); ++i) ASSERT_OK(b.Append(typed->Value(i)));
    ASSERT_OK(b.Append(-999'999'999));
    ts9 = b.Finish().ValueOrDie();
  }
  auto t9 = TimestampArray(ns, 1, true);
  arrow::Int32Builder xs;
  for (int64_t i = 0; i < n; ++i) ASSERT_OK(xs.Append(static_cast<int32_t>(i)));
  auto row = arrow::StructArray::Make({t9, xs.Finish().ValueOrDie()},
                                      {row_type->field(0), row_type->field(1)})
                 .ValueOrDie();
  // arr: row i holds kNanos[0..i) (row n-1: null).
  auto elements = TimestampArray(ns_utc, 1, false);
  arrow::Int32Builder offsets;
  int32_t at = 0;
  ASSERT_OK(offsets.Append(0));
  for (int64_t i = 0; i < n; ++i) {
    at = static_cast<int32_t>(std::min<int64_t>(i, static_cast<int64_t>(kNanos.size())));
    ASSERT_OK(offsets.Append(at));
  }
  arrow::BooleanBuilder valid;
  for (int64_t i = 0; i < n; ++i) ASSERT_OK(valid.Append(i != n - 1));
  auto arr = std::make_shared<arrow::ListArray>(
      list_type, n, offsets.Finish().ValueOrDie()->data()->buffers[1], elements->Slice(0, at),
      valid.Finish().ValueOrDie()->data()->buffers[1], 1);
  auto batch =
      arrow::RecordBatch::Make(schema, n,
                               {TimestampArray(ts(arrow::TimeUnit::SECOND), 1'000'000'000, true),
                                TimestampArray(ts(arrow::TimeUnit::MILLI), 1'000'000, true),
                                TimestampArray(ts(arrow::TimeUnit::MICRO), 1'000, true), ts9,
                                TimestampArray(ts(arrow::TimeUnit::MILLI, "UTC"), 1'000'000, true),
                                TimestampArray(ts(arrow::TimeUnit::MICRO, "UTC"), 1'000, true),
                                TimestampArray(ns_utc, 1, true), row, arr});
  ASSERT_OK(batch->ValidateFull());

  std::string path = dir.path() + "/ts.parquet";
  {
    auto sink = arrow::io::FileOutputStream::Open(path).ValueOrDie();
    ParquetWriteOptions opts;
    opts.row_group_size_rows = 4;  // several row groups: selective reads cross them
    auto writer = ParquetFileWriter::Open(sink, schema, opts).ValueOrDie();
    ASSERT_OK(writer->Write(*batch));
    ASSERT_OK(writer->Close());
  }

  // Physical types, logical types, field ids and repetition, leaf by leaf.
  auto parquet_reader = parquet::ParquetFileReader::OpenFile(path);
  auto metadata = parquet_reader->metadata();
  const parquet::SchemaDescriptor* descr = metadata->schema();
  EXPECT_EQ(descr->group_node()->name(), "paimon_schema");
  struct Leaf {
    std::string path;
    parquet::Type::type physical;
    int field_id;
    parquet::Repetition::type repetition;
  };
  const std::vector<Leaf> expected_leaves = {
      {"ts0", parquet::Type::INT64, 1, parquet::Repetition::OPTIONAL},
      {"ts3", parquet::Type::INT64, 2, parquet::Repetition::OPTIONAL},
      {"ts6", parquet::Type::INT64, 3, parquet::Repetition::OPTIONAL},
      {"ts9", parquet::Type::INT96, 4, parquet::Repetition::REQUIRED},
      {"ltz3", parquet::Type::INT64, 5, parquet::Repetition::OPTIONAL},
      {"ltz6", parquet::Type::INT64, 6, parquet::Repetition::OPTIONAL},
      {"ltz9", parquet::Type::INT96, 7, parquet::Repetition::OPTIONAL},
      {"row.t9", parquet::Type::INT96, 10, parquet::Repetition::OPTIONAL},
      {"row.x", parquet::Type::INT32, 11, parquet::Repetition::OPTIONAL},
      {"arr.list.element", parquet::Type::INT96, -1, parquet::Repetition::OPTIONAL},
  };
  ASSERT_EQ(descr->num_columns(), static_cast<int>(expected_leaves.size()));
  for (int i = 0; i < descr->num_columns(); ++i) {
    const parquet::ColumnDescriptor* column = descr->Column(i);
    const Leaf& want = expected_leaves[i];
    EXPECT_EQ(column->path()->ToDotString(), want.path);
    EXPECT_EQ(column->physical_type(), want.physical) << want.path;
    if (want.field_id >= 0) EXPECT_EQ(column->schema_node()->field_id(), want.field_id);
    EXPECT_EQ(column->schema_node()->repetition(), want.repetition) << want.path;
    if (want.physical == parquet::Type::INT96) {
      // Plain INT96, no logical type (like Java's writer); and no statistics in the footer.
      EXPECT_TRUE(column->logical_type() == nullptr || column->logical_type()->is_none())
          << want.path;
      EXPECT_FALSE(metadata->RowGroup(0)->ColumnChunk(i)->is_stats_set()) << want.path;
    }
  }
  auto unit_of = [&](int column) {
    const auto& logical =
        static_cast<const parquet::TimestampLogicalType&>(*descr->Column(column)->logical_type());
    return std::make_pair(logical.time_unit(), logical.is_adjusted_to_utc());
  };
  using Unit = parquet::LogicalType::TimeUnit;
  EXPECT_EQ(unit_of(1), std::make_pair(Unit::MILLIS, false));
  EXPECT_EQ(unit_of(2), std::make_pair(Unit::MICROS, false));
  EXPECT_EQ(unit_of(4), std::make_pair(Unit::MILLIS, true));
  EXPECT_EQ(unit_of(5), std::make_pair(Unit::MICROS, true));
  // The Arrow field ids of the outer columns survive the rewrite of the list group.
  EXPECT_EQ(descr->group_node()->field(8)->field_id(), 9);
  EXPECT_EQ(descr->group_node()->field(7)->field_id(), 8);
  EXPECT_TRUE(descr->group_node()->field(8)->logical_type()->is_list());

  // Read back: every value exactly, INT96 as timestamp(ns), whole file and row selections.
  ASSERT_OK_AND_ASSIGN(auto file, arrow::io::ReadableFile::Open(path));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(file, path));
  std::vector<std::string> names = schema->field_names();
  ASSERT_OK_AND_ASSIGN(auto full, reader->Read(names, nullptr));
  ASSERT_EQ(full->num_rows(), n);
  auto check_same = [&](const std::shared_ptr<arrow::Table>& got,
                        const std::shared_ptr<arrow::Table>& want) {
    for (int i = 0; i < want->num_columns(); ++i) {
      auto got_column = got->column(i);
      auto want_column = want->column(i);
      // INT96 reads carry no time zone; the instants must be identical.
      auto cast = arrow::compute::Cast(arrow::Datum(got_column), want_column->type());
      ASSERT_OK(cast) << names[i];
      EXPECT_TRUE(cast->chunked_array()->Equals(*want_column))
          << names[i] << "\n got " << got_column->ToString() << "\n want "
          << want_column->ToString();
    }
  };
  ASSERT_OK_AND_ASSIGN(auto original, arrow::Table::FromRecordBatches({batch}));
  check_same(full, original);
  EXPECT_EQ(full->schema()->GetFieldByName("ts9")->type()->ToString(), "timestamp[ns]");
  // Row groups: [0, 4), [4, 8), [8, 9). A selection covering a whole row group decodes it
  // whole; partial ones go through the offset index, which INT96 chunks have too.
  struct Selection {
    std::vector<RowRange> ranges;
    bool partial_groups_only;
  };
  for (const auto& sel : std::vector<Selection>{{{{0, 0}}, true},
                                                {{{1, 2}, {5, 5}}, true},
                                                {{{3, 6}}, true},
                                                {{{1, 2}, {5, 5}, {8, 8}}, false},
                                                {{{n - 1, n - 1}}, false}}) {
    ParquetReadStats stats;
    auto got = reader->Read(names, &sel.ranges, &stats);
    ASSERT_OK(got);
    check_same(*got, testing::TakeRanges(original, sel.ranges));
    EXPECT_EQ(stats.chunks_by_filter, 0);
    if (sel.partial_groups_only) {
      EXPECT_EQ(stats.chunks_whole, 0);
      EXPECT_GT(stats.chunks_by_index, 0);
    }
  }
}

}  // namespace
}  // namespace paimon_rowid
