#include "paimon_rowid/codec/blob_file_nested.h"

#include <cstring>
#include <limits>

#include "arrow/util/decimal.h"
#include "paimon_rowid/codec/decimal_bytes.h"
#include "paimon_rowid/codec/delta_varint.h"
#include "paimon_rowid/codec/little_endian.h"

namespace paimon_rowid {
namespace {

std::string Header(uint32_t magic, int32_t count) {
  std::string out;
  AppendLE<uint32_t>(&out, magic);
  AppendLE<int8_t>(&out, kBlobNestedVersion);
  AppendLE<int32_t>(&out, count);
  return out;
}

Result<std::string> ReadExactly(const BlobPayloadReader& read, int64_t offset, int64_t length,
                                const std::string& what, const char* part) {
  ARROW_ASSIGN_OR_RAISE(std::string bytes, read(offset, length));
  if (static_cast<int64_t>(bytes.size()) != length) {
    return Status::IOError(what, ": cannot read the ", part, " (", length,
                           " bytes at payload offset ", offset, ")");
  }
  return bytes;
}

// Magic, version and count; IOError unless they are `magic`, 1 and a valid int32.
Result<int64_t> ParseHeader(const std::string& header, uint32_t magic, const char* kind,
                            const std::string& what) {
  const uint32_t found = LoadLE<uint32_t>(header.data());
  if (found != magic) {
    return Status::IOError(what, ": not a ", kind, " payload (magic ", found, ", expected ", magic,
                           ")");
  }
  const int version = static_cast<uint8_t>(header[4]);
  if (version != kBlobNestedVersion) {
    return Status::IOError(what, ": unsupported ", kind, " payload version ", version);
  }
  const uint32_t count = LoadLE<uint32_t>(header.data() + 5);
  if (count > static_cast<uint32_t>(std::numeric_limits<int32_t>::max())) {
    return Status::IOError(what, ": invalid ", kind, " entry count ", count);
  }
  return static_cast<int64_t>(count);
}

Result<std::vector<int64_t>> DecodeIndex(std::string_view bytes, int64_t count, const char* name,
                                         const std::string& what) {
  auto lengths = DecodeDeltaVarint(bytes);
  if (!lengths.ok()) {
    return Status::IOError(what, ": corrupt ", name, " index: ", lengths.status().message());
  }
  if (static_cast<int64_t>(lengths->size()) != count) {
    return Status::IOError(what, ": the ", name, " index holds ", lengths->size(),
                           " lengths but the header says ", count);
  }
  return std::move(*lengths);
}

// Lays `lengths` out from `start`; returns the bytes they cover. IOError when a length is
// negative (other than null) or they overrun `limit` bytes.
Result<int64_t> PlaceSlots(const std::vector<int64_t>& lengths, int64_t start, int64_t limit,
                           int64_t fixed_width, const char* name, const std::string& what,
                           std::vector<BlobNestedLayout::Slot>* slots) {
  slots->resize(lengths.size());
  int64_t covered = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    const int64_t length = lengths[i];
    (*slots)[i].length = length;
    if (length == kBlobNestedNullLength) continue;
    if (length < 0 || length > limit - covered) {
      return Status::IOError(what, ": ", name, " ", i, " has length ", length, " but only ",
                             limit - covered, " bytes are left");
    }
    if (fixed_width > 0 && length != fixed_width) {
      return Status::IOError(what, ": ", name, " ", i, " has length ", length,
                             ", expected the fixed width ", fixed_width);
    }
    (*slots)[i].offset = start + covered;
    covered += length;
  }
  return covered;
}

}  // namespace

std::string EncodeBlobArrayHeader(int32_t count) { return Header(kBlobArrayMagic, count); }
std::string EncodeBlobMapHeader(int32_t count) { return Header(kBlobMapMagic, count); }

std::string EncodeBlobArrayTrailer(const std::vector<int64_t>& element_lengths) {
  std::string out = EncodeDeltaVarint(element_lengths);
  AppendLE<int32_t>(&out, static_cast<int32_t>(out.size()));
  return out;
}

