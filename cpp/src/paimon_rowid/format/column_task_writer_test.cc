// ColumnTaskWriter against Arrow's FileWriter: the same batches must give the same bytes, for
// every type it takes, with and without NULLs, across row-group cuts, dictionary fallbacks,
// sliced inputs and options; other schemas keep Arrow's writer.
#include "paimon_rowid/format/column_task_writer.h"

#include <gtest/gtest.h>

#include <random>

#include "arrow/api.h"
#include "arrow/compute/cast.h"
#include "arrow/io/memory.h"
#include "paimon_rowid/format/parquet_io.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "parquet/arrow/reader.h"
#include "parquet/file_reader.h"

namespace paimon_rowid {
namespace {

// `rows` values of `type`: NULL with probability `nulls`; strings drawn from `distinct`
// values (few: dictionary-encoded; many: the dictionary overflows and falls back).
std::shared_ptr<arrow::Array> Column(const std::shared_ptr<arrow::DataType>& type, int64_t rows,
                                     double nulls, int distinct, std::mt19937_64* gen) {
  std::unique_ptr<arrow::ArrayBuilder> builder;
  EXPECT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), type, &builder));
  std::uniform_real_distribution<double> unit(0, 1);
  for (int64_t i = 0; i < rows; ++i) {
    if (unit(*gen) < nulls) {
      EXPECT_OK(builder->AppendNull());
      continue;
    }
    const uint64_t r = (*gen)();
    const int64_t pick = static_cast<int64_t>(r % static_cast<uint64_t>(distinct));
    switch (type->id()) {
      case arrow::Type::BOOL:
        EXPECT_OK(static_cast<arrow::BooleanBuilder*>(builder.get())->Append((r & 1) != 0));
        break;
      case arrow::Type::INT8:
        EXPECT_OK(static_cast<arrow::Int8Builder*>(builder.get())->Append(pick % 100));
        break;
      case arrow::Type::INT16:
        EXPECT_OK(static_cast<arrow::Int16Builder*>(builder.get())->Append(pick % 30000));
        break;
      case arrow::Type::INT32:
        EXPECT_OK(static_cast<arrow::Int32Builder*>(builder.get())->Append(pick));
        break;
      case arrow::Type::DATE32:
        EXPECT_OK(static_cast<arrow::Date32Builder*>(builder.get())->Append(pick));
        break;
      case arrow::Type::INT64:
        EXPECT_OK(static_cast<arrow::Int64Builder*>(builder.get())->Append(i * 7 + pick));
        break;
      case arrow::Type::FLOAT:
        EXPECT_OK(static_cast<arrow::FloatBuilder*>(builder.get())->Append(unit(*gen)));
        break;
      case arrow::Type::DOUBLE:
        EXPECT_OK(static_cast<arrow::DoubleBuilder*>(builder.get())->Append(unit(*gen)));
        break;
      case arrow::Type::STRING:
      case arrow::Type::BINARY: {
        const std::string s = "v" + std::to_string(pick) + std::string(r % 23, 'x');
        EXPECT_OK(static_cast<arrow::BinaryBuilder*>(builder.get())->Append(s));
        break;
      }
      case arrow::Type::LARGE_STRING:
      case arrow::Type::LARGE_BINARY: {
        const std::string s = "w" + std::to_string(pick);
        EXPECT_OK(static_cast<arrow::LargeBinaryBuilder*>(builder.get())->Append(s));
        break;
      }
      default:
        ADD_FAILURE() << type->ToString();
    }
  }
  std::shared_ptr<arrow::Array> out;
  EXPECT_OK(builder->Finish(&out));
  return out;
}

std::shared_ptr<arrow::Schema> FlatSchema() {
  return arrow::schema({
      arrow::field("id", arrow::int64(), false),
      arrow::field("b", arrow::boolean()),
      arrow::field("i8", arrow::int8()),
      arrow::field("i16", arrow::int16()),
      arrow::field("i32", arrow::int32()),
      arrow::field("d", arrow::date32()),
      arrow::field("f", arrow::float32()),
      arrow::field("x", arrow::float64()),
      arrow::field("s", arrow::utf8()),
      arrow::field("few", arrow::utf8()),
      arrow::field("bin", arrow::binary()),
      arrow::field("ls", arrow::large_utf8()),
      arrow::field("lb", arrow::large_binary()),
      arrow::field("all_null", arrow::utf8()),
  });
}

