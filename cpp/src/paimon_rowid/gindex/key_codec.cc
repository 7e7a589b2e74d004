#include "paimon_rowid/gindex/key_codec.h"

#include <arrow/compute/cast.h>
#include <arrow/scalar.h>

#include <cmath>
#include <cstring>

#include "paimon_rowid/codec/little_endian.h"

namespace paimon_rowid {
namespace {

// The key's fixed width, 0 for strings.
size_t WidthOf(TypeRoot root) {
  switch (root) {
    case TypeRoot::kBoolean:
    case TypeRoot::kTinyInt:
      return 1;
    case TypeRoot::kSmallInt:
      return 2;
    case TypeRoot::kInt:
    case TypeRoot::kDate:
    case TypeRoot::kFloat:
      return 4;
    case TypeRoot::kBigInt:
    case TypeRoot::kDouble:
      return 8;
    default:
      return 0;
  }
}

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

}  // namespace

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
    case TypeRoot::kDecimal:
    case TypeRoot::kTime:
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return Status::NotImplemented("global-index keys of type ", type.ToString(),
                                    " are not supported yet");
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
  const size_t width = WidthOf(root_);
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
      return Cmp(LoadLE<int32_t>(a.data()), LoadLE<int32_t>(b.data()));
    case TypeRoot::kBigInt:
      return Cmp(LoadLE<int64_t>(a.data()), LoadLE<int64_t>(b.data()));
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
  const size_t width = WidthOf(root_);
  if (width != 0 && key.size() != width) {
    return Status::Invalid("global-index key of ", key.size(), " bytes for a ",
                           arrow_type_->ToString(), " column (expected ", width, ")");
  }
  return Status::OK();
}

}  // namespace paimon_rowid
