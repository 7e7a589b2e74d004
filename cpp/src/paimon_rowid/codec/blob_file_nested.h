// Payloads of ARRAY<BLOB> and MAP<K, BLOB> rows inside a `.blob` entry (docs/format.md §6.2).
//
// Such a row is one ordinary .blob entry (magic, payload, recordLength, crc) whose payload is
// itself structured, all integers little-endian:
//
//   ARRAY: arrayMagic:uint32 (1094861634)  version:byte (1)  count:int32
//          element bytes (non-null elements, concatenated)
//          DeltaVarint(element lengths, -1 = null element)  elementIndexLength:int32
//   MAP:   mapMagic:uint32 (0x4D424342)  version:byte (1)  entryCount:int32
//          key bytes (non-null keys, concatenated)  value bytes (non-null values)
//          DeltaVarint(key lengths, -1 = null key)  DeltaVarint(value lengths, -1 = null)
//          keyIndexLength:int32  valueIndexLength:int32
//
// The element (or value) bytes are themselves plain BLOB payloads, so a reader can hand out a
// BlobDescriptor for each without reading it. Writers stream the element bytes between the
// header and the trailer (write/blob_writer.h); this file only builds and parses the framing.
//
// Map keys are serialized per key type (pypaimon common/map_blob_key_serializer.py, Java
// MapBlobKeySerializer): TINYINT/SMALLINT/INT/BIGINT fixed-width LE; BOOLEAN one byte 0/1;
// DECIMAL with precision <= 18 the unscaled int64 LE, else the unscaled value as minimal
// big-endian two's complement (Java BigInteger.toByteArray); DATE int32 LE epoch days; TIME
// int32 LE millis of day; BINARY/VARBINARY/BYTES raw; CHAR/VARCHAR/STRING UTF-8. The codec
// works on the Arrow types these map to (int8..int64, bool, decimal128, date32, time32[ms],
// binary, utf8); other key types are rejected by the writer before anything is written.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/array.h"
#include "arrow/builder.h"
#include "arrow/type.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

inline constexpr uint32_t kBlobArrayMagic = 1094861634;  // 0x41425242
inline constexpr uint32_t kBlobMapMagic = 0x4D424342;    // 1296188226
inline constexpr int8_t kBlobNestedVersion = 1;
/// Length of a null element / key / value in the nested indexes.
inline constexpr int64_t kBlobNestedNullLength = -1;
/// magic (4) + version (1) + count (4).
inline constexpr int64_t kBlobNestedHeaderSize = 9;

/// The bytes before the element data of an ARRAY (or MAP) payload with `count` entries.
std::string EncodeBlobArrayHeader(int32_t count);
std::string EncodeBlobMapHeader(int32_t count);
/// The bytes after the element data: the element index and its length.
std::string EncodeBlobArrayTrailer(const std::vector<int64_t>& element_lengths);
/// The bytes after the value data: both indexes and their lengths.
std::string EncodeBlobMapTrailer(const std::vector<int64_t>& key_lengths,
                                 const std::vector<int64_t>& value_lengths);

/// Where the parts of a nested payload live, as offsets from the payload's first byte.
struct BlobNestedLayout {
  struct Slot {
    int64_t offset = 0;
    int64_t length = kBlobNestedNullLength;  // -1: null
    bool is_null() const { return length < 0; }
  };
  std::vector<Slot> keys;    // MAP only
  std::vector<Slot> values;  // ARRAY elements or MAP values
  // MAP only: the key bytes, copied out of the payload (keys are small; values are not).
  std::string key_data;
  int64_t key_data_offset = 0;
};

/// Reads `length` bytes at `offset` of the payload; the parser asks for the header, the
/// trailer and (for a MAP) the key bytes, never for element or value bytes.
using BlobPayloadReader = std::function<Result<std::string>(int64_t offset, int64_t length)>;

/// Parses the framing of an ARRAY<BLOB> payload of `payload_length` bytes. IOError when the
/// magic, version, counts, indexes or lengths are inconsistent (`what` names the file/row).
Result<BlobNestedLayout> ParseBlobArrayPayload(int64_t payload_length,
                                               const BlobPayloadReader& read,
                                               const std::string& what);
/// As above for MAP<K, BLOB>; `fixed_key_width` (> 0) checks fixed-width key lengths.
Result<BlobNestedLayout> ParseBlobMapPayload(int64_t payload_length, const BlobPayloadReader& read,
                                             int64_t fixed_key_width, const std::string& what);
/// A reader over a payload held in memory.
BlobPayloadReader InMemoryPayloadReader(std::string_view payload);

// ---- map keys ------------------------------------------------------------------------------

/// True when `key_type` (the Arrow type of a MAP<K, BLOB> key) has a serializer.
bool IsSupportedMapBlobKeyType(const arrow::DataType& key_type);
/// The serialized width of fixed-width key types, or -1 (variable width).
int64_t MapBlobKeyFixedWidth(const arrow::DataType& key_type);
/// Serialized key `index` of `keys`. Invalid when the value cannot be encoded.
/// REQUIRES: IsSupportedMapBlobKeyType(*keys.type()), keys.IsValid(index).
Result<std::string> EncodeMapBlobKey(const arrow::Array& keys, int64_t index);
/// Appends the key serialized as `bytes` to `builder` (of the key's Arrow type). IOError when
/// the bytes do not decode (wrong width, bad boolean, out-of-range decimal).
Status AppendMapBlobKey(std::string_view bytes, arrow::ArrayBuilder* builder);

}  // namespace paimon_rowid
