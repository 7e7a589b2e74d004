// One btree global-index file: an SST of the distinct keys of a column in key order, each with
// the row ids holding it (relative to the index entry's row-range start), plus the rows whose
// value is null. Byte for byte the layout pypaimon 2.1.0 and Java Paimon write
// (docs/global-index.md §"Btree file"):
//
//   [data block][trailer] ... [null bitmap][crc32]? [bloom filter]? [index block][trailer]
//   [footer: 52 bytes]
//
//   block    entries `varint key_len, key, varint value_len, value`, then either `u32 entry
//            size, 0x00` (every entry the same size: aligned) or `u32 offset per entry, u32
//            count, 0x01`; a data block is cut once its size passes `block_size`.
//   trailer  u8 compression (0 none, 1 zstd, 2 lz4, 3 lzo), u32 LE CRC-32 of the stored block
//            bytes followed by the compression byte. A compressed block stores `varint
//            uncompressed length` and a zstd frame (zstd) or an 8-byte `i32 compressed, i32
//            original` header and the raw block (lz4, lzo).
//   value    `varint count, count x varlong row id` (ascending).
//   index    one entry per data block: key = its last key, value = `varlong offset, varint size`.
//   nulls    a 64-bit portable Roaring bitmap of the null rows, then its CRC-32 (u32 LE).
//   footer   u64 bloom offset, u32 bloom size, u64 bloom entries, u64 index offset, u32 index
//            size, u64 null offset, u32 null size, u32 version (1), u32 magic 0x50425449; all
//            little-endian, a missing part all zeros.
//
// The writer takes keys in non-decreasing KeyCodec order and holds the file in memory until
// Finish (an index file is one chunk of `sorted-index.records-per-file` rows). The reader reads
// the footer, bloom filter and index block when opened, and each data block a lookup needs
// when it needs it (ranged reads); the writer is single-threaded, a reader's const methods may
// run concurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "paimon_rowid/common/status.h"
#include "paimon_rowid/gindex/bloom_filter.h"
#include "paimon_rowid/gindex/key_codec.h"

namespace arrow {
class Buffer;
namespace io {
class RandomAccessFile;
}
}  // namespace arrow

namespace paimon_rowid {

inline constexpr const char* kBTreeIndexType = "btree";
inline constexpr uint32_t kBTreeMagic = 0x50425449;
inline constexpr int64_t kBTreeFooterSize = 52;

enum class BlockCompression : uint8_t { kNone = 0, kZstd = 1, kLz4 = 2, kLzo = 3 };

/// Parses `btree-index.compression` ("none", "zstd"); Invalid for other values (lz4 and lzo
/// blocks are read, not written).
Result<BlockCompression> ParseBlockCompression(const std::string& name);

struct BTreeWriteOptions {
  int64_t block_size = 64 * 1024;                          // btree-index.block-size
  bool bloom_filter = false;                               // btree-index.bloom-filter.enabled
  BlockCompression compression = BlockCompression::kNone;  // btree-index.compression
  int compression_level = 1;                               // btree-index.compression-level
};

/// The first and last non-null key of a sorted index file and whether it has null rows: the
/// manifest's `_INDEX_META` of btree and bitmap files (pypaimon's SortedIndexFileMeta).
struct SortedIndexFileMeta {
  std::optional<std::string> first_key;  // nullopt: the file holds only nulls
  std::optional<std::string> last_key;
  bool has_nulls = false;

  /// `u32 LE len, first, u32 LE len, last, u8 has_nulls, u8 version (1), u8 null flags`.
  std::string Serialize() const;
  /// Reads the current form and the legacy one without the last two bytes.
  static Result<SortedIndexFileMeta> Deserialize(std::string_view bytes);
  friend bool operator==(const SortedIndexFileMeta&, const SortedIndexFileMeta&) = default;
};

/// One key of a file and its row ids (relative).
struct BTreeEntry {
  std::string key;
  std::vector<int64_t> row_ids;
};

/// What the read side asks of a sorted index file (btree or bitmap: gindex/bitmap_file.h), so
/// lookups and planned reads treat both kinds alike. Const methods may run concurrently.
class SortedIndexReader {
 public:
  virtual ~SortedIndexReader() = default;
  /// Looks up `keys`, sorted ascending in codec order and distinct, and calls `found(i, row
  /// ids)` for each key `keys[i]` the file holds. Errors of `found` are returned.
  virtual Status LookupSorted(
      const std::vector<std::string_view>& keys,
      const std::function<Status(size_t, std::vector<int64_t>)>& found) const = 0;
  /// The entries with keys in [lower, upper] (a missing bound is open).
  virtual Result<std::vector<BTreeEntry>> Range(const std::optional<std::string>& lower,
                                                bool lower_inclusive,
                                                const std::optional<std::string>& upper,
                                                bool upper_inclusive) const = 0;
  /// The rows whose value is null (relative, ascending).
  virtual Result<std::vector<int64_t>> NullRows() const = 0;
  /// The bytes read from the file so far (footer, blocks, bitmaps).
  virtual int64_t bytes_read() const = 0;
};

/// The stored block [offset, offset + size) of `file` and its 5-byte trailer (compression byte,
/// CRC-32), CRC-checked and decompressed (zstd, lz4; lzo is NotImplemented). `kind` ("btree",
/// "bitmap") and `name` name the file in errors: Invalid when the block lies outside the file,
/// IOError for a CRC mismatch.
Result<std::string> ReadTrailedBlock(const arrow::Buffer& file, int64_t offset, int64_t size,
                                     const char* kind, const std::string& name, const char* what);

/// Reads exactly [offset, offset + length) of `file` and adds `length` to `*bytes_read`: the
/// ranged read of both sorted-index readers. IOError on a short read. REQUIRES: the range lies
/// inside the file (callers check it against the manifest's file size).
Result<std::shared_ptr<arrow::Buffer>> ReadIndexRange(arrow::io::RandomAccessFile* file,
                                                      int64_t offset, int64_t length,
                                                      const char* kind, const std::string& name,
                                                      std::atomic<int64_t>* bytes_read);

/// A finished file's bytes and what its manifest entry records.
struct BTreeFile {
  std::string bytes;
  int64_t row_count = 0;  // rows written, nulls included
  SortedIndexFileMeta meta;
};

class BTreeFileWriter {
 public:
  BTreeFileWriter(KeyCodec codec, BTreeWriteOptions options);

