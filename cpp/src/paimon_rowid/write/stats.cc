#include "paimon_rowid/write/stats.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>
#include <type_traits>

#include "arrow/array.h"
#include "arrow/builder.h"
#include "arrow/compute/api_aggregate.h"
#include "arrow/compute/exec.h"
#include "arrow/scalar.h"
#include "arrow/util/bit_run_reader.h"
#include "paimon_rowid/codec/binary_row.h"

namespace paimon_rowid {
namespace {

// (min, max) of the non-null values of `array`; both null scalars when there are none.
Result<std::pair<std::shared_ptr<arrow::Scalar>, std::shared_ptr<arrow::Scalar>>> MinMaxOf(
    const std::shared_ptr<arrow::Array>& array, arrow::MemoryPool* pool) {
  arrow::compute::ScalarAggregateOptions opts(/*skip_nulls=*/true, /*min_count=*/1);
  arrow::compute::ExecContext ctx(pool);
  ARROW_ASSIGN_OR_RAISE(arrow::Datum result, arrow::compute::MinMax(array, opts, &ctx));
  const auto& pair = result.scalar_as<arrow::StructScalar>();
  return std::make_pair(pair.value[0], pair.value[1]);
}

// Folds values[0, n) into (lo, hi) with two accumulators each. A NaN never compares less or
// greater, so it is skipped, as Arrow's MinMax skips it.
template <typename T>
void FoldValues(const T* values, int64_t n, T* lo, T* hi) {
  T lo0 = *lo, lo1 = *lo, hi0 = *hi, hi1 = *hi;
  int64_t i = 0;
  for (; i + 2 <= n; i += 2) {
    const T a = values[i], b = values[i + 1];
    lo0 = a < lo0 ? a : lo0;
    hi0 = a > hi0 ? a : hi0;
    lo1 = b < lo1 ? b : lo1;
    hi1 = b > hi1 ? b : hi1;
  }
  for (; i < n; ++i) {
    lo0 = values[i] < lo0 ? values[i] : lo0;
    hi0 = values[i] > hi0 ? values[i] : hi0;
  }
  *lo = lo1 < lo0 ? lo1 : lo0;
  *hi = hi1 > hi0 ? hi1 : hi0;
}

// MinMaxOf for a primitive column of C type T, in one branch-free pass instead of Arrow's
// kernel (which calls fmin/fmax per value: 12% of rewriting a million-row double column).
// nullopt where the kernel's answer is kept: no non-null non-NaN value, or a floating-point
// bound of zero (whether -0.0 or +0.0 is reported is the kernel's business).
template <typename T>
Result<std::optional<std::pair<std::shared_ptr<arrow::Scalar>, std::shared_ptr<arrow::Scalar>>>>
FastMinMaxOf(const arrow::Array& array) {
  const auto& data = *array.data();
  const T* values = data.GetValues<T>(1);
  T lo, hi;
  if constexpr (std::is_floating_point_v<T>) {
    lo = std::numeric_limits<T>::infinity();
    hi = -std::numeric_limits<T>::infinity();
  } else {
    lo = std::numeric_limits<T>::max();
    hi = std::numeric_limits<T>::lowest();
  }
  if (array.null_count() == 0) {
    FoldValues(values, array.length(), &lo, &hi);
  } else {
    arrow::internal::VisitSetBitRunsVoid(
        data.buffers[0], data.offset, data.length,
        [&](int64_t pos, int64_t len) { FoldValues(values + pos, len, &lo, &hi); });
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (!(lo <= hi) || lo == 0 || hi == 0) return std::nullopt;
  }
  ARROW_ASSIGN_OR_RAISE(auto lo_scalar, arrow::MakeScalar(array.type(), lo));
  ARROW_ASSIGN_OR_RAISE(auto hi_scalar, arrow::MakeScalar(array.type(), hi));
  return std::make_optional(std::make_pair(std::move(lo_scalar), std::move(hi_scalar)));
}

using Bounds = std::pair<std::shared_ptr<arrow::Scalar>, std::shared_ptr<arrow::Scalar>>;

// FastMinMaxOf for the primitive types it handles; nullopt for the others.
Result<std::optional<Bounds>> FastMinMax(const arrow::Array& array) {
  switch (array.type_id()) {
    case arrow::Type::INT8:
      return FastMinMaxOf<int8_t>(array);
    case arrow::Type::INT16:
      return FastMinMaxOf<int16_t>(array);
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
    case arrow::Type::TIME32:
      return FastMinMaxOf<int32_t>(array);
    case arrow::Type::INT64:
    case arrow::Type::TIMESTAMP:
    case arrow::Type::TIME64:
      return FastMinMaxOf<int64_t>(array);
    case arrow::Type::FLOAT:
      return FastMinMaxOf<float>(array);
    case arrow::Type::DOUBLE:
      return FastMinMaxOf<double>(array);
    default:
      return std::nullopt;
  }
}

// (min, max) of the non-null values of a column that has some, as Arrow's MinMax computes
// them; primitive numbers, dates and times in one pass of our own.
Result<Bounds> ColumnMinMax(const std::shared_ptr<arrow::Array>& array, arrow::MemoryPool* pool) {
  ARROW_ASSIGN_OR_RAISE(std::optional<Bounds> fast, FastMinMax(*array));
  if (fast) return std::move(*fast);
  return MinMaxOf(array, pool);
}

Result<std::shared_ptr<arrow::Array>> ArrayOf(
    const std::shared_ptr<arrow::DataType>& type,
    const std::vector<std::shared_ptr<arrow::Scalar>>& values, arrow::MemoryPool* pool) {
  std::unique_ptr<arrow::ArrayBuilder> builder;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(pool, type, &builder));
  ARROW_RETURN_NOT_OK(builder->AppendScalars(values));
  return builder->Finish();
}

bool IsString(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::STRING_VIEW:
      return true;
    default:
      return false;
  }
}