std::shared_ptr<arrow::RecordBatch> Batch(const std::shared_ptr<arrow::Schema>& schema,
                                          int64_t rows, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (const auto& field : schema->fields()) {
    const double nulls = !field->nullable() ? 0 : field->name() == "all_null" ? 1.0 : 0.1;
    const int distinct = field->name() == "few" ? 7 : 1 << 30;
    columns.push_back(Column(field->type(), rows, nulls, distinct, &gen));
  }
  return arrow::RecordBatch::Make(schema, rows, columns);
}

std::string Write(const std::shared_ptr<arrow::Schema>& schema,
                  const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
                  ParquetWriteOptions options, bool parallel) {
  options.encode_columns_in_parallel = parallel;
  auto sink = arrow::io::BufferOutputStream::Create().ValueOrDie();
  auto writer = ParquetFileWriter::Open(sink, schema, options).ValueOrDie();
  for (const auto& batch : batches) EXPECT_OK(writer->Write(*batch));
  EXPECT_OK(writer->Close());
  return sink->Finish().ValueOrDie()->ToString();
}

// Both writers' bytes, and the file read back equal to the batches.
void ExpectSameFile(const std::shared_ptr<arrow::Schema>& schema,
                    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
                    const ParquetWriteOptions& options) {
  const std::string ours = Write(schema, batches, options, true);
  const std::string arrows = Write(schema, batches, options, false);
  ASSERT_EQ(ours.size(), arrows.size());
  ASSERT_TRUE(ours == arrows) << "the files differ";
  std::unique_ptr<parquet::arrow::FileReader> reader;
  ASSERT_OK_AND_ASSIGN(reader, parquet::arrow::OpenFile(std::make_shared<arrow::io::BufferReader>(
                                                            arrow::Buffer::FromString(ours)),
                                                        arrow::default_memory_pool()));
  std::shared_ptr<arrow::Table> back;
  ASSERT_OK(reader->ReadTable(&back));
  ASSERT_OK_AND_ASSIGN(auto expected, arrow::Table::FromRecordBatches(schema, batches));
  ASSERT_OK_AND_ASSIGN(back, back->CombineChunks());
  ASSERT_OK_AND_ASSIGN(expected, expected->CombineChunks());
  ASSERT_EQ(back->num_rows(), expected->num_rows());
  for (int c = 0; c < schema->num_fields(); ++c) {
    // Large strings and binaries read back as the plain ones (no Arrow schema in the footer).
    ASSERT_OK_AND_ASSIGN(auto want,
                         arrow::compute::Cast(expected->column(c), back->column(c)->type()));
    EXPECT_TRUE(back->column(c)->Equals(*want.chunked_array())) << schema->field(c)->name();
  }
}

TEST(ColumnTaskWriterTest, SameBytesAsArrowsWriterForEveryFlatType) {
  auto schema = FlatSchema();
  ASSERT_TRUE(format_internal::ColumnTasksSupported(*schema));
  // Row groups cut inside batches (2,500 rows each), batches of uneven sizes, one sliced.
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches = {
      Batch(schema, 3000, 1), Batch(schema, 1700, 2), Batch(schema, 5000, 3)->Slice(123, 4000)};
  ParquetWriteOptions options;
  options.row_group_size_rows = 2500;
  options.data_page_size_bytes = 4096;  // many pages, and early dictionary fallbacks
  ExpectSameFile(schema, batches, options);
}

TEST(ColumnTaskWriterTest, SameBytesWithOtherOptions) {
  auto schema = FlatSchema();
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches = {Batch(schema, 70000, 4)};
  ParquetWriteOptions options;
  options.plain_columns = {"s", "few"};
  options.write_page_checksum = false;
  options.compression = "snappy";
  ExpectSameFile(schema, batches, options);
  options = ParquetWriteOptions();
  options.write_page_index = false;
  options.compression = "none";
  ExpectSameFile(schema, batches, options);
}

TEST(ColumnTaskWriterTest, OtherSchemasKeepArrowsWriter) {
  EXPECT_FALSE(format_internal::ColumnTasksSupported(
      *arrow::schema({arrow::field("v", arrow::list(arrow::float32()))})));
  EXPECT_FALSE(format_internal::ColumnTasksSupported(
      *arrow::schema({arrow::field("t", arrow::timestamp(arrow::TimeUnit::MICRO))})));
  EXPECT_FALSE(format_internal::ColumnTasksSupported(
      *arrow::schema({arrow::field("d", arrow::decimal128(10, 2))})));
  EXPECT_FALSE(format_internal::ColumnTasksSupported(arrow::Schema({})));
}

}  // namespace
}  // namespace paimon_rowid