  /// Adds row `row_id` (relative, >= 0) with key `key`. REQUIRES: `key` is not below the
  /// previous key (Invalid otherwise) and row ids of one key ascend.
  Status Add(std::string_view key, int64_t row_id);
  /// Adds a row whose value is null. REQUIRES: null row ids ascend.
  Status AddNull(int64_t row_id);
  int64_t row_count() const { return row_count_; }

  /// The file. Invalid when no row was added (an index file is never empty). The writer is
  /// spent afterwards.
  Result<BTreeFile> Finish();

 private:
  Status FlushKey();
  Status FlushDataBlock();
  Status WriteBlock(std::string block, int64_t* offset, int64_t* size);

  KeyCodec codec_;
  BTreeWriteOptions options_;
  std::string out_;
  // The data block being filled.
  std::string block_;
  std::vector<uint32_t> positions_;
  int64_t aligned_size_ = 0;
  bool aligned_ = true;
  std::string block_last_key_;
  // The index block.
  std::string index_;
  std::vector<uint32_t> index_positions_;
  int64_t index_aligned_size_ = 0;
  bool index_aligned_ = true;
  // The key being collected.
  std::optional<std::string> key_;
  std::vector<int64_t> key_rows_;
  std::optional<std::string> first_key_;
  std::vector<int64_t> nulls_;
  std::vector<int32_t> hashes_;
  int64_t row_count_ = 0;
  bool finished_ = false;
};

class BTreeFileReader : public SortedIndexReader {
 public:
  /// Reads the footer, bloom filter and index block of `file` (of `size` bytes) by ranged
  /// reads; data blocks and the null bitmap are read when a lookup needs them, so a lookup
  /// reads the footer, the bloom filter, the index block and only the data blocks that can
  /// hold its keys. `name` names the file in errors. Invalid for a file that is not a
  /// version-1 btree index (bad magic, handles outside the file), IOError for a CRC mismatch.
  static Result<std::unique_ptr<BTreeFileReader>> Open(
      std::shared_ptr<arrow::io::RandomAccessFile> file, int64_t size, KeyCodec codec,
      std::string name);
  /// As above, over a file held in memory.
  static Result<std::unique_ptr<BTreeFileReader>> Open(std::shared_ptr<arrow::Buffer> file,
                                                       KeyCodec codec, std::string name);

  /// The row ids holding `key` (ascending; empty when none). Consults the bloom filter first.
  Result<std::vector<int64_t>> Lookup(std::string_view key) const;
  /// Looks up `keys`, sorted ascending in codec order and distinct, and calls `found(i, row
  /// ids)` for each key `keys[i]` the file holds, in key order. Each data block is decoded at
  /// most once (Lookup per key decodes one block per key). Errors of `found` are returned.
  Status LookupSorted(
      const std::vector<std::string_view>& keys,
      const std::function<Status(size_t, std::vector<int64_t>)>& found) const override;
  /// The entries with keys in [lower, upper] (a missing bound is open), in key order.
  Result<std::vector<BTreeEntry>> Range(const std::optional<std::string>& lower,
                                        bool lower_inclusive,
                                        const std::optional<std::string>& upper,
                                        bool upper_inclusive) const override;
  /// Every entry in key order.
  Result<std::vector<BTreeEntry>> ReadAll() const { return Range({}, true, {}, true); }
  Result<std::vector<int64_t>> NullRows() const override;
  int64_t bytes_read() const override { return bytes_read_.load(std::memory_order_relaxed); }
  bool has_bloom_filter() const { return bloom_.has_value(); }

 private:
  struct BlockRef {
    std::string last_key;
    int64_t offset, size;
  };
  BTreeFileReader(std::shared_ptr<arrow::io::RandomAccessFile> file, int64_t size, KeyCodec codec,
                  std::string name)
      : file_(std::move(file)), size_(size), codec_(std::move(codec)), name_(std::move(name)) {}
  Result<std::shared_ptr<arrow::Buffer>> ReadRange(int64_t offset, int64_t length) const;
  Result<std::string> ReadBlock(int64_t offset, int64_t size, const char* what) const;
  // The first block whose last key is >= key (blocks_.size() when none).
  size_t FirstBlockAtLeast(std::string_view key) const;

  std::shared_ptr<arrow::io::RandomAccessFile> file_;
  int64_t size_;
  KeyCodec codec_;
  std::string name_;
  std::vector<BlockRef> blocks_;
  int64_t null_offset_ = 0, null_size_ = 0;  // the null bitmap, read on demand
  std::optional<BloomFilter> bloom_;
  mutable std::atomic<int64_t> bytes_read_{0};
};

}  // namespace paimon_rowid
