#include "paimon_rowid/codec/binary_row.h"

#include <bit>
#include <cstring>
#include <limits>

#include "arrow/array.h"
#include "arrow/scalar.h"
#include "arrow/type.h"
#include "arrow/util/checked_cast.h"
#include "arrow/util/decimal.h"
#include "paimon_rowid/codec/decimal_bytes.h"

namespace paimon_rowid {

// Row numbers are little-endian on every platform Java and pypaimon run on; we copy them
// with memcpy.
static_assert(std::endian::native == std::endian::little, "little-endian host required");

namespace {

using arrow::internal::checked_cast;

constexpr int kDecimalVarBytes = 16;
constexpr int64_t kMillisPerSecond = 1000;

// Header (RowKind byte + null bits) size, rounded to whole 8-byte words.
int64_t HeaderBytes(int64_t arity) { return ((arity + 63 + 8) / 64) * 8; }

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

// Timestamps with sub-millisecond units are stored as millis plus nano-of-millisecond.
bool IsCompactTimestamp(const arrow::TimestampType& type) {
  return type.unit() == arrow::TimeUnit::SECOND || type.unit() == arrow::TimeUnit::MILLI;
}

// Writes one row into `*row` (cleared to the zeroed fixed part first).
class RowWriter {
 public:
  RowWriter(int32_t arity, std::string* row)
      : fixed_bytes_(HeaderBytes(arity) + 8 * int64_t{arity}),
        row_(row),
        header_bytes_(HeaderBytes(arity)) {
    row_->assign(static_cast<size_t>(fixed_bytes_), '\0');
  }

  void SetNull(int i) { (*row_)[(i + 8) / 8] |= static_cast<char>(1 << ((i + 8) % 8)); }

  template <typename T>
  void SetSlot(int i, T value) {
    static_assert(sizeof(T) <= 8);
    std::memcpy(row_->data() + SlotOffset(i), &value, sizeof(T));
  }

  // Appends `len` zero bytes (rounded up to a word) to the variable part; returns the offset.
  Result<int64_t> Reserve(int64_t len) {
    int64_t offset = static_cast<int64_t>(row_->size());
    int64_t padded = (len + 7) / 8 * 8;
    if (offset + padded > std::numeric_limits<int32_t>::max()) {
      return Status::Invalid("BinaryRow too large");
    }
    row_->resize(static_cast<size_t>(offset + padded), '\0');
    return offset;
  }

  Status WriteAt(int64_t offset, std::string_view bytes) {
    if (offset < fixed_bytes_ ||
        offset + static_cast<int64_t>(bytes.size()) > static_cast<int64_t>(row_->size())) {
      return Status::Invalid("BinaryRow: write outside the variable part");
    }
    std::memcpy(row_->data() + offset, bytes.data(), bytes.size());
    return Status::OK();
  }

  Status SetVariable(int i, std::string_view bytes) {
    if (bytes.size() <= 7) {
      // Short values live in the slot itself; the top byte holds a marker bit and the length.
      char* slot = row_->data() + SlotOffset(i);
      std::memcpy(slot, bytes.data(), bytes.size());
      slot[7] = static_cast<char>(0x80 | bytes.size());
      return Status::OK();
    }
    ARROW_ASSIGN_OR_RAISE(int64_t offset, Reserve(static_cast<int64_t>(bytes.size())));
    std::memcpy(row_->data() + offset, bytes.data(), bytes.size());
    SetSlot(i, static_cast<uint64_t>(offset) << 32 | bytes.size());
    return Status::OK();
  }

 private:
  int64_t SlotOffset(int i) const { return header_bytes_ + 8 * int64_t{i}; }