std::string EncodeBlobMapTrailer(const std::vector<int64_t>& key_lengths,
                                 const std::vector<int64_t>& value_lengths) {
  const std::string keys = EncodeDeltaVarint(key_lengths);
  const std::string values = EncodeDeltaVarint(value_lengths);
  std::string out = keys + values;
  AppendLE<int32_t>(&out, static_cast<int32_t>(keys.size()));
  AppendLE<int32_t>(&out, static_cast<int32_t>(values.size()));
  return out;
}

BlobPayloadReader InMemoryPayloadReader(std::string_view payload) {
  return [payload](int64_t offset, int64_t length) -> Result<std::string> {
    if (offset < 0 || length < 0 || offset + length > static_cast<int64_t>(payload.size())) {
      return std::string();
    }
    return std::string(payload.substr(offset, length));
  };
}

Result<BlobNestedLayout> ParseBlobArrayPayload(int64_t payload_length,
                                               const BlobPayloadReader& read,
                                               const std::string& what) {
  constexpr int64_t kMinLength = kBlobNestedHeaderSize + 4;
  if (payload_length < kMinLength) {
    return Status::IOError(what, ": ARRAY<BLOB> payload of ", payload_length,
                           " bytes is shorter than its framing");
  }
  ARROW_ASSIGN_OR_RAISE(auto header,
                        ReadExactly(read, 0, kBlobNestedHeaderSize, what, "ARRAY<BLOB> header"));
  ARROW_ASSIGN_OR_RAISE(int64_t count, ParseHeader(header, kBlobArrayMagic, "ARRAY<BLOB>", what));
  ARROW_ASSIGN_OR_RAISE(auto index_length_bytes,
                        ReadExactly(read, payload_length - 4, 4, what, "element index length"));
  const int64_t index_length = LoadLE<uint32_t>(index_length_bytes.data());
  if (index_length > payload_length - kMinLength || count > index_length) {
    return Status::IOError(what, ": invalid ARRAY<BLOB> element index length ", index_length,
                           " for ", count, " elements in a payload of ", payload_length, " bytes");
  }
  const int64_t index_start = payload_length - 4 - index_length;
  ARROW_ASSIGN_OR_RAISE(auto index,
                        ReadExactly(read, index_start, index_length, what, "element index"));
  ARROW_ASSIGN_OR_RAISE(auto lengths, DecodeIndex(index, count, "element", what));
  BlobNestedLayout layout;
  const int64_t data_length = index_start - kBlobNestedHeaderSize;
  ARROW_ASSIGN_OR_RAISE(int64_t covered,
                        PlaceSlots(lengths, kBlobNestedHeaderSize, data_length, /*fixed_width=*/0,
                                   "element", what, &layout.values));
  if (covered != data_length) {
    return Status::IOError(what, ": ARRAY<BLOB> element lengths cover ", covered,
                           " bytes but the element data has ", data_length);
  }
  return layout;
}

