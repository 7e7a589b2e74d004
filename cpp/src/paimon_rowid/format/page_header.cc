#include "paimon_rowid/format/page_header.h"

#include <cstring>

namespace paimon_rowid::format_internal {
namespace {

// Thrift compact protocol field types.
enum CompactType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,
  kBoolFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

class Cursor {
 public:
  Cursor(const uint8_t* data, int64_t size) : p_(data), end_(data + size), begin_(data) {}

  int64_t consumed() const { return p_ - begin_; }

  Result<uint8_t> Byte() {
    if (p_ >= end_) return Truncated();
    return *p_++;
  }
  Result<uint64_t> Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      ARROW_ASSIGN_OR_RAISE(uint8_t b, Byte());
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    return Status::Invalid("malformed Parquet page header: varint too long");
  }
  Result<int64_t> ZigZag() {
    ARROW_ASSIGN_OR_RAISE(uint64_t v, Varint());
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
  Result<int32_t> I32() {
    ARROW_ASSIGN_OR_RAISE(int64_t v, ZigZag());
    if (v < INT32_MIN || v > INT32_MAX) {
      return Status::Invalid("malformed Parquet page header: i32 out of range");
    }
    return static_cast<int32_t>(v);
  }
  Status Skip(int64_t n) {
    if (n < 0 || end_ - p_ < n) return Truncated();
    p_ += n;
    return Status::OK();
  }

  // Skips one value of `type` (nested containers and structs included).
  Status SkipValue(uint8_t type, int depth = 0) {
    if (depth > 32) return Status::Invalid("malformed Parquet page header: nested too deep");
    switch (type) {
      case kBoolTrue:
      case kBoolFalse:
        return Status::OK();  // the value is in the type nibble
      case kByte:
        return Skip(1);
      case kI16:
      case kI32:
      case kI64:
        return Varint().status();
      case kDouble:
        return Skip(8);
      case kBinary: {
        ARROW_ASSIGN_OR_RAISE(uint64_t n, Varint());
        return Skip(static_cast<int64_t>(n));
      }
      case kList:
      case kSet: {
        ARROW_ASSIGN_OR_RAISE(uint8_t head, Byte());
        uint64_t n = head >> 4;
        if (n == 15) {
          ARROW_ASSIGN_OR_RAISE(n, Varint());
        }
        const uint8_t elem = head & 0x0f;
        for (uint64_t i = 0; i < n; ++i) {
          // A bool element of a list is one byte.
          if (elem == kBoolTrue || elem == kBoolFalse) {
            ARROW_RETURN_NOT_OK(Skip(1));
          } else {
            ARROW_RETURN_NOT_OK(SkipValue(elem, depth + 1));
          }
        }
        return Status::OK();
      }
      case kMap: {
        ARROW_ASSIGN_OR_RAISE(uint64_t n, Varint());
        if (n == 0) return Status::OK();
        ARROW_ASSIGN_OR_RAISE(uint8_t kinds, Byte());
        for (uint64_t i = 0; i < n; ++i) {
          ARROW_RETURN_NOT_OK(SkipValue(kinds >> 4, depth + 1));
          ARROW_RETURN_NOT_OK(SkipValue(kinds & 0x0f, depth + 1));
        }
        return Status::OK();
      }
      case kStruct:
        return ReadStruct([&](int16_t, uint8_t t) { return SkipValue(t, depth + 1); });
      default:
        return Status::Invalid("malformed Parquet page header: field type ",
                               static_cast<int>(type));
    }
  }

  // Reads a struct's fields up to its stop byte, handing (id, type) of each to `field`, which
  // consumes the value.
  template <typename Fn>
  Status ReadStruct(Fn&& field) {
    int16_t last = 0;
    while (true) {
      ARROW_ASSIGN_OR_RAISE(uint8_t head, Byte());
      if (head == kStop) return Status::OK();
      const uint8_t type = head & 0x0f;
      int16_t id;
      if ((head >> 4) == 0) {
        ARROW_ASSIGN_OR_RAISE(int64_t explicit_id, ZigZag());
        id = static_cast<int16_t>(explicit_id);
      } else {
        id = static_cast<int16_t>(last + (head >> 4));
      }
      last = id;
      ARROW_RETURN_NOT_OK(field(id, type));
    }
  }

 private:
  static Status Truncated() { return Status::Invalid("truncated Parquet page header"); }
  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* begin_;
};

// Reads an i32 field value, or skips a field of another type.
Status ReadI32(Cursor* in, uint8_t type, int32_t* out) {
  if (type != kI32) return in->SkipValue(type);
  ARROW_ASSIGN_OR_RAISE(*out, in->I32());
  return Status::OK();
}

}  // namespace

Result<PageHeaderInfo> ParsePageHeader(const uint8_t* data, int64_t size) {
  Cursor in(data, size);
  PageHeaderInfo info;
  bool has_type = false, has_uncompressed = false, has_compressed = false;
  ARROW_RETURN_NOT_OK(in.ReadStruct([&](int16_t id, uint8_t type) -> Status {
    switch (id) {
      case 1:
        has_type = type == kI32;
        return ReadI32(&in, type, &info.type);
      case 2:
        has_uncompressed = type == kI32;
        return ReadI32(&in, type, &info.uncompressed_size);
      case 3:
        has_compressed = type == kI32;
        return ReadI32(&in, type, &info.compressed_size);
      case 4: {
        int32_t crc = 0;
        ARROW_RETURN_NOT_OK(ReadI32(&in, type, &crc));
        info.has_crc = type == kI32;
        info.crc = static_cast<uint32_t>(crc);
        return Status::OK();
      }
      case 5:  // DataPageHeader: 1 num_values, 2 encoding
      case 7:  // DictionaryPageHeader: 1 num_values, 2 encoding
        if (type != kStruct) return in.SkipValue(type);
        return in.ReadStruct([&](int16_t sub, uint8_t t) -> Status {
          if (sub == 1) return ReadI32(&in, t, &info.num_values);
          if (sub == 2) return ReadI32(&in, t, &info.encoding);
          return in.SkipValue(t);
        });
      case 8:  // DataPageHeaderV2: 1 num_values, 3 num_rows, 4 encoding
        if (type != kStruct) return in.SkipValue(type);
        return in.ReadStruct([&](int16_t sub, uint8_t t) -> Status {
          if (sub == 1) return ReadI32(&in, t, &info.num_values);
          if (sub == 3) return ReadI32(&in, t, &info.num_rows);
          if (sub == 4) return ReadI32(&in, t, &info.encoding);
          return in.SkipValue(t);
        });
      default:
        return in.SkipValue(type);
    }
  }));
  if (!has_type || !has_uncompressed || !has_compressed || info.compressed_size < 0 ||
      info.uncompressed_size < 0) {
    return Status::Invalid("malformed Parquet page header: required fields missing");
  }
  info.header_size = in.consumed();
  return info;
}

}  // namespace paimon_rowid::format_internal