  int64_t fixed_bytes_;
  std::string* row_;
  int64_t header_bytes_;
};

// The 4-byte big-endian arity prefix of the serialized form.
std::string ArityPrefix(int32_t arity) {
  std::string out(4, '\0');
  auto a = static_cast<uint32_t>(arity);
  out[0] = static_cast<char>(a >> 24);
  out[1] = static_cast<char>(a >> 16);
  out[2] = static_cast<char>(a >> 8);
  out[3] = static_cast<char>(a);
  return out;
}

Status EncodeField(const arrow::Scalar& scalar, int i, RowWriter* w) {
  const arrow::DataType& type = *scalar.type;
  if (!scalar.is_valid) {
    w->SetNull(i);
    // Java still reserves the variable bytes of a null non-compact decimal/timestamp and
    // points the slot at them; do the same so partition bytes match Java's.
    if (type.id() == arrow::Type::DECIMAL128 &&
        !IsCompactDecimal(checked_cast<const arrow::Decimal128Type&>(type))) {
      ARROW_ASSIGN_OR_RAISE(int64_t offset, w->Reserve(kDecimalVarBytes));
      w->SetSlot(i, static_cast<uint64_t>(offset) << 32);
    } else if (type.id() == arrow::Type::TIMESTAMP &&
               !IsCompactTimestamp(checked_cast<const arrow::TimestampType&>(type))) {
      ARROW_ASSIGN_OR_RAISE(int64_t offset, w->Reserve(8));
      w->SetSlot(i, static_cast<uint64_t>(offset) << 32);
    }
    return Status::OK();
  }
  switch (type.id()) {
    case arrow::Type::BOOL:
      w->SetSlot(i, static_cast<uint8_t>(checked_cast<const arrow::BooleanScalar&>(scalar).value));
      return Status::OK();
    case arrow::Type::INT8:
      w->SetSlot(i, checked_cast<const arrow::Int8Scalar&>(scalar).value);
      return Status::OK();
    case arrow::Type::INT16:
      w->SetSlot(i, checked_cast<const arrow::Int16Scalar&>(scalar).value);
      return Status::OK();
    case arrow::Type::INT32:
      w->SetSlot(i, checked_cast<const arrow::Int32Scalar&>(scalar).value);
      return Status::OK();
    case arrow::Type::DATE32:
      w->SetSlot(i, checked_cast<const arrow::Date32Scalar&>(scalar).value);
      return Status::OK();
    case arrow::Type::INT64:
      w->SetSlot(i, checked_cast<const arrow::Int64Scalar&>(scalar).value);
      return Status::OK();
    case arrow::Type::FLOAT:
      w->SetSlot(i, checked_cast<const arrow::FloatScalar&>(scalar).value);
      return Status::OK();
    case arrow::Type::DOUBLE:
      w->SetSlot(i, checked_cast<const arrow::DoubleScalar&>(scalar).value);
      return Status::OK();
    case arrow::Type::TIME32: {
      // Paimon TIME is millis of day.
      int32_t v = checked_cast<const arrow::Time32Scalar&>(scalar).value;
      if (checked_cast<const arrow::Time32Type&>(type).unit() == arrow::TimeUnit::SECOND) {
        v *= static_cast<int32_t>(kMillisPerSecond);
      }
      w->SetSlot(i, v);
      return Status::OK();
    }
    case arrow::Type::TIME64: {
      int64_t v = checked_cast<const arrow::Time64Scalar&>(scalar).value;
      bool micros = checked_cast<const arrow::Time64Type&>(type).unit() == arrow::TimeUnit::MICRO;
      w->SetSlot(i, static_cast<int32_t>(FloorDiv(v, micros ? 1000 : 1000000)));
      return Status::OK();
    }
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::STRING_VIEW:
    case arrow::Type::BINARY_VIEW:
    case arrow::Type::FIXED_SIZE_BINARY: {
      const auto& value = checked_cast<const arrow::BaseBinaryScalar&>(scalar).value;
      std::string_view bytes = value ? std::string_view(*value) : std::string_view();
      return w->SetVariable(i, bytes);
    }
    case arrow::Type::DECIMAL128: {
      const auto& decimal_type = checked_cast<const arrow::Decimal128Type&>(type);
      const arrow::Decimal128& value = checked_cast<const arrow::Decimal128Scalar&>(scalar).value;
      if (IsCompactDecimal(decimal_type)) {
        auto low = static_cast<int64_t>(value.low_bits());
        if (value.high_bits() != (low >> 63)) {
          return Status::Invalid("Decimal value does not fit precision ", decimal_type.precision());
        }
        w->SetSlot(i, low);
        return Status::OK();
      }
      std::string bytes = DecimalToBigEndian(value);
      ARROW_ASSIGN_OR_RAISE(int64_t offset, w->Reserve(kDecimalVarBytes));
      // The unscaled bytes go at the front of the reserved 16; the rest stays zero.
      w->SetSlot(i, static_cast<uint64_t>(offset) << 32 | bytes.size());
      return w->WriteAt(offset, bytes);
    }
    case arrow::Type::TIMESTAMP: {
      const auto& ts_type = checked_cast<const arrow::TimestampType&>(type);
      int64_t v = checked_cast<const arrow::TimestampScalar&>(scalar).value;
      int64_t millis = 0, nano_of_milli = 0;
      switch (ts_type.unit()) {
        case arrow::TimeUnit::SECOND:
          if (__builtin_mul_overflow(v, kMillisPerSecond, &millis)) {
            return Status::Invalid("Timestamp out of range");
          }
          w->SetSlot(i, millis);
          return Status::OK();
        case arrow::TimeUnit::MILLI:
          w->SetSlot(i, v);
          return Status::OK();
        case arrow::TimeUnit::MICRO:
          millis = FloorDiv(v, 1000);
          nano_of_milli = FloorMod(v, 1000) * 1000;
          break;
        case arrow::TimeUnit::NANO:
          millis = FloorDiv(v, 1000000);
          nano_of_milli = FloorMod(v, 1000000);
          break;
      }
      ARROW_ASSIGN_OR_RAISE(int64_t offset, w->Reserve(8));
      w->SetSlot(i, static_cast<uint64_t>(offset) << 32 | static_cast<uint64_t>(nano_of_milli));
      return w->WriteAt(offset, std::string_view(reinterpret_cast<const char*>(&millis), 8));
    }
    default:
      return Status::NotImplemented("BinaryRow: unsupported type ", type.ToString());
  }
}

// Reads row fields with every offset checked against the row size.
class RowReader {
 public:
  explicit RowReader(std::string_view row, int32_t arity)
      : row_(row), header_bytes_(HeaderBytes(arity)) {}