bool IsBinary(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::BINARY_VIEW:
    case arrow::Type::FIXED_SIZE_BINARY:
      return true;
    default:
      return false;
  }
}

std::string_view BytesOf(const arrow::Scalar& s) {
  return static_cast<const arrow::BaseBinaryScalar&>(s).view();
}

// Bytes of the code point whose first byte is `lead`, counted as Java's BinaryString counts
// them: a byte that cannot start a sequence is one code point of one byte.
size_t SequenceBytes(uint8_t lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

// Decodes well-formed UTF-8 into (byte offset, code point) pairs; false on anything else.
bool DecodeUtf8(std::string_view s, std::vector<std::pair<size_t, char32_t>>* out) {
  size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<uint8_t>(s[i]);
    size_t len = b < 0x80             ? 1
                 : (b & 0xE0) == 0xC0 ? 2
                 : (b & 0xF0) == 0xE0 ? 3
                 : (b & 0xF8) == 0xF0 ? 4
                                      : 0;
    if (len == 0 || i + len > s.size()) return false;
    char32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    for (size_t k = 1; k < len; ++k) {
      const auto c = static_cast<uint8_t>(s[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    static constexpr char32_t kMinOfLength[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMinOfLength[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    out->emplace_back(i, cp);
    i += len;
  }
  return true;
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

bool SupportsStats(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kVariant:
    case TypeRoot::kBlob:
    case TypeRoot::kArray:
    case TypeRoot::kMap:
    case TypeRoot::kMultiset:
    case TypeRoot::kRow:
    case TypeRoot::kVector:
      return false;
    default:
      return true;
  }
}

StatsMode ParquetColumnStatsMode(const DataType& type, StatsMode mode) {
  const bool binary = type.root() == TypeRoot::kBinary || type.root() == TypeRoot::kVarBinary;
  if (binary && mode.kind != StatsMode::Kind::kNone) return StatsMode::Counts();
  return mode;
}

std::string_view Utf8Prefix(std::string_view utf8, int32_t n) {
  size_t end = 0;
  for (int32_t k = 0; k < n && end < utf8.size(); ++k) {
    end += SequenceBytes(static_cast<uint8_t>(utf8[end]));
  }
  return utf8.substr(0, std::min(end, utf8.size()));
}

std::optional<std::string> Utf8UpperBound(std::string_view utf8, int32_t n) {
  std::string_view prefix = Utf8Prefix(utf8, n);
  if (prefix.size() == utf8.size()) return std::string(utf8);
  std::vector<std::pair<size_t, char32_t>> points;
  if (!DecodeUtf8(prefix, &points)) return std::nullopt;
  // Incrementing the last code point gives the least string above every extension of the
  // prefix; U+10FFFF cannot grow, so the one before it is tried, and so on.
  for (size_t k = points.size(); k-- > 0;) {
    char32_t cp = points[k].second;
    if (cp == 0x10FFFF) continue;
    char32_t next = cp + 1 == 0xD800 ? 0xE000 : cp + 1;  // skip the surrogate block
    std::string bound(prefix.substr(0, points[k].first));
    AppendUtf8(next, &bound);
    return bound;
  }
  return std::nullopt;
}

// ------------------------------------------------------------------------- StatsCollector

StatsCollector::StatsCollector(std::vector<std::shared_ptr<arrow::DataType>> types,
                               std::vector<StatsMode> modes, arrow::MemoryPool* pool)
    : types_(std::move(types)),
      modes_(modes.empty() ? std::vector<StatsMode>(types_.size(), StatsMode::Full())
                           : std::move(modes)),
      pool_(pool),
      mins_(types_.size()),
      maxs_(types_.size()),
      null_counts_(types_.size(), 0),
      no_upper_bound_(types_.size(), false) {}

bool StatsCollector::KeepsBounds(size_t i) const {
  switch (modes_[i].kind) {
    case StatsMode::Kind::kNone:
    case StatsMode::Kind::kCounts:
      return false;
    case StatsMode::Kind::kTruncate:
      // Java's truncate collector bounds only comparable values; byte[] is not one.
      return !IsBinary(*types_[i]) && !no_upper_bound_[i];
    case StatsMode::Kind::kFull:
      return true;
  }
  return true;
}

Status StatsCollector::Fold(size_t i, const std::shared_ptr<arrow::Scalar>& lo,
                            const std::shared_ptr<arrow::Scalar>& hi) {
  if (modes_[i].kind != StatsMode::Kind::kTruncate || !IsString(*types_[i])) {
    mins_[i].push_back(lo);
    maxs_[i].push_back(hi);
    return Status::OK();
  }
  const int32_t n = modes_[i].length;
  std::optional<std::string> upper = Utf8UpperBound(BytesOf(*hi), n);
  if (!upper) {
    no_upper_bound_[i] = true;
    mins_[i].clear();
    maxs_[i].clear();
    return Status::OK();
  }
  std::string_view lower = Utf8Prefix(BytesOf(*lo), n);
  ARROW_ASSIGN_OR_RAISE(
      auto lo_scalar, arrow::MakeScalar(types_[i], arrow::Buffer::FromString(std::string(lower))));
  ARROW_ASSIGN_OR_RAISE(auto hi_scalar,
                        arrow::MakeScalar(types_[i], arrow::Buffer::FromString(std::move(*upper))));
  mins_[i].push_back(std::move(lo_scalar));
  maxs_[i].push_back(std::move(hi_scalar));
  return Status::OK();
}

Status StatsCollector::Update(const std::vector<std::shared_ptr<arrow::Array>>& columns) {
  if (columns.size() != types_.size() || modes_.size() != types_.size()) {
    return Status::Invalid("stats: column count mismatch");
  }
  for (size_t i = 0; i < columns.size(); ++i) ARROW_RETURN_NOT_OK(UpdateColumn(i, columns[i]));
  return Status::OK();
}

Status StatsCollector::UpdateColumn(size_t i, const std::shared_ptr<arrow::Array>& col) {
  if (i >= types_.size() || modes_.size() != types_.size()) {
    return Status::Invalid("stats: column count mismatch");
  }
  if (modes_[i].kind == StatsMode::Kind::kNone) return Status::OK();
  null_counts_[i] += col->null_count();
  if (col->length() == col->null_count() || !KeepsBounds(i)) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto mm, ColumnMinMax(col, pool_));
  return Fold(i, mm.first, mm.second);
}

Status StatsCollector::UpdateBounds(size_t i, const std::shared_ptr<arrow::Scalar>& min,
                                    const std::shared_ptr<arrow::Scalar>& max, int64_t null_count) {
  if (i >= types_.size() || modes_.size() != types_.size()) {
    return Status::Invalid("stats: column count mismatch");
  }
  if (modes_[i].kind == StatsMode::Kind::kNone) return Status::OK();
  null_counts_[i] += null_count;
  if (!min || !max || !min->is_valid || !max->is_valid || !KeepsBounds(i)) return Status::OK();
  return Fold(i, min, max);
}

Status StatsCollector::UpdateScalars(const std::vector<std::shared_ptr<arrow::Scalar>>& values) {
  if (values.size() != types_.size() || modes_.size() != types_.size()) {
    return Status::Invalid("stats: column count mismatch");
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (modes_[i].kind == StatsMode::Kind::kNone) continue;
    if (!values[i] || !values[i]->is_valid) {
      ++null_counts_[i];
      continue;
    }
    if (KeepsBounds(i)) ARROW_RETURN_NOT_OK(Fold(i, values[i], values[i]));
  }
  return Status::OK();
}

Result<SimpleStats> StatsCollector::Finish() const {
  std::vector<std::shared_ptr<arrow::Scalar>> mins, maxs;
  std::vector<std::optional<int64_t>> nulls;
  for (size_t i = 0; i < types_.size(); ++i) {
    const bool none = i < modes_.size() && modes_[i].kind == StatsMode::Kind::kNone;
    nulls.push_back(none ? std::nullopt : std::optional<int64_t>(null_counts_[i]));
    if (mins_[i].empty()) {
      mins.push_back(arrow::MakeNullScalar(types_[i]));
      maxs.push_back(arrow::MakeNullScalar(types_[i]));
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto min_array, ArrayOf(types_[i], mins_[i], pool_));
    ARROW_ASSIGN_OR_RAISE(auto max_array, ArrayOf(types_[i], maxs_[i], pool_));
    ARROW_ASSIGN_OR_RAISE(auto lo, MinMaxOf(min_array, pool_));
    ARROW_ASSIGN_OR_RAISE(auto hi, MinMaxOf(max_array, pool_));
    mins.push_back(lo.first);
    maxs.push_back(hi.second);
  }
  SimpleStats stats;
  ARROW_ASSIGN_OR_RAISE(stats.min_values, EncodeBinaryRow(mins));
  ARROW_ASSIGN_OR_RAISE(stats.max_values, EncodeBinaryRow(maxs));
  stats.null_counts = std::move(nulls);
  return stats;
}

}  // namespace paimon_rowid
