#include "paimon_rowid/gindex/key_codec.h"

#include <arrow/compute/cast.h>
#include <arrow/scalar.h>
#include <arrow/util/decimal.h>

#include <cmath>
#include <cstring>
#include <utility>

#include "paimon_rowid/codec/little_endian.h"
#include "paimon_rowid/gindex/var_len_internal.h"

namespace paimon_rowid {
namespace {

template <typename T>
int Cmp(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

template <typename F>
int CompareFloat(F a, F b) {
  const bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
  return Cmp(a, b);  // -0.0 == 0.0
}

template <typename F, typename U>
F LoadFloat(const char* p) {
  const U bits = LoadLE<U>(p);
  F v;
  std::memcpy(&v, &bits, sizeof(v));
  return v;
}

template <typename F, typename U>
void AppendFloat(std::string* out, F v) {
  U bits;
  std::memcpy(&bits, &v, sizeof(bits));
  AppendLE<U>(out, bits);
}

// Floor division and modulo (Python's divmod), for epoch values before 1970.
int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// A timestamp key's (epoch millis, nanos of the milli); the nanos are 0 when absent.
std::pair<int64_t, int64_t> TimestampParts(std::string_view key) {
  const int64_t millis = LoadLE<int64_t>(key.data());
  size_t pos = 8;
  auto nanos = gindex_internal::ReadVarLen(key, &pos, 5, "timestamp key");
  return {millis, key.size() > 8 && nanos.ok() ? *nanos : 0};
}

// The shortest big-endian two's complement of `v` (Java's BigInteger.toByteArray).
std::string BigEndianMinimal(const arrow::Decimal128& v) {
  std::string be(16, '\0');
  uint64_t hi = static_cast<uint64_t>(v.high_bits()), lo = v.low_bits();
  for (int i = 0; i < 8; ++i) {
    be[static_cast<size_t>(7 - i)] = static_cast<char>((hi >> (8 * i)) & 0xFF);
    be[static_cast<size_t>(15 - i)] = static_cast<char>((lo >> (8 * i)) & 0xFF);
  }
  size_t start = 0;
  while (start + 1 < be.size()) {
    const auto b0 = static_cast<uint8_t>(be[start]), b1 = static_cast<uint8_t>(be[start + 1]);
    if ((b0 == 0x00 && b1 < 0x80) || (b0 == 0xFF && b1 >= 0x80)) {
      ++start;
    } else {
      break;
    }
  }
  return be.substr(start);
}

// Compares two shortest big-endian two's complement integers.
int CompareBigEndian(std::string_view a, std::string_view b) {
  const bool an = !a.empty() && (static_cast<uint8_t>(a[0]) & 0x80);
  const bool bn = !b.empty() && (static_cast<uint8_t>(b[0]) & 0x80);
  if (an != bn) return an ? -1 : 1;
  if (a.size() != b.size()) return (a.size() < b.size()) == an ? 1 : -1;
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

}  // namespace

size_t KeyCodec::Width() const {
  switch (root_) {
    case TypeRoot::kBoolean:
    case TypeRoot::kTinyInt:
      return 1;
    case TypeRoot::kSmallInt:
      return 2;
    case TypeRoot::kInt:
    case TypeRoot::kDate:
    case TypeRoot::kFloat:
    case TypeRoot::kTime:
      return 4;
    case TypeRoot::kBigInt:
    case TypeRoot::kDouble:
      return 8;
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return sub_millis_ ? 0 : 8;
    case TypeRoot::kDecimal:
      return decimal_precision_ <= 18 ? 8 : 0;
    default:
      return 0;
  }
}

Result<KeyCodec> KeyCodec::Make(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
    case TypeRoot::kFloat:
    case TypeRoot::kDouble:
    case TypeRoot::kDate:
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return KeyCodec(type.root(), type.ToArrow());
    case TypeRoot::kTime:
      return KeyCodec(type.root(), type.ToArrow());
    case TypeRoot::kDecimal: {
      KeyCodec codec(type.root(), type.ToArrow());
      codec.decimal_precision_ = type.precision();
      return codec;
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      KeyCodec codec(type.root(), type.ToArrow());
      switch (static_cast<const arrow::TimestampType&>(*codec.arrow_type_).unit()) {
        case arrow::TimeUnit::SECOND:
          codec.nanos_per_unit_ = 1'000'000'000;
          break;
        case arrow::TimeUnit::MILLI:
          codec.nanos_per_unit_ = 1'000'000;
          break;
        case arrow::TimeUnit::MICRO:
          codec.nanos_per_unit_ = 1'000;
          break;
        case arrow::TimeUnit::NANO:
          codec.nanos_per_unit_ = 1;
          break;
      }
      codec.sub_millis_ = type.precision() > 3;
      return codec;
    }
    default:
      return Status::Invalid("a global index cannot be built on a column of type ",
                             type.ToString());
  }
}

Status KeyCodec::Append(const arrow::Array& array, int64_t i, std::string* out) const {
  const arrow::Type::type id = array.type_id();
  auto mismatch = [&]() {
    return Status::TypeError("global-index key column of Arrow type ", array.type()->ToString(),
                             " does not hold ", arrow_type_->ToString(), " values");
  };
  switch (root_) {
    case TypeRoot::kBoolean:
      if (id != arrow::Type::BOOL) return mismatch();
      out->push_back(static_cast<const arrow::BooleanArray&>(array).Value(i) ? 1 : 0);
      return Status::OK();
    case TypeRoot::kTinyInt:
      if (id != arrow::Type::INT8) return mismatch();
      AppendLE<int8_t>(out, static_cast<const arrow::Int8Array&>(array).Value(i));
      return Status::OK();
    case TypeRoot::kSmallInt:
      if (id != arrow::Type::INT16) return mismatch();
      AppendLE<int16_t>(out, static_cast<const arrow::Int16Array&>(array).Value(i));
      return Status::OK();
    case TypeRoot::kInt:
      if (id != arrow::Type::INT32) return mismatch();
      AppendLE<int32_t>(out, static_cast<const arrow::Int32Array&>(array).Value(i));
      return Status::OK();
    case TypeRoot::kDate:
      if (id != arrow::Type::DATE32) return mismatch();
      AppendLE<int32_t>(out, static_cast<const arrow::Date32Array&>(array).Value(i));
      return Status::OK();
    case TypeRoot::kBigInt:
      if (id != arrow::Type::INT64) return mismatch();
      AppendLE<int64_t>(out, static_cast<const arrow::Int64Array&>(array).Value(i));
      return Status::OK();
    case TypeRoot::kFloat:
      if (id != arrow::Type::FLOAT) return mismatch();
      AppendFloat<float, uint32_t>(out, static_cast<const arrow::FloatArray&>(array).Value(i));
      return Status::OK();
    case TypeRoot::kDouble:
      if (id != arrow::Type::DOUBLE) return mismatch();
      AppendFloat<double, uint64_t>(out, static_cast<const arrow::DoubleArray&>(array).Value(i));
      return Status::OK();
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: {
      std::string_view v;
      if (id == arrow::Type::STRING) {
        v = static_cast<const arrow::StringArray&>(array).GetView(i);
      } else if (id == arrow::Type::LARGE_STRING) {
        v = static_cast<const arrow::LargeStringArray&>(array).GetView(i);
      } else if (id == arrow::Type::STRING_VIEW) {
        v = static_cast<const arrow::StringViewArray&>(array).GetView(i);
      } else {
        return mismatch();
      }
      out->append(v.data(), v.size());
      return Status::OK();
    }
    case TypeRoot::kTime:
      if (id != arrow::Type::TIME32) return mismatch();
      AppendLE<int32_t>(out, static_cast<const arrow::Time32Array&>(array).Value(i));
      return Status::OK();
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      if (id != arrow::Type::TIMESTAMP ||
          static_cast<const arrow::TimestampType&>(*array.type()).unit() !=
              static_cast<const arrow::TimestampType&>(*arrow_type_).unit()) {
        return mismatch();
      }
      const int64_t v = static_cast<const arrow::TimestampArray&>(array).Value(i);
      // Microseconds since the epoch (pypaimon's datetime), then (millis, nanos of milli).
      const int64_t micros = nanos_per_unit_ >= 1000 ? v * (nanos_per_unit_ / 1000)
                                                     : FloorDiv(v, 1000 / nanos_per_unit_);
      const int64_t millis = FloorDiv(micros, 1000);
      AppendLE<int64_t>(out, millis);
      if (sub_millis_) {
        gindex_internal::AppendVarLen(out, static_cast<uint64_t>((micros - millis * 1000) * 1000));
      }
      return Status::OK();
    }
    case TypeRoot::kDecimal: {
      if (id != arrow::Type::DECIMAL128) return mismatch();
      const arrow::Decimal128 v(static_cast<const arrow::Decimal128Array&>(array).GetValue(i));
      if (decimal_precision_ <= 18) {
        AppendLE<int64_t>(out, static_cast<int64_t>(v.low_bits()));
      } else {
        out->append(BigEndianMinimal(v));
      }
      return Status::OK();
    }
    default:
      return Status::NotImplemented("global-index key type");
  }
}

Result<std::string> KeyCodec::FromScalar(const arrow::Scalar& scalar) const {
  if (!scalar.is_valid) return Status::Invalid("a null literal has no global-index key");
  std::shared_ptr<arrow::Scalar> typed;
  if (scalar.type->Equals(*arrow_type_)) {
    ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(scalar, 1));
    std::string out;
    ARROW_RETURN_NOT_OK(Append(*array, 0, &out));
    return out;
  }
  ARROW_ASSIGN_OR_RAISE(typed, scalar.CastTo(arrow_type_));
  ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*typed, 1));
  std::string out;
  ARROW_RETURN_NOT_OK(Append(*array, 0, &out));
  return out;
}