  bool IsNull(int i) const {
    return (static_cast<uint8_t>(row_[(i + 8) / 8]) >> ((i + 8) % 8)) & 1;
  }

  template <typename T>
  T Slot(int i) const {
    T value;
    std::memcpy(&value, row_.data() + header_bytes_ + 8 * int64_t{i}, sizeof(T));
    return value;
  }

  Result<std::string_view> Bytes(uint64_t offset, uint64_t len) const {
    if (offset > row_.size() || len > row_.size() - offset) {
      return Status::Invalid("BinaryRow: variable field [", offset, ", +", len,
                             ") outside the row of ", row_.size(), " bytes");
    }
    return row_.substr(offset, len);
  }

  Result<std::string_view> Variable(int i) const {
    auto slot = Slot<uint64_t>(i);
    if (slot >> 63) {
      size_t len = (slot >> 56) & 0x7F;
      if (len > 7) return Status::Invalid("BinaryRow: bad inline length ", len);
      return row_.substr(header_bytes_ + 8 * int64_t{i}, len);
    }
    return Bytes(slot >> 32, slot & 0xFFFFFFFFu);
  }

 private:
  std::string_view row_;
  int64_t header_bytes_;
};

Result<std::shared_ptr<arrow::Scalar>> DecodeField(const RowReader& r, int i,
                                                   const std::shared_ptr<arrow::DataType>& type) {
  if (r.IsNull(i)) return arrow::MakeNullScalar(type);
  switch (type->id()) {
    case arrow::Type::BOOL:
      return arrow::MakeScalar(type, r.Slot<uint8_t>(i) != 0);
    case arrow::Type::INT8:
      return arrow::MakeScalar(type, r.Slot<int8_t>(i));
    case arrow::Type::INT16:
      return arrow::MakeScalar(type, r.Slot<int16_t>(i));
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
      return arrow::MakeScalar(type, r.Slot<int32_t>(i));
    case arrow::Type::INT64:
      return arrow::MakeScalar(type, r.Slot<int64_t>(i));
    case arrow::Type::FLOAT:
      return arrow::MakeScalar(type, r.Slot<float>(i));
    case arrow::Type::DOUBLE:
      return arrow::MakeScalar(type, r.Slot<double>(i));
    case arrow::Type::TIME32: {
      auto millis = r.Slot<int32_t>(i);
      bool seconds =
          checked_cast<const arrow::Time32Type&>(*type).unit() == arrow::TimeUnit::SECOND;
      return arrow::MakeScalar(type, seconds ? millis / 1000 : millis);
    }
    case arrow::Type::TIME64: {
      int64_t millis = r.Slot<int32_t>(i);
      bool micros = checked_cast<const arrow::Time64Type&>(*type).unit() == arrow::TimeUnit::MICRO;
      return arrow::MakeScalar(type, millis * (micros ? 1000 : 1000000));
    }
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::STRING_VIEW:
    case arrow::Type::BINARY_VIEW:
    case arrow::Type::FIXED_SIZE_BINARY: {
      ARROW_ASSIGN_OR_RAISE(std::string_view bytes, r.Variable(i));
      if (type->id() == arrow::Type::FIXED_SIZE_BINARY &&
          static_cast<int64_t>(bytes.size()) !=
              checked_cast<const arrow::FixedSizeBinaryType&>(*type).byte_width()) {
        return Status::Invalid("BinaryRow: fixed-size binary of the wrong length");
      }
      return arrow::MakeScalar(type, std::string(bytes));
    }
    case arrow::Type::DECIMAL128: {
      const auto& decimal_type = checked_cast<const arrow::Decimal128Type&>(*type);
      if (IsCompactDecimal(decimal_type)) {
        return arrow::MakeScalar(type, arrow::Decimal128(r.Slot<int64_t>(i)));
      }
      auto slot = r.Slot<uint64_t>(i);
      uint64_t len = slot & 0xFFFFFFFFu;
      if (len == 0 || len > kDecimalVarBytes) {
        return Status::Invalid("BinaryRow: bad decimal length ", len);
      }
      ARROW_ASSIGN_OR_RAISE(std::string_view bytes, r.Bytes(slot >> 32, len));
      ARROW_ASSIGN_OR_RAISE(auto value, DecimalFromBigEndian(bytes));
      return arrow::MakeScalar(type, value);
    }
    case arrow::Type::TIMESTAMP: {
      const auto& ts_type = checked_cast<const arrow::TimestampType&>(*type);
      if (ts_type.unit() == arrow::TimeUnit::MILLI) {
        return arrow::MakeScalar(type, r.Slot<int64_t>(i));
      }
      if (ts_type.unit() == arrow::TimeUnit::SECOND) {
        // The writer multiplies back; millis whose floored seconds cannot be written (within a
        // second of INT64_MIN) are out of range, as for the other units.
        int64_t seconds = FloorDiv(r.Slot<int64_t>(i), kMillisPerSecond), millis;
        if (__builtin_mul_overflow(seconds, kMillisPerSecond, &millis)) {
          return Status::Invalid("BinaryRow: timestamp out of range for ", type->ToString());
        }
        return arrow::MakeScalar(type, seconds);
      }
      auto slot = r.Slot<uint64_t>(i);
      int64_t nano_of_milli = static_cast<int64_t>(slot & 0xFFFFFFFFu);
      if (nano_of_milli > 999999) {
        return Status::Invalid("BinaryRow: bad nano-of-millisecond ", nano_of_milli);
      }
      ARROW_ASSIGN_OR_RAISE(std::string_view bytes, r.Bytes(slot >> 32, 8));
      int64_t millis;
      std::memcpy(&millis, bytes.data(), 8);
      bool micros = ts_type.unit() == arrow::TimeUnit::MICRO;
      int64_t value;
      if (__builtin_mul_overflow(millis, micros ? 1000 : 1000000, &value) ||
          __builtin_add_overflow(value, micros ? nano_of_milli / 1000 : nano_of_milli, &value)) {
        return Status::Invalid("BinaryRow: timestamp out of range for ", type->ToString());
      }
      return arrow::MakeScalar(type, value);
    }
    default:
      return Status::NotImplemented("BinaryRow: unsupported type ", type->ToString());
  }
}

}  // namespace

const std::string& EmptySerializedBinaryRow() {
  static const std::string* empty = new std::string(12, '\0');
  return *empty;
}

Result<int32_t> SerializedBinaryRowArity(std::string_view serialized) {
  if (serialized.size() < 4) return Status::Invalid("Serialized BinaryRow shorter than 4 bytes");
  uint32_t a = (uint32_t{static_cast<uint8_t>(serialized[0])} << 24) |
               (uint32_t{static_cast<uint8_t>(serialized[1])} << 16) |
               (uint32_t{static_cast<uint8_t>(serialized[2])} << 8) |
               uint32_t{static_cast<uint8_t>(serialized[3])};
  return static_cast<int32_t>(a);
}

Result<std::vector<std::shared_ptr<arrow::Scalar>>> DecodeBinaryRow(
    std::string_view serialized, const std::vector<std::shared_ptr<arrow::DataType>>& types) {
  ARROW_ASSIGN_OR_RAISE(int32_t arity, SerializedBinaryRowArity(serialized));
  if (arity < 0 || static_cast<size_t>(arity) != types.size()) {
    return Status::Invalid("BinaryRow arity ", arity, " but ", types.size(), " types given");
  }
  std::string_view row = serialized.substr(4);
  if (static_cast<int64_t>(row.size()) < HeaderBytes(arity) + 8 * int64_t{arity}) {
    return Status::Invalid("BinaryRow of arity ", arity, " truncated at ", row.size(), " bytes");
  }
  RowReader reader(row, arity);
  std::vector<std::shared_ptr<arrow::Scalar>> values;
  values.reserve(types.size());
  for (int i = 0; i < arity; ++i) {
    if (types[i] == nullptr) return Status::Invalid("BinaryRow: null type for field ", i);
    ARROW_ASSIGN_OR_RAISE(auto value, DecodeField(reader, i, types[i]));
    values.push_back(std::move(value));
  }
  return values;
}

Result<std::string> EncodeBinaryRow(const std::vector<std::shared_ptr<arrow::Scalar>>& values) {
  if (values.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max() / 16)) {
    return Status::Invalid("BinaryRow: too many fields");
  }
  auto arity = static_cast<int32_t>(values.size());
  std::string row;
  RowWriter writer(arity, &row);
  for (int i = 0; i < arity; ++i) {
    if (values[i] == nullptr || values[i]->type == nullptr) {
      return Status::Invalid("BinaryRow: missing scalar for field ", i);
    }
    ARROW_RETURN_NOT_OK(EncodeField(*values[i], i, &writer));
  }
  return ArityPrefix(arity) + row;
}

