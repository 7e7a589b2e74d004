#include "paimon_rowid/format/column_task_writer.h"

#include <algorithm>
#include <numeric>

#include "arrow/array.h"
#include "paimon_rowid/exec/executor.h"
#include "paimon_rowid/format/parquet_internal.h"
#include "parquet/column_writer.h"
#include "parquet/file_writer.h"
#include "parquet/properties.h"

namespace paimon_rowid::format_internal {
namespace {

bool FlatType(arrow::Type::type id) {
  switch (id) {
    case arrow::Type::BOOL:
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
    case arrow::Type::DATE32:
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
      return true;
    default:
      return false;
  }
}

// The bytes a column's rows [offset, offset + length) hold: what its task has to encode.
int64_t TaskBytes(const arrow::Array& array, int64_t offset, int64_t length) {
  switch (array.type_id()) {
    case arrow::Type::STRING:
    case arrow::Type::BINARY: {
      const auto& binary = static_cast<const arrow::BinaryArray&>(array);
      return binary.value_offset(offset + length) - binary.value_offset(offset) + 4 * length;
    }
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY: {
      const auto& binary = static_cast<const arrow::LargeBinaryArray&>(array);
      return binary.value_offset(offset + length) - binary.value_offset(offset) + 4 * length;
    }
    case arrow::Type::BOOL:
      return length / 8;
    default:
      return length * std::max(1, array.type()->byte_width());
  }
}

}  // namespace

bool ColumnTasksSupported(const arrow::Schema& schema) {
  if (schema.num_fields() == 0) return false;
  for (const auto& field : schema.fields()) {
    if (!FlatType(field->type()->id())) return false;
  }
  return true;
}

ColumnTaskWriter::ColumnTaskWriter(std::unique_ptr<parquet::ParquetFileWriter> file,
                                   const std::shared_ptr<arrow::Schema>& schema,
                                   std::shared_ptr<parquet::ArrowWriterProperties> arrow_properties,
                                   int64_t max_row_group_rows, arrow::MemoryPool* pool)
    : file_(std::move(file)),
      arrow_properties_(std::move(arrow_properties)),
      max_row_group_rows_(std::max<int64_t>(1, max_row_group_rows)) {
  for (const auto& field : schema->fields()) {
    nullable_.push_back(field->nullable());
    contexts_.push_back(
        std::make_unique<parquet::ArrowWriteContext>(pool, arrow_properties_.get()));
  }
  levels_.resize(nullable_.size());
}

ColumnTaskWriter::~ColumnTaskWriter() = default;

Status ColumnTaskWriter::Write(const arrow::RecordBatch& batch) {
  if (static_cast<size_t>(batch.num_columns()) != nullable_.size()) {
    return Status::Invalid("a batch of ", batch.num_columns(), " columns for a file of ",
                           nullable_.size());
  }
  // Row groups cut where Arrow's FileWriter cuts them: at max_row_group_rows, a new one
  // opened only for rows still to write.
  int64_t offset = 0;
  while (offset < batch.num_rows()) {
    if (row_group_ == nullptr || row_group_rows_ >= max_row_group_rows_) {
      ARROW_RETURN_NOT_OK(CatchParquet("<new file>", [&]() -> Status {
        row_group_ = file_->AppendBufferedRowGroup();
        return Status::OK();
      }));
      row_group_rows_ = 0;
    }
    const int64_t length =
        std::min(max_row_group_rows_ - row_group_rows_, batch.num_rows() - offset);
    ARROW_RETURN_NOT_OK(WriteRows(batch, offset, length));
    row_group_rows_ += length;
    offset += length;
  }
  return Status::OK();
}

Status ColumnTaskWriter::WriteRows(const arrow::RecordBatch& batch, int64_t offset,
                                   int64_t length) {
  const auto n = static_cast<int>(nullable_.size());
  std::vector<parquet::ColumnWriter*> writers(static_cast<size_t>(n));
  ARROW_RETURN_NOT_OK(CatchParquet("<new file>", [&]() -> Status {
    for (int c = 0; c < n; ++c) writers[static_cast<size_t>(c)] = row_group_->column(c);
    return Status::OK();
  }));
  // Longest first: the caller and the executor's threads claim tasks in this order.
  std::vector<int64_t> bytes(static_cast<size_t>(n));
  for (int c = 0; c < n; ++c) {
    bytes[static_cast<size_t>(c)] = TaskBytes(*batch.column(c), offset, length);
  }
  std::vector<int> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return bytes[static_cast<size_t>(a)] > bytes[static_cast<size_t>(b)];
  });
  return Executor::Default()->ParallelFor(n, 0, [&](int64_t i) -> Status {
    const auto c = static_cast<size_t>(order[static_cast<size_t>(i)]);
    std::shared_ptr<arrow::Array> values = batch.column(static_cast<int>(c));
    if (offset != 0 || length != values->length()) values = values->Slice(offset, length);
    parquet::ColumnWriter* writer = writers[c];
    // Flat columns: a value's definition level is 1 when it is present, 0 when NULL (a
    // required column has none), as Arrow's level builder gives them.
    const int16_t* def_levels = nullptr;
    if (writer->descr()->max_definition_level() > 0) {
      std::vector<int16_t>& levels = levels_[c];
      levels.resize(static_cast<size_t>(length));
      if (values->null_count() == 0) {
        std::fill(levels.begin(), levels.end(), int16_t{1});
      } else {
        for (int64_t k = 0; k < length; ++k) {
          levels[static_cast<size_t>(k)] = values->IsValid(k) ? 1 : 0;
        }
      }
      def_levels = levels.data();
    }
    return CatchParquet("<new file>", [&]() -> Status {
      return writer->WriteArrow(def_levels, nullptr, length, *values, contexts_[c].get(),
                                nullable_[c]);
    });
  });
}

Status ColumnTaskWriter::Close() {
  return CatchParquet("<new file>", [&]() -> Status {
    file_->Close();
    return Status::OK();
  });
}

}  // namespace paimon_rowid::format_internal
