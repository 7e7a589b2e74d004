// `.blob` files (docs/format.md §6.2) and BlobDescriptor bytes (§6.3).
//
// A .blob file holds the values of ONE BLOB field for a contiguous run of rows:
//
//   entry*  index  indexLength:int32 LE  version:byte(=1)
//   entry = magic:uint32 LE (0x584E11CF)  payload  recordLength:int64 LE  crc32:uint32 LE
//   index = DeltaVarint(one length per row): recordLength, -1 (NULL) or -2 (placeholder)
//
// NULL and placeholder rows write no entry bytes; entry offsets are the running sum of the
// positive lengths. The CRC covers magic + payload + recordLength bytes (Java's and pypaimon
// 2.x's range; older pypaimon left the length out). Neither Java nor pypaimon verifies it on
// read; this engine does (VerifyBlobEntry), accepting either range, so a damaged payload is
// an error instead of a silently different value.
//
// ARRAY<BLOB> / MAP<K, BLOB> rows are ordinary entries whose payload is framed further
// (codec/blob_file_nested.h).
//
// The reader reads only the file's tail (index) up front; payloads are then fetched by byte
// range, so a caller that wants a few rows of a big file reads little more than those rows.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/io/interfaces.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

inline constexpr uint32_t kBlobMagic = 1481511375;  // 0x584E11CF, bytes CF 11 4E 58
inline constexpr int8_t kBlobFileVersion = 1;
inline constexpr int64_t kBlobNullLength = -1;
inline constexpr int64_t kBlobPlaceholderLength = -2;
/// Bytes of an entry besides its payload: magic (4) + recordLength (8) + crc (4).
inline constexpr int64_t kBlobEntryOverhead = 16;

/// CRC-32 with zlib's polynomial, continuing from `crc` (0 to start).
uint32_t BlobCrc32(uint32_t crc, const void* data, size_t size);

/// Checks one whole entry held in memory (`entry` = magic, payload, recordLength, crc; the
/// entry starts at file offset `entry_offset`): the magic, that recordLength equals the
/// entry's size, and the CRC over magic + payload + recordLength (or, for files of older
/// pypaimon, magic + payload). IOError naming `path`, the row and the offset otherwise;
/// `row_id` (the table row id, or -1 when unknown) and `file_row` (the row within the file,
/// or -1) only go into the message.
Status VerifyBlobEntry(std::string_view entry, const std::string& path, int64_t entry_offset,
                       int64_t row_id, int64_t file_row);
/// True when `entry` looks like a whole entry of `entry.size()` bytes whose CRC matches: the
/// quiet form of VerifyBlobEntry, for callers that only guess where an entry starts.
bool IsIntactBlobEntry(std::string_view entry);

/// Streams rows into one .blob file. Thread-compatible (one thread at a time).
class BlobFileWriter {
 public:
  /// Takes ownership of `sink`; Close() closes it.
  explicit BlobFileWriter(std::shared_ptr<arrow::io::OutputStream> sink);

  /// One row with `payload` (may be empty).
  Status AddValue(std::string_view payload);
  /// One row whose payload is streamed: BeginValue, any number of AppendPayload, EndValue.
  Status BeginValue();
  Status AppendPayload(std::string_view bytes);
  Status EndValue();
  /// A NULL row (length -1, no entry bytes).
  void AddNull();
  /// A placeholder row (length -2, no entry bytes): "not written here, look in older files".
  void AddPlaceholder();

  int64_t row_count() const { return static_cast<int64_t>(lengths_.size()); }
  /// Entry bytes written so far (the file size before the index), the rolling measure.
  int64_t bytes_written() const { return position_; }

  /// Writes the index and trailer and closes the sink. Only once.
  Status Close();

 private:
  Status Write(std::string_view bytes, bool in_crc);
  std::shared_ptr<arrow::io::OutputStream> sink_;
  std::vector<int64_t> lengths_;
  int64_t position_ = 0;
  int64_t entry_start_ = -1;  // >= 0 while a value is open
  uint32_t crc_ = 0;
  bool closed_ = false;
};

/// Where row `i` of a .blob file lives.
struct BlobEntry {
  enum class Kind { kValue, kNull, kPlaceholder };
  Kind kind = Kind::kNull;
  int64_t payload_offset = 0;  // absolute file offset of the payload (entry offset + 4)
  int64_t payload_length = 0;

  /// The whole entry (magic ... crc) of a kValue row, as a byte range of the file.
  int64_t entry_offset() const { return payload_offset - 4; }
  int64_t entry_length() const { return payload_length + kBlobEntryOverhead; }
};

/// The decoded index of a .blob file. Immutable; thread-safe.
class BlobFileIndex {
 public:
  /// Reads the index from the tail of `file` (one or two ranged reads; never the entries).
  /// IOError when the file is truncated or the index is inconsistent; `path` is for messages.
  static Result<std::shared_ptr<const BlobFileIndex>> Read(arrow::io::RandomAccessFile* file,
                                                           int64_t file_size,
                                                           const std::string& path);
  /// Decodes a whole file held in memory (tests, small files).
  static Result<std::shared_ptr<const BlobFileIndex>> Parse(std::string_view file_bytes,
                                                            const std::string& path);

  int64_t num_rows() const { return static_cast<int64_t>(lengths_.size()); }
  /// REQUIRES: 0 <= row < num_rows().
  BlobEntry entry(int64_t row) const;
  /// The row whose payload holds the bytes [offset, offset + length) (a whole payload or a
  /// part of one, such as an ARRAY<BLOB> element), or -1 when no payload does.
  int64_t RowHolding(int64_t offset, int64_t length) const;

 private:
  static Result<std::shared_ptr<const BlobFileIndex>> Decode(std::string_view index_bytes,
                                                             int64_t index_start,
                                                             const std::string& path);
  std::vector<int64_t> lengths_;
  std::vector<int64_t> offsets_;  // entry offsets (valid where lengths_ > 0)
};

/// A BlobDescriptor (docs/format.md §6.3): a reference to `length` bytes at `offset` of `uri`.
struct BlobDescriptor {
  std::string uri;
  int64_t offset = 0;
  int64_t length = 0;
  int8_t version = 2;

  /// Version 2 bytes: version, magic "BLOBDESC", uriLen, uri, offset, length (all LE).
  std::string Serialize() const;
  /// Parses version 0, 1 or 2 bytes (versions below 2 carry no magic). Invalid when
  /// malformed, with the message the Python API shows: "invalid BlobDescriptor: empty",
  /// "... version N is newer than 2", "... missing the BLOBDESC magic", "... too short", or
  /// "offset and length must be >= 0, got O, L". The uri bytes are not checked for UTF-8.
  static Result<BlobDescriptor> Deserialize(std::string_view bytes);
  /// pypaimon's detection rule for input values: >= 9 bytes, version 0 or 2 (<= 2, not 1)
  /// and the magic at byte 1. A payload that happens to start like this is taken as one.
  static bool LooksLikeDescriptor(std::string_view bytes);
};

inline constexpr uint64_t kBlobDescriptorMagic = 0x424C4F4244455343ULL;  // "BLOBDESC"

}  // namespace paimon_rowid
