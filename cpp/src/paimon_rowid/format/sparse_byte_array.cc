#include "paimon_rowid/format/sparse_byte_array.h"

#include <algorithm>

#include "arrow/array/builder_binary.h"
#include "arrow/builder.h"
#include "arrow/type.h"

namespace paimon_rowid::format_internal {
namespace {

constexpr int64_t kBatch = 1024;

int64_t TotalRows(const std::vector<RowRange>& spans) {
  int64_t n = 0;
  for (const auto& r : spans) n += r.count();
  return n;
}

// Walks the reader forward over `kept` and copies the wanted values into `builder`.
template <typename Builder>
Status Gather(parquet::ByteArrayReader* reader, int16_t max_def, const std::vector<RowRange>& kept,
              const std::vector<RowRange>& wanted, Builder* builder) {
  int64_t consumed = 0;   // levels the reader has produced (read or skipped)
  size_t span = 0;        // kept[span] holds the current row, once known
  int64_t span_base = 0;  // levels before kept[span]
  std::vector<int16_t> defs(kBatch);
  std::vector<parquet::ByteArray> values(kBatch);
  auto skip_to = [&](int64_t position) -> Status {
    while (consumed < position) {
      const int64_t skipped = reader->Skip(position - consumed);
      if (skipped <= 0) return Status::IOError("column ended after ", consumed, " rows");
      consumed += skipped;
    }
    return Status::OK();
  };
  for (const RowRange& run : wanted) {
    for (int64_t row = run.from; row <= run.to;) {
      // The kept span holding `row`; load pages until it is known.
      while (true) {
        while (span < kept.size() && kept[span].to < row) {
          span_base += kept[span].count();
          ++span;
        }
        if (span < kept.size()) break;
        // Every known row is before `row`: consume them and load the next page, which
        // adds its rows to `kept` (a new span, or the last one extended when adjacent).
        const int64_t known = span_base;
        ARROW_RETURN_NOT_OK(skip_to(known));
        if (!reader->HasNext() || TotalRows(kept) == known) {
          return Status::UnknownError("page selection lost row ", row);
        }
        span = 0;
        span_base = 0;
      }
      if (kept[span].from > row) return Status::UnknownError("page selection lost row ", row);
      ARROW_RETURN_NOT_OK(skip_to(span_base + (row - kept[span].from)));
      int64_t remaining = std::min(run.to, kept[span].to) - row + 1;
      row += remaining;
      while (remaining > 0) {
        int64_t values_read = 0;
        const int64_t levels = reader->ReadBatch(std::min(remaining, kBatch), defs.data(), nullptr,
                                                 values.data(), &values_read);
        if (levels <= 0) return Status::IOError("column ended after ", consumed, " rows");
        int64_t v = 0;
        for (int64_t i = 0; i < levels; ++i) {
          if (max_def == 0 || defs[i] == max_def) {
            ARROW_RETURN_NOT_OK(builder->Append(values[v].ptr, values[v].len));
            ++v;
          } else {
            ARROW_RETURN_NOT_OK(builder->AppendNull());
          }
        }
        consumed += levels;
        remaining -= levels;
      }
    }
  }
  return Status::OK();
}

}  // namespace

bool IsSparseByteArrayColumn(const parquet::ColumnDescriptor& descr, const arrow::DataType& type) {
  if (descr.physical_type() != parquet::Type::BYTE_ARRAY || descr.max_repetition_level() != 0 ||
      descr.max_definition_level() > 1) {
    return false;
  }
  const auto& logical = descr.logical_type();
  if (logical != nullptr && !logical->is_none() && !logical->is_string()) return false;
  switch (type.id()) {
    case arrow::Type::BINARY:
    case arrow::Type::STRING:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::LARGE_STRING:
      return true;
    default:
      return false;
  }
}

Result<std::shared_ptr<arrow::Array>> ReadSparseByteArray(
    parquet::ColumnReader* reader, const std::vector<RowRange>& kept,
    const std::vector<RowRange>& wanted, const std::shared_ptr<arrow::DataType>& type,
    arrow::MemoryPool* pool) {
  auto* bytes = dynamic_cast<parquet::ByteArrayReader*>(reader);
  if (bytes == nullptr) return Status::Invalid("not a BYTE_ARRAY column reader");
  const int16_t max_def = reader->descr()->max_definition_level();
  std::unique_ptr<arrow::ArrayBuilder> builder;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(pool, type, &builder));
  if (type->id() == arrow::Type::LARGE_BINARY || type->id() == arrow::Type::LARGE_STRING) {
    ARROW_RETURN_NOT_OK(Gather(bytes, max_def, kept, wanted,
                               static_cast<arrow::LargeBinaryBuilder*>(builder.get())));
  } else {
    ARROW_RETURN_NOT_OK(
        Gather(bytes, max_def, kept, wanted, static_cast<arrow::BinaryBuilder*>(builder.get())));
  }
  return builder->Finish();
}

}  // namespace paimon_rowid::format_internal