// ------------------------------------------------------------------------ BinaryRowEncoder

namespace {

bool HasFastLayout(arrow::Type::type id) {
  switch (id) {
    case arrow::Type::BOOL:
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
    case arrow::Type::INT64:
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      return true;
    default:
      return false;
  }
}

template <typename ArrayType>
Status SetBinary(const arrow::Array& array, int64_t i, int field, RowWriter* w) {
  return w->SetVariable(field, checked_cast<const ArrayType&>(array).GetView(i));
}

// Row `i` of `array` into field `field` (the value is not null).
Status EncodeValue(const arrow::Array& array, int64_t i, int field, RowWriter* w) {
  switch (array.type_id()) {
    case arrow::Type::BOOL:
      w->SetSlot(field,
                 static_cast<uint8_t>(checked_cast<const arrow::BooleanArray&>(array).Value(i)));
      return Status::OK();
    case arrow::Type::INT8:
      w->SetSlot(field, checked_cast<const arrow::Int8Array&>(array).Value(i));
      return Status::OK();
    case arrow::Type::INT16:
      w->SetSlot(field, checked_cast<const arrow::Int16Array&>(array).Value(i));
      return Status::OK();
    case arrow::Type::INT32:
      w->SetSlot(field, checked_cast<const arrow::Int32Array&>(array).Value(i));
      return Status::OK();
    case arrow::Type::DATE32:
      w->SetSlot(field, checked_cast<const arrow::Date32Array&>(array).Value(i));
      return Status::OK();
    case arrow::Type::INT64:
      w->SetSlot(field, checked_cast<const arrow::Int64Array&>(array).Value(i));
      return Status::OK();
    case arrow::Type::FLOAT:
      w->SetSlot(field, checked_cast<const arrow::FloatArray&>(array).Value(i));
      return Status::OK();
    case arrow::Type::DOUBLE:
      w->SetSlot(field, checked_cast<const arrow::DoubleArray&>(array).Value(i));
      return Status::OK();
    case arrow::Type::STRING:
      return SetBinary<arrow::StringArray>(array, i, field, w);
    case arrow::Type::BINARY:
      return SetBinary<arrow::BinaryArray>(array, i, field, w);
    case arrow::Type::LARGE_STRING:
      return SetBinary<arrow::LargeStringArray>(array, i, field, w);
    case arrow::Type::LARGE_BINARY:
      return SetBinary<arrow::LargeBinaryArray>(array, i, field, w);
    default: {
      ARROW_ASSIGN_OR_RAISE(auto scalar, array.GetScalar(i));
      return EncodeField(*scalar, field, w);
    }
  }
}

}  // namespace

