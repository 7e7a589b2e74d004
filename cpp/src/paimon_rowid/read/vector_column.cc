#include "paimon_rowid/read/vector_column.h"

#include <cstring>

#include "arrow/compute/api.h"
#include "arrow/util/bitmap_ops.h"
#include "paimon_rowid/common/huge_pages.h"
#include "paimon_rowid/common/lazy_zero_buffer.h"

namespace paimon_rowid {
namespace cp = arrow::compute;
namespace {

Status WrongLength(const std::string& column, int64_t length, int32_t size) {
  return Status::Invalid("VECTOR column '", column, "' holds a value of length ", length, " where ",
                         size, " is required");
}

// Fixed-width values of the target type without NULLs inside (a VECTOR's usual layout): each
// row's values are copied at once. A NULL row's slots are zeros marked NULL, left unwritten.
template <typename ListArray>
Result<std::shared_ptr<arrow::Array>> CopyRows(const ListArray& list, int32_t size,
                                               const std::string& column, arrow::MemoryPool* pool) {
  const auto& values = *list.values();
  const int64_t width = values.type()->byte_width();
  const int64_t n = list.length();
  const int64_t nulls = list.null_count();
  const int64_t row_bytes = width * size;
  std::shared_ptr<arrow::Buffer> data;
  std::shared_ptr<arrow::Buffer> value_validity;
  if (nulls == 0) {
    ARROW_ASSIGN_OR_RAISE(data, arrow::AllocateBuffer(n * row_bytes, pool));
  } else {
    ARROW_ASSIGN_OR_RAISE(data, AllocateLazyZeroBuffer(n * row_bytes, pool));
    ARROW_ASSIGN_OR_RAISE(value_validity,
                          AllocateLazyZeroBuffer(arrow::bit_util::BytesForBits(n * size), pool));
  }
  // Written whole at memory speed: 2 MiB pages fault 512x less often. Not when most rows are
  // NULL: one written row would make the kernel fill its whole 2 MiB page.
  if (nulls * 2 < n) AdviseHugePages(data->mutable_data(), n * row_bytes);
  const uint8_t* src = values.data()->buffers[1]->data() + values.offset() * width;
  uint8_t* dst = data->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    if (nulls > 0 && list.IsNull(i)) continue;
    const int64_t length = list.value_length(i);
    if (length != size) return WrongLength(column, length, size);
    std::memcpy(dst + i * row_bytes, src + list.value_offset(i) * width,
                static_cast<size_t>(row_bytes));
    if (value_validity) {
      arrow::bit_util::SetBitsTo(value_validity->mutable_data(), i * size, size, true);
    }
  }
  return arrow::MakeArray(arrow::ArrayData::Make(values.type(), n * size,
                                                 {std::move(value_validity), std::move(data)},
                                                 nulls * static_cast<int64_t>(size)));
}

// Any other layout: a Take of each row's values (NULL indices for a NULL row), then a cast.
template <typename ListArray>
Result<std::shared_ptr<arrow::Array>> TakeRows(const ListArray& list,
                                               const arrow::FixedSizeListType& type,
                                               const std::string& column, cp::ExecContext* ctx) {
  const int32_t size = type.list_size();
  arrow::Int64Builder indices(ctx->memory_pool());
  ARROW_RETURN_NOT_OK(indices.Reserve(list.length() * size));
  for (int64_t i = 0; i < list.length(); ++i) {
    if (list.IsNull(i)) {
      ARROW_RETURN_NOT_OK(indices.AppendNulls(size));
      continue;
    }
    const int64_t length = list.value_length(i);
    if (length != size) return WrongLength(column, length, size);
    for (int32_t k = 0; k < size; ++k) indices.UnsafeAppend(list.value_offset(i) + k);
  }
  ARROW_ASSIGN_OR_RAISE(auto index_array, indices.Finish());
  ARROW_ASSIGN_OR_RAISE(auto taken,
                        cp::Take(list.values(), index_array, cp::TakeOptions::Defaults(), ctx));
  std::shared_ptr<arrow::Array> flat = taken.make_array();
  if (!flat->type()->Equals(*type.value_type())) {
    ARROW_ASSIGN_OR_RAISE(flat, cp::Cast(*flat, type.value_type(), cp::CastOptions::Safe(), ctx));
  }
  return flat;
}

// Whether every row is non-NULL and `size` long, the rows lie back to back in the values
// (offset i = offset 0 + i x size: a decoded Parquet list column's usual shape) and fill at
// least half of the values' buffer, so that a slice keeps at most as many bytes alive again
// (a few rows sliced out of a whole decoded chunk are copied instead). One pass over the
// offsets.
template <typename ListArray>
bool BackToBack(const ListArray& list, int32_t size) {
  if (list.null_count() != 0 || list.length() == 0) return false;
  const auto& data = *list.values()->data()->buffers[1];
  const int64_t bytes = list.length() * size * list.values()->type()->byte_width();
  if (2 * bytes < data.size()) return false;
  const auto* offsets = list.raw_value_offsets();
  const int64_t first = offsets[0];
  for (int64_t i = 1; i <= list.length(); ++i) {
    if (offsets[i] - first != i * int64_t{size}) return false;
  }
  return true;
}

template <typename ListArray>
Result<std::shared_ptr<arrow::Array>> Convert(const ListArray& list,
                                              const arrow::FixedSizeListType& type,
                                              const std::string& column, cp::ExecContext* ctx) {
  const auto& values = *list.values();
  const bool copyable = arrow::is_fixed_width(values.type_id()) &&
                        values.type()->byte_width() > 0 && values.null_count() == 0 &&
                        values.type()->Equals(*type.value_type()) &&
                        values.data()->buffers.size() == 2;
  std::shared_ptr<arrow::Array> flat;
  if (copyable && BackToBack(list, type.list_size())) {
    // The values already are the fixed-size layout: a slice of them, no copy (a 100,000 x
    // 768 column is 307 MB the search index build would otherwise copy once more).
    flat = list.values()->Slice(list.value_offset(0), list.length() * type.list_size());
  } else if (copyable) {
    ARROW_ASSIGN_OR_RAISE(flat, CopyRows(list, type.list_size(), column, ctx->memory_pool()));
  } else {
    ARROW_ASSIGN_OR_RAISE(flat, TakeRows(list, type, column, ctx));
  }
  std::shared_ptr<arrow::Buffer> validity;
  if (list.null_count() > 0) {
    ARROW_ASSIGN_OR_RAISE(validity,
                          arrow::internal::CopyBitmap(ctx->memory_pool(), list.null_bitmap_data(),
                                                      list.offset(), list.length()));
  }
  return std::make_shared<arrow::FixedSizeListArray>(
      arrow::fixed_size_list(type.value_field(), type.list_size()), list.length(), std::move(flat),
      std::move(validity), list.null_count());
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> ListToFixedSize(const std::shared_ptr<arrow::Array>& lists,
                                                      const arrow::FixedSizeListType& type,
                                                      const std::string& column,
                                                      cp::ExecContext* ctx) {
  switch (lists->type_id()) {
    case arrow::Type::LIST:
      return Convert(static_cast<const arrow::ListArray&>(*lists), type, column, ctx);
    case arrow::Type::LARGE_LIST:
      return Convert(static_cast<const arrow::LargeListArray&>(*lists), type, column, ctx);
    default:
      return Status::TypeError("VECTOR column '", column, "' read as ", lists->type()->ToString(),
                               ", not a list");
  }
}

}  // namespace paimon_rowid