Result<BlobNestedLayout> ParseBlobMapPayload(int64_t payload_length, const BlobPayloadReader& read,
                                             int64_t fixed_key_width, const std::string& what) {
  constexpr int64_t kMinLength = kBlobNestedHeaderSize + 8;
  if (payload_length < kMinLength) {
    return Status::IOError(what, ": MAP<K, BLOB> payload of ", payload_length,
                           " bytes is shorter than its framing");
  }
  ARROW_ASSIGN_OR_RAISE(auto header,
                        ReadExactly(read, 0, kBlobNestedHeaderSize, what, "MAP<K, BLOB> header"));
  ARROW_ASSIGN_OR_RAISE(int64_t count, ParseHeader(header, kBlobMapMagic, "MAP<K, BLOB>", what));
  ARROW_ASSIGN_OR_RAISE(auto index_lengths,
                        ReadExactly(read, payload_length - 8, 8, what, "index lengths"));
  const int64_t key_index_length = LoadLE<uint32_t>(index_lengths.data());
  const int64_t value_index_length = LoadLE<uint32_t>(index_lengths.data() + 4);
  if (key_index_length + value_index_length > payload_length - kMinLength ||
      count > key_index_length || count > value_index_length) {
    return Status::IOError(what, ": invalid MAP<K, BLOB> index lengths ", key_index_length, " and ",
                           value_index_length, " for ", count, " entries in a payload of ",
                           payload_length, " bytes");
  }
  const int64_t key_index_start = payload_length - 8 - value_index_length - key_index_length;
  ARROW_ASSIGN_OR_RAISE(
      auto indexes, ReadExactly(read, key_index_start, key_index_length + value_index_length, what,
                                "key and value indexes"));
  std::string_view both(indexes);
  ARROW_ASSIGN_OR_RAISE(auto key_lengths,
                        DecodeIndex(both.substr(0, key_index_length), count, "key", what));
  ARROW_ASSIGN_OR_RAISE(auto value_lengths,
                        DecodeIndex(both.substr(key_index_length), count, "value", what));
  BlobNestedLayout layout;
  const int64_t data_length = key_index_start - kBlobNestedHeaderSize;
  ARROW_ASSIGN_OR_RAISE(int64_t key_bytes,
                        PlaceSlots(key_lengths, kBlobNestedHeaderSize, data_length, fixed_key_width,
                                   "key", what, &layout.keys));
  ARROW_ASSIGN_OR_RAISE(
      int64_t value_bytes,
      PlaceSlots(value_lengths, kBlobNestedHeaderSize + key_bytes, data_length - key_bytes,
                 /*fixed_width=*/0, "value", what, &layout.values));
  if (key_bytes + value_bytes != data_length) {
    return Status::IOError(what, ": MAP<K, BLOB> key and value lengths cover ",
                           key_bytes + value_bytes, " bytes but the data has ", data_length);
  }
  layout.key_data_offset = kBlobNestedHeaderSize;
  ARROW_ASSIGN_OR_RAISE(layout.key_data,
                        ReadExactly(read, kBlobNestedHeaderSize, key_bytes, what, "key bytes"));
  return layout;
}

// ---- map keys ------------------------------------------------------------------------------

bool IsSupportedMapBlobKeyType(const arrow::DataType& key_type) {
  switch (key_type.id()) {
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::BOOL:
    case arrow::Type::DECIMAL128:
    case arrow::Type::DATE32:
    case arrow::Type::BINARY:
    case arrow::Type::STRING:
      return true;
    case arrow::Type::TIME32:
      return static_cast<const arrow::Time32Type&>(key_type).unit() == arrow::TimeUnit::MILLI;
    default:
      return false;
  }
}

namespace {}  // namespace

int64_t MapBlobKeyFixedWidth(const arrow::DataType& key_type) {
  switch (key_type.id()) {
    case arrow::Type::INT8:
    case arrow::Type::BOOL:
      return 1;
    case arrow::Type::INT16:
      return 2;
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
    case arrow::Type::TIME32:
      return 4;
    case arrow::Type::INT64:
      return 8;
    case arrow::Type::DECIMAL128:
      return IsCompactDecimal(key_type) ? 8 : -1;
    default:
      return -1;
  }
}