Result<BinaryRowEncoder> BinaryRowEncoder::Make(
    std::vector<std::shared_ptr<arrow::Array>> columns) {
  if (columns.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max() / 16)) {
    return Status::Invalid("BinaryRow: too many fields");
  }
  BinaryRowEncoder encoder;
  for (const auto& c : columns) {
    if (c == nullptr) return Status::Invalid("BinaryRowEncoder: null column");
    if (c->length() != columns.front()->length()) {
      return Status::Invalid("BinaryRowEncoder: columns of different lengths");
    }
    switch (c->type_id()) {
      case arrow::Type::DECIMAL128:
      case arrow::Type::TIMESTAMP:
      case arrow::Type::TIME32:
      case arrow::Type::TIME64:
      case arrow::Type::STRING_VIEW:
      case arrow::Type::BINARY_VIEW:
      case arrow::Type::FIXED_SIZE_BINARY:
        break;  // through scalars
      default:
        if (!HasFastLayout(c->type_id())) {
          return Status::NotImplemented("BinaryRow: unsupported type ", c->type()->ToString());
        }
    }
  }
  encoder.num_rows_ = columns.empty() ? 0 : columns.front()->length();
  encoder.columns_ = std::move(columns);
  return encoder;
}

Result<std::string_view> BinaryRowEncoder::Row(int64_t i) {
  if (i < 0 || i >= num_rows_) return Status::IndexError("BinaryRowEncoder: row ", i);
  auto arity = static_cast<int32_t>(columns_.size());
  RowWriter w(arity, &row_);
  for (int f = 0; f < arity; ++f) {
    const arrow::Array& array = *columns_[f];
    if (array.IsNull(i)) {
      ARROW_ASSIGN_OR_RAISE(auto null, array.GetScalar(i));
      ARROW_RETURN_NOT_OK(EncodeField(*null, f, &w));
      continue;
    }
    ARROW_RETURN_NOT_OK(EncodeValue(array, i, f, &w));
  }
  return std::string_view(row_);
}

}  // namespace paimon_rowid
