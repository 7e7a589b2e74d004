#include "paimon_rowid/format/dictionary_choice.h"

#include <string_view>
#include <unordered_set>

#include "arrow/array.h"
#include "arrow/type.h"

namespace paimon_rowid {
namespace {

bool Considered(const arrow::DataType& type) {
  if (arrow::is_integer(type.id()) || arrow::is_temporal(type.id()) ||
      arrow::is_decimal(type.id())) {
    return true;
  }
  switch (type.id()) {
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::FIXED_SIZE_BINARY:
      return true;
    default:
      return false;
  }
}

// The bytes of value i of a fixed-width or binary-like array.
std::string_view ValueBytes(const arrow::Array& array, int64_t i) {
  const auto& data = *array.data();
  switch (array.type_id()) {
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      return static_cast<const arrow::BinaryArray&>(array).GetView(i);
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      return static_cast<const arrow::LargeBinaryArray&>(array).GetView(i);
    default: {
      const int width = array.type()->byte_width();
      const auto* values = data.buffers[1]->data();
      return {reinterpret_cast<const char*>(values) + (data.offset + i) * width,
              static_cast<size_t>(width)};
    }
  }
}

bool NearlyDistinct(const arrow::Array& array, const DictionaryChoiceOptions& options) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(static_cast<size_t>(options.sample_values));
  int64_t sampled = 0;
  for (int64_t i = 0; i < array.length() && sampled < options.sample_values; ++i) {
    if (array.IsNull(i)) continue;
    seen.insert(ValueBytes(array, i));
    ++sampled;
  }
  if (sampled < options.min_values) return false;
  return static_cast<double>(seen.size()) >=
         options.min_distinct_share * static_cast<double>(sampled);
}

}  // namespace

std::vector<std::string> NearlyDistinctColumns(const arrow::RecordBatch& batch,
                                               const DictionaryChoiceOptions& options) {
  std::vector<std::string> out;
  for (int c = 0; c < batch.num_columns(); ++c) {
    const auto& column = *batch.column(c);
    if (!Considered(*column.type())) continue;
    if (NearlyDistinct(column, options)) out.push_back(batch.schema()->field(c)->name());
  }
  return out;
}

}  // namespace paimon_rowid