int KeyCodec::Compare(std::string_view a, std::string_view b) const {
  const size_t width = Width();
  if (width != 0 && (a.size() < width || b.size() < width)) {
    return Cmp(a.size(), b.size());
  }
  switch (root_) {
    case TypeRoot::kBoolean:
    case TypeRoot::kTinyInt:
      return Cmp(LoadLE<int8_t>(a.data()), LoadLE<int8_t>(b.data()));
    case TypeRoot::kSmallInt:
      return Cmp(LoadLE<int16_t>(a.data()), LoadLE<int16_t>(b.data()));
    case TypeRoot::kInt:
    case TypeRoot::kDate:
    case TypeRoot::kTime:
      return Cmp(LoadLE<int32_t>(a.data()), LoadLE<int32_t>(b.data()));
    case TypeRoot::kBigInt:
      return Cmp(LoadLE<int64_t>(a.data()), LoadLE<int64_t>(b.data()));
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      if (a.size() < 8 || b.size() < 8) return Cmp(a.size(), b.size());
      return Cmp(TimestampParts(a), TimestampParts(b));
    case TypeRoot::kDecimal:
      if (decimal_precision_ <= 18)
        return Cmp(LoadLE<int64_t>(a.data()), LoadLE<int64_t>(b.data()));
      return CompareBigEndian(a, b);
    case TypeRoot::kFloat:
      return CompareFloat(LoadFloat<float, uint32_t>(a.data()),
                          LoadFloat<float, uint32_t>(b.data()));
    case TypeRoot::kDouble:
      return CompareFloat(LoadFloat<double, uint64_t>(a.data()),
                          LoadFloat<double, uint64_t>(b.data()));
    default: {
      const int c = a.compare(b);  // UTF-8 byte order is code-point order
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
  }
}

Status KeyCodec::Validate(std::string_view key) const {
  const size_t width = Width();
  if (width != 0 && key.size() != width) {
    return Status::Invalid("global-index key of ", key.size(), " bytes for a ",
                           arrow_type_->ToString(), " column (expected ", width, ")");
  }
  if (sub_millis_) {
    size_t pos = 8;
    if (key.size() < 9) {
      return Status::Invalid("global-index timestamp key of ", key.size(), " bytes");
    }
    ARROW_ASSIGN_OR_RAISE(int64_t nanos,
                          gindex_internal::ReadVarLen(key, &pos, 5, "timestamp key"));
    if (pos != key.size() || nanos >= 1'000'000) {
      return Status::Invalid("malformed global-index timestamp key");
    }
  }
  if (root_ == TypeRoot::kDecimal && decimal_precision_ > 18 && (key.empty() || key.size() > 16)) {
    return Status::Invalid("global-index decimal key of ", key.size(), " bytes");
  }
  return Status::OK();
}

}  // namespace paimon_rowid
