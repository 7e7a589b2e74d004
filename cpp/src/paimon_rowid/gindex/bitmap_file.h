// One bitmap global-index file: for each distinct key of a column, the 64-bit Roaring bitmap of
// the row ids holding it (relative to the index entry's row-range start), plus the null and the
// non-null rows. Byte for byte the layout pypaimon 2.1.0 and Java Paimon write
// (docs/global-index.md §"Bitmap file"):
//
//   [null rows][non-null rows] ([bitmap of key] ... [dictionary block][trailer])...
//   [index block][trailer] [footer: 48 bytes]
//
//   bitmaps     64-bit portable Roaring bitmaps (codec/roaring.h), no trailer.
//   dictionary  `varint count`, then per key in ascending *byte* order: `varint key_len, key,
//               varlong bitmap offset, varint bitmap length`. Keys go into the current block
//               until adding one would pass `dictionary_block_size` (a block holds at least one
//               key); each key's bitmap is written just before its dictionary entry is placed,
//               so bitmaps and the blocks that list them interleave.
//   index       `varint count`, then per dictionary block `varint key_len, first key, varlong
//               offset, varint length`.
//   trailer     as btree blocks: u8 compression (0 none), u32 LE CRC-32 of block ‖ that byte.
//   footer      big-endian: i64 null offset, i32 null length, i64 non-null offset, i32 non-null
//               length, i64 index offset, i32 index length, i32 distinct keys, i32 version (1),
//               i32 magic 0x42474958.
//
// Equal-valued keys whose bytes differ (-0.0 and 0.0) are separate dictionary entries, as in
// pypaimon; lookups of a float zero consult both. The writer takes rows in non-decreasing
// KeyCodec order (the build's sort) and holds the file in memory until Finish. The reader reads
// by ranges: opening reads the footer and the index block; an `=`/`IN` lookup then reads only
// the dictionary blocks that can hold its keys and the bitmaps of the keys found; the null and
// non-null bitmaps are read only when asked for. Single-threaded writer; a reader's const
// methods may run concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "paimon_rowid/gindex/btree_file.h"

namespace paimon_rowid {

inline constexpr const char* kBitmapIndexType = "bitmap";
inline constexpr uint32_t kBitmapMagic = 0x42474958;
inline constexpr int64_t kBitmapFooterSize = 48;

struct BitmapWriteOptions {
  int64_t dictionary_block_size = 16 * 1024;  // bitmap-index.dictionary-block-size
};

class BitmapFileWriter {
 public:
  BitmapFileWriter(KeyCodec codec, BitmapWriteOptions options);

  /// Adds row `row_id` (relative, >= 0) with key `key`. REQUIRES: `key` is not below the
  /// previous key in codec order (Invalid otherwise).
  Status Add(std::string_view key, int64_t row_id);
  /// Adds a row whose value is null.
  Status AddNull(int64_t row_id);
  int64_t row_count() const { return row_count_; }

  /// The file (and its SortedIndexFileMeta: the smallest and largest key by value, the first
  /// added of equal ones). Invalid when no row was added. The writer is spent afterwards.
  Result<BTreeFile> Finish();

 private:
  KeyCodec codec_;
  BitmapWriteOptions options_;
  // Runs of rows with byte-identical keys, in the order added: key i is
  // keys_[key_starts_[i], key_starts_[i + 1]), its rows rows_[row_starts_[i], row_starts_[i + 1]).
  std::string keys_;
  std::vector<size_t> key_starts_;
  std::vector<int64_t> rows_;
  std::vector<size_t> row_starts_;
  std::vector<int64_t> nulls_;
  std::optional<std::string> first_key_, last_key_;
  int64_t row_count_ = 0;
  bool finished_ = false;
};

class BitmapFileReader : public SortedIndexReader {
 public:
  /// Reads the footer and the index block of `file` (of `size` bytes) by ranged reads. `name`
  /// names the file in errors. NotImplemented for a file of another layout or version (no
  /// BGIX magic, as Java 1.4's bitmap global-index files), Invalid for handles outside the
  /// file, IOError for a CRC mismatch or a short read.
  static Result<std::unique_ptr<BitmapFileReader>> Open(
      std::shared_ptr<arrow::io::RandomAccessFile> file, int64_t size, KeyCodec codec,
      std::string name);
  /// As above, over a file held in memory.
  static Result<std::unique_ptr<BitmapFileReader>> Open(std::shared_ptr<arrow::Buffer> file,
                                                        KeyCodec codec, std::string name);

  /// Calls `found(i, row ids)` for each `keys[i]` (codec order, distinct) the file holds.
  /// Reads each dictionary block that can hold a key once, and the bitmap of each key found.
  Status LookupSorted(
      const std::vector<std::string_view>& keys,
      const std::function<Status(size_t, std::vector<int64_t>)>& found) const override;
  /// The entries with values in [lower, upper], in the file's (byte) order: every dictionary
  /// block is read, only the bitmaps of entries in range.
  Result<std::vector<BTreeEntry>> Range(const std::optional<std::string>& lower,
                                        bool lower_inclusive,
                                        const std::optional<std::string>& upper,
                                        bool upper_inclusive) const override;
  /// The rows whose value is null (read on each call).
  Result<std::vector<int64_t>> NullRows() const override { return ReadBitmap(nulls_); }
  int64_t bytes_read() const override { return bytes_read_.load(std::memory_order_relaxed); }
  /// The rows whose value is not null (read on each call).
  Result<std::vector<int64_t>> NonNullRows() const { return ReadBitmap(non_null_); }
  /// The number of distinct keys (the footer's).
  int32_t value_count() const { return value_count_; }

 private:
  struct Handle {
    int64_t offset = 0, length = 0;
  };
  struct DictionaryBlock {
    std::string first_key;
    Handle handle;
  };
  struct DictionaryEntry {
    std::string key;
    Handle bitmap;
  };
  BitmapFileReader(std::shared_ptr<arrow::io::RandomAccessFile> file, int64_t size, KeyCodec codec,
                   std::string name)
      : file_(std::move(file)), size_(size), codec_(std::move(codec)), name_(std::move(name)) {}
  // The stored block `h` and its trailer, CRC-checked.
  Result<std::string> ReadBlock(Handle h, const char* what) const;
  Result<std::vector<DictionaryEntry>> ReadDictionary(const DictionaryBlock& block) const;
  Result<std::vector<int64_t>> ReadBitmap(Handle handle) const;

  std::shared_ptr<arrow::io::RandomAccessFile> file_;
  int64_t size_;
  KeyCodec codec_;
  std::string name_;
  std::vector<DictionaryBlock> blocks_;  // ascending by first key bytes
  Handle nulls_, non_null_;
  int32_t value_count_ = 0;
  mutable std::atomic<int64_t> bytes_read_{0};
};

/// A reader of `file` (of `size` bytes) by its manifest entry's index type, `btree` or `bitmap`
/// (both read by ranges); Invalid for other types.
Result<std::unique_ptr<SortedIndexReader>> OpenSortedIndexReader(
    const std::string& index_type, std::shared_ptr<arrow::io::RandomAccessFile> file, int64_t size,
    KeyCodec codec, std::string name);

}  // namespace paimon_rowid
