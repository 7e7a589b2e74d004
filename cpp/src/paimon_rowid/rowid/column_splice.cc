#include "paimon_rowid/rowid/column_splice.h"

#include <cstring>

#include "arrow/array/concatenate.h"
#include "arrow/builder.h"
#include "arrow/compute/api_vector.h"
#include "arrow/compute/exec.h"
#include "arrow/util/bit_util.h"

namespace paimon_rowid::rowid_internal {
namespace {

namespace cp = arrow::compute;

// Byte width of a type whose values are one fixed-size slot in the values buffer (buffers[1]);
// 0 for everything else (booleans are bits, dictionaries and nested types have children).
int SlotWidth(const arrow::DataType& type) {
  if (type.id() == arrow::Type::DICTIONARY || type.id() == arrow::Type::EXTENSION) return 0;
  if (!arrow::is_fixed_width(type.id()) || type.num_fields() != 0) return 0;
  const int bits = type.bit_width();
  return bits > 0 && bits % 8 == 0 ? bits / 8 : 0;
}

template <int kWidth>
void Scatter(uint8_t* out, const uint8_t* in, const std::vector<int64_t>& positions, int width) {
  const int w = kWidth > 0 ? kWidth : width;
  for (size_t k = 0; k < positions.size(); ++k) {
    std::memcpy(out + positions[k] * w, in + static_cast<int64_t>(k) * w, w);
  }
}

Result<std::shared_ptr<arrow::Array>> SpliceFixedWidth(const arrow::ArrayData& cur,
                                                       const std::vector<int64_t>& positions,
                                                       const arrow::ArrayData& upd, int width,
                                                       arrow::MemoryPool* pool) {
  const int64_t n = cur.length;
  ARROW_ASSIGN_OR_RAISE(auto values, arrow::AllocateBuffer(n * width, pool));
  uint8_t* out = values->mutable_data();
  std::memcpy(out, cur.buffers[1]->data() + cur.offset * width, static_cast<size_t>(n * width));
  const uint8_t* in = upd.buffers[1]->data() + upd.offset * width;
  switch (width) {
    case 4:
      Scatter<4>(out, in, positions, width);
      break;
    case 8:
      Scatter<8>(out, in, positions, width);
      break;
    default:
      Scatter<0>(out, in, positions, width);
  }
  std::shared_ptr<arrow::Buffer> validity;
  const bool cur_nulls = cur.GetNullCount() > 0;
  const bool upd_nulls = upd.GetNullCount() > 0;
  if (cur_nulls || upd_nulls) {
    ARROW_ASSIGN_OR_RAISE(auto bitmap, arrow::AllocateBitmap(n, pool));
    uint8_t* bits = bitmap->mutable_data();
    if (cur_nulls) {
      arrow::internal::CopyBitmap(cur.buffers[0]->data(), cur.offset, n, bits, 0);
    } else {
      arrow::bit_util::SetBitsTo(bits, 0, n, true);
    }
    const uint8_t* upd_bits = upd_nulls ? upd.buffers[0]->data() : nullptr;
    for (size_t k = 0; k < positions.size(); ++k) {
      const bool valid = upd_bits == nullptr ||
                         arrow::bit_util::GetBit(upd_bits, upd.offset + static_cast<int64_t>(k));
      arrow::bit_util::SetBitTo(bits, positions[k], valid);
    }
    validity = std::move(bitmap);
  }
  const int64_t null_count = validity ? arrow::kUnknownNullCount : 0;
  auto data =
      arrow::ArrayData::Make(cur.type, n, {std::move(validity), std::move(values)}, null_count);
  return arrow::MakeArray(data);
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> SpliceColumn(const std::shared_ptr<arrow::Array>& current,
                                                   const std::vector<int64_t>& positions,
                                                   const std::shared_ptr<arrow::Array>& updates,
                                                   arrow::MemoryPool* pool) {
  const int64_t n = current->length();
  const int64_t m = static_cast<int64_t>(positions.size());
  if (updates->length() != m || !current->type()->Equals(*updates->type())) {
    return Status::Invalid("internal: splice of ", m, " positions got ", updates->length(), " ",
                           updates->type()->ToString(), " values for a ",
                           current->type()->ToString(), " column");
  }
  for (int64_t k = 0; k < m; ++k) {
    if (positions[k] < 0 || positions[k] >= n || (k > 0 && positions[k] <= positions[k - 1])) {
      return Status::Invalid("internal: splice positions must increase within [0, ", n, ")");
    }
  }
  if (const int width = SlotWidth(*current->type()); width > 0) {
    return SpliceFixedWidth(*current->data(), positions, *updates->data(), width, pool);
  }
  // Take indices over concat(current, updates): untouched rows keep their index, updated rows
  // point past the current values.
  arrow::Int64Builder idx(pool);
  ARROW_RETURN_NOT_OK(idx.Reserve(n));
  int64_t k = 0;
  for (int64_t pos = 0; pos < n; ++pos) {
    if (k < m && positions[k] == pos) {
      idx.UnsafeAppend(n + k);
      ++k;
    } else {
      idx.UnsafeAppend(pos);
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto indices, idx.Finish());
  ARROW_ASSIGN_OR_RAISE(auto both, arrow::Concatenate({current, updates}, pool));
  cp::ExecContext ctx(pool);
  ARROW_ASSIGN_OR_RAISE(auto merged, cp::Take(both, indices, cp::TakeOptions::Defaults(), &ctx));
  return merged.make_array();
}

}  // namespace paimon_rowid::rowid_internal