Result<std::string> EncodeMapBlobKey(const arrow::Array& keys, int64_t index) {
  std::string out;
  switch (keys.type_id()) {
    case arrow::Type::INT8:
      AppendLE(&out, static_cast<const arrow::Int8Array&>(keys).Value(index));
      break;
    case arrow::Type::INT16:
      AppendLE(&out, static_cast<const arrow::Int16Array&>(keys).Value(index));
      break;
    case arrow::Type::INT32:
      AppendLE(&out, static_cast<const arrow::Int32Array&>(keys).Value(index));
      break;
    case arrow::Type::INT64:
      AppendLE(&out, static_cast<const arrow::Int64Array&>(keys).Value(index));
      break;
    case arrow::Type::DATE32:
      AppendLE(&out, static_cast<const arrow::Date32Array&>(keys).Value(index));
      break;
    case arrow::Type::TIME32:
      AppendLE(&out, static_cast<const arrow::Time32Array&>(keys).Value(index));
      break;
    case arrow::Type::BOOL:
      out.push_back(static_cast<const arrow::BooleanArray&>(keys).Value(index) ? 1 : 0);
      break;
    case arrow::Type::BINARY:
      out = std::string(static_cast<const arrow::BinaryArray&>(keys).GetView(index));
      break;
    case arrow::Type::STRING:
      out = std::string(static_cast<const arrow::StringArray&>(keys).GetView(index));
      break;
    case arrow::Type::DECIMAL128: {
      const auto& decimals = static_cast<const arrow::Decimal128Array&>(keys);
      const arrow::Decimal128 value(decimals.GetValue(index));
      if (IsCompactDecimal(*keys.type())) {
        AppendLE<int64_t>(&out, static_cast<int64_t>(value.low_bits()));
        break;
      }
      out = DecimalToBigEndian(value);
      break;
    }
    default:
      return Status::Invalid("Unsupported key type for MAP<X, BLOB>: ", keys.type()->ToString());
  }
  return out;
}

Status AppendMapBlobKey(std::string_view bytes, arrow::ArrayBuilder* builder) {
  const auto& type = *builder->type();
  const int64_t width = MapBlobKeyFixedWidth(type);
  if (width > 0 && static_cast<int64_t>(bytes.size()) != width) {
    return Status::IOError("MAP<K, BLOB> key of type ", type.ToString(), " has ", bytes.size(),
                           " bytes, expected ", width);
  }
  switch (type.id()) {
    case arrow::Type::INT8:
      return static_cast<arrow::Int8Builder*>(builder)->Append(LoadLE<int8_t>(bytes.data()));
    case arrow::Type::INT16:
      return static_cast<arrow::Int16Builder*>(builder)->Append(LoadLE<int16_t>(bytes.data()));
    case arrow::Type::INT32:
      return static_cast<arrow::Int32Builder*>(builder)->Append(LoadLE<int32_t>(bytes.data()));
    case arrow::Type::INT64:
      return static_cast<arrow::Int64Builder*>(builder)->Append(LoadLE<int64_t>(bytes.data()));
    case arrow::Type::DATE32:
      return static_cast<arrow::Date32Builder*>(builder)->Append(LoadLE<int32_t>(bytes.data()));
    case arrow::Type::TIME32:
      return static_cast<arrow::Time32Builder*>(builder)->Append(LoadLE<int32_t>(bytes.data()));
    case arrow::Type::BOOL:
      if (bytes[0] != 0 && bytes[0] != 1) {
        return Status::IOError("invalid MAP<K, BLOB> BOOLEAN key byte ",
                               static_cast<int>(static_cast<uint8_t>(bytes[0])));
      }
      return static_cast<arrow::BooleanBuilder*>(builder)->Append(bytes[0] == 1);
    case arrow::Type::BINARY:
      return static_cast<arrow::BinaryBuilder*>(builder)->Append(bytes);
    case arrow::Type::STRING:
      return static_cast<arrow::StringBuilder*>(builder)->Append(bytes);
    case arrow::Type::DECIMAL128: {
      const auto& decimal_type = static_cast<const arrow::Decimal128Type&>(type);
      arrow::Decimal128 value;
      if (width > 0) {
        value = arrow::Decimal128(LoadLE<int64_t>(bytes.data()));
      } else {
        auto decoded = DecimalFromBigEndian(bytes);
        if (!decoded.ok()) {
          return Status::IOError("invalid MAP<K, BLOB> DECIMAL key of ", bytes.size(), " bytes");
        }
        value = *decoded;
      }
      if (!value.FitsInPrecision(decimal_type.precision())) {
        return Status::IOError("MAP<K, BLOB> DECIMAL key ", value.ToIntegerString(),
                               " exceeds the declared precision ", decimal_type.precision());
      }
      return static_cast<arrow::Decimal128Builder*>(builder)->Append(value);
    }
    default:
      return Status::NotImplemented("MAP<K, BLOB> keys of type ", type.ToString());
  }
}

}  // namespace paimon_rowid
