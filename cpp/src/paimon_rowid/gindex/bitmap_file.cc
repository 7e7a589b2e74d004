#include "paimon_rowid/gindex/bitmap_file.h"

#include <arrow/buffer.h>
#include <arrow/io/memory.h>

#include <algorithm>
#include <numeric>

#include "paimon_rowid/codec/crc32.h"
#include "paimon_rowid/codec/little_endian.h"
#include "paimon_rowid/codec/roaring.h"
#include "paimon_rowid/gindex/var_len_internal.h"

namespace paimon_rowid {

using gindex_internal::AppendVarLen;
using gindex_internal::ReadVarLen;

namespace {

constexpr int64_t kTrailerSize = 5;  // u8 compression, u32 CRC-32

size_t VarLenSize(uint64_t v) {
  size_t n = 1;
  while (v & ~uint64_t{0x7F}) {
    v >>= 7;
    ++n;
  }
  return n;
}

template <typename T>
void AppendBE(std::string* out, T value) {
  using U = std::make_unsigned_t<T>;
  const auto u = static_cast<U>(value);
  for (int shift = static_cast<int>(sizeof(T) * 8) - 8; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((u >> shift) & 0xFF));
  }
}

template <typename T>
T LoadBE(const char* p) {
  using U = std::make_unsigned_t<T>;
  U u = 0;
  for (size_t i = 0; i < sizeof(T); ++i) u = static_cast<U>((u << 8) | static_cast<uint8_t>(p[i]));
  return static_cast<T>(u);
}

// Appends `block` and its uncompressed trailer; returns the block's handle.
void AppendTrailedBlock(std::string* out, const std::string& block, int64_t* offset,
                        int64_t* length) {
  *offset = static_cast<int64_t>(out->size());
  *length = static_cast<int64_t>(block.size());
  *out += block;
  const char none = 0;
  uint32_t crc = Crc32(0, block.data(), block.size());
  crc = Crc32(crc, &none, 1);
  out->push_back(none);
  AppendLE<uint32_t>(out, crc);
}

// The other encoding of a float or double zero (-0.0 for 0.0 and back), or nullopt.
std::optional<std::string> OtherZero(const KeyCodec& codec, std::string_view key) {
  if (codec.root() != TypeRoot::kFloat && codec.root() != TypeRoot::kDouble) return std::nullopt;
  const size_t width = codec.root() == TypeRoot::kFloat ? 4 : 8;
  if (key.size() != width) return std::nullopt;
  for (size_t i = 0; i + 1 < width; ++i) {
    if (key[i] != 0) return std::nullopt;
  }
  const auto top = static_cast<uint8_t>(key[width - 1]);
  if (top != 0 && top != 0x80) return std::nullopt;
  std::string other(key);
  other[width - 1] = static_cast<char>(top ^ 0x80);
  return other;
}

}  // namespace

BitmapFileWriter::BitmapFileWriter(KeyCodec codec, BitmapWriteOptions options)
    : codec_(std::move(codec)), options_(options) {
  key_starts_.push_back(0);
  row_starts_.push_back(0);
}

Status BitmapFileWriter::Add(std::string_view key, int64_t row_id) {
  if (finished_) return Status::Invalid("bitmap index writer is finished");
  if (row_id < 0) return Status::Invalid("bitmap index row id ", row_id, " is negative");
  const size_t n = key_starts_.size() - 1;
  const bool same = n > 0 && std::string_view(keys_).substr(key_starts_[n - 1]) == key;
  if (!same) {
    if (last_key_ && codec_.Compare(key, *last_key_) < 0) {
      return Status::Invalid("bitmap index keys must be added in ascending order");
    }
    if (n > 0) row_starts_.push_back(rows_.size());
    keys_.append(key);
    key_starts_.push_back(keys_.size());
    if (!first_key_) first_key_ = std::string(key);
    // pypaimon keeps the first of equal largest values.
    if (!last_key_ || codec_.Compare(key, *last_key_) > 0) last_key_ = std::string(key);
  }
  rows_.push_back(row_id);
  ++row_count_;
  return Status::OK();
}

Status BitmapFileWriter::AddNull(int64_t row_id) {
  if (finished_) return Status::Invalid("bitmap index writer is finished");
  if (row_id < 0) return Status::Invalid("bitmap index row id ", row_id, " is negative");
  nulls_.push_back(row_id);
  ++row_count_;
  return Status::OK();
}

Result<BTreeFile> BitmapFileWriter::Finish() {
  if (finished_) return Status::Invalid("bitmap index writer is finished");
  finished_ = true;
  if (row_count_ == 0) return Status::Invalid("a bitmap index file cannot be empty");
  const size_t runs = key_starts_.size() - 1;
  if (runs > 0) row_starts_.push_back(rows_.size());
  auto key_of = [&](size_t i) {
    return std::string_view(keys_).substr(key_starts_[i], key_starts_[i + 1] - key_starts_[i]);
  };
  // Runs in byte order of their keys; runs of one key (split by an equal value of other
  // bytes, such as -0.0 among 0.0) become one entry.
  std::vector<size_t> order(runs);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return key_of(a) < key_of(b); });

  BTreeFile file;
  file.row_count = row_count_;
  file.meta.first_key = first_key_;
  file.meta.last_key = last_key_;
  file.meta.has_nulls = !nulls_.empty();
  std::string& out = file.bytes;

  std::sort(nulls_.begin(), nulls_.end());
  const int64_t null_offset = 0;
  out += EncodeRoaring64(nulls_);
  const int64_t null_length = static_cast<int64_t>(out.size());
  std::vector<int64_t> non_null(rows_);
  std::sort(non_null.begin(), non_null.end());
  non_null.erase(std::unique(non_null.begin(), non_null.end()), non_null.end());
  const int64_t non_null_offset = static_cast<int64_t>(out.size());
  out += EncodeRoaring64(non_null);
  const int64_t non_null_length = static_cast<int64_t>(out.size()) - non_null_offset;
  std::vector<int64_t>().swap(non_null);

  struct BlockMeta {
    std::string first_key;
    int64_t offset, length;
  };
  std::vector<BlockMeta> blocks;
  std::string entries;  // the current dictionary block's entries
  int64_t entry_count = 0;
  std::string first_in_block;
  auto flush = [&]() {
    std::string block;
    AppendVarLen(&block, static_cast<uint64_t>(entry_count));
    block += entries;
    BlockMeta meta{first_in_block, 0, 0};
    AppendTrailedBlock(&out, block, &meta.offset, &meta.length);
    blocks.push_back(std::move(meta));
    entries.clear();
    entry_count = 0;
  };
  int32_t value_count = 0;
  std::vector<int64_t> ids;
  for (size_t i = 0; i < runs;) {
    const std::string_view key = key_of(order[i]);
    ids.clear();
    size_t j = i;
    for (; j < runs && key_of(order[j]) == key; ++j) {
      const size_t r = order[j];
      ids.insert(ids.end(), rows_.begin() + static_cast<std::ptrdiff_t>(row_starts_[r]),
                 rows_.begin() + static_cast<std::ptrdiff_t>(row_starts_[r + 1]));
    }
    if (j - i > 1 || !std::is_sorted(ids.begin(), ids.end())) std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    i = j;
    const auto bitmap_offset = static_cast<int64_t>(out.size());
    out += EncodeRoaring64(ids);
    const auto bitmap_length = static_cast<int64_t>(out.size()) - bitmap_offset;
    std::string entry;
    AppendVarLen(&entry, key.size());
    entry.append(key);
    AppendVarLen(&entry, static_cast<uint64_t>(bitmap_offset));
    AppendVarLen(&entry, static_cast<uint64_t>(bitmap_length));
    const size_t after =
        VarLenSize(static_cast<uint64_t>(entry_count + 1)) + entries.size() + entry.size();
    if (entry_count > 0 && static_cast<int64_t>(after) > options_.dictionary_block_size) flush();
    if (entry_count == 0) first_in_block = std::string(key);
    entries += entry;
    ++entry_count;
    ++value_count;
  }
  if (entry_count > 0) flush();

  std::string index;
  AppendVarLen(&index, blocks.size());
  for (const BlockMeta& b : blocks) {
    AppendVarLen(&index, b.first_key.size());
    index += b.first_key;
    AppendVarLen(&index, static_cast<uint64_t>(b.offset));
    AppendVarLen(&index, static_cast<uint64_t>(b.length));
  }
  int64_t index_offset = 0, index_length = 0;
  AppendTrailedBlock(&out, index, &index_offset, &index_length);

  AppendBE<int64_t>(&out, null_offset);
  AppendBE<int32_t>(&out, static_cast<int32_t>(null_length));
  AppendBE<int64_t>(&out, non_null_offset);
  AppendBE<int32_t>(&out, static_cast<int32_t>(non_null_length));
  AppendBE<int64_t>(&out, index_offset);
  AppendBE<int32_t>(&out, static_cast<int32_t>(index_length));
  AppendBE<int32_t>(&out, value_count);
  AppendBE<int32_t>(&out, 1);
  AppendBE<uint32_t>(&out, kBitmapMagic);
  return file;
}

Result<std::unique_ptr<BitmapFileReader>> BitmapFileReader::Open(
    std::shared_ptr<arrow::Buffer> file, KeyCodec codec, std::string name) {
  const int64_t size = file->size();
  return Open(std::make_shared<arrow::io::BufferReader>(std::move(file)), size, std::move(codec),
              std::move(name));
}

Result<std::unique_ptr<BitmapFileReader>> BitmapFileReader::Open(
    std::shared_ptr<arrow::io::RandomAccessFile> file, int64_t size, KeyCodec codec,
    std::string name) {
  std::unique_ptr<BitmapFileReader> r(
      new BitmapFileReader(std::move(file), size, std::move(codec), std::move(name)));
  if (size < kBitmapFooterSize) {
    return Status::Invalid("bitmap index file '", r->name_, "' is too short (", size, " bytes)");
  }
  ARROW_ASSIGN_OR_RAISE(auto footer,
                        ReadIndexRange(r->file_.get(), size - kBitmapFooterSize, kBitmapFooterSize,
                                       "bitmap", r->name_, &r->bytes_read_));
  const char* f = reinterpret_cast<const char*>(footer->data());
  r->nulls_ = Handle{LoadBE<int64_t>(f), LoadBE<int32_t>(f + 8)};
  r->non_null_ = Handle{LoadBE<int64_t>(f + 12), LoadBE<int32_t>(f + 20)};
  const Handle index{LoadBE<int64_t>(f + 24), LoadBE<int32_t>(f + 32)};
  r->value_count_ = LoadBE<int32_t>(f + 36);
  const int32_t version = LoadBE<int32_t>(f + 40);
  const uint32_t magic = LoadBE<uint32_t>(f + 44);
  if (magic != kBitmapMagic) {
    // Java 1.4's bitmap global index wraps the file-index bitmap, another layout.
    return Status::NotImplemented("'", r->name_,
                                  "' is not a bitmap global-index file of the layout this engine "
                                  "reads (magic ",
                                  magic, ", expected BGIX)");
  }
  if (version != 1) {
    return Status::NotImplemented("bitmap index file '", r->name_, "' has version ", version);
  }
  if (r->value_count_ < 0) {
    return Status::Invalid("bitmap index file '", r->name_, "': negative value count");
  }
  for (const Handle& h : {r->nulls_, r->non_null_}) {
    if (h.offset < 0 || h.length < 0 || h.offset > size || size - h.offset < h.length) {
      return Status::Invalid("bitmap index file '", r->name_, "': bitmap [", h.offset, ", +",
                             h.length, ") is outside the file of ", size, " bytes");
    }
  }
  ARROW_ASSIGN_OR_RAISE(std::string bytes, r->ReadBlock(index, "index"));
  const char* what = "bitmap index block";
  size_t pos = 0;
  ARROW_ASSIGN_OR_RAISE(int64_t count, ReadVarLen(bytes, &pos, 5, what));
  for (int64_t i = 0; i < count; ++i) {
    DictionaryBlock b;
    ARROW_ASSIGN_OR_RAISE(int64_t klen, ReadVarLen(bytes, &pos, 5, what));
    if (bytes.size() - pos < static_cast<size_t>(klen)) {
      return Status::Invalid("bitmap index file '", r->name_, "': index block truncated");
    }
    b.first_key = bytes.substr(pos, static_cast<size_t>(klen));
    pos += static_cast<size_t>(klen);
    ARROW_ASSIGN_OR_RAISE(b.handle.offset, ReadVarLen(bytes, &pos, 10, what));
    ARROW_ASSIGN_OR_RAISE(b.handle.length, ReadVarLen(bytes, &pos, 5, what));
    r->blocks_.push_back(std::move(b));
  }
  std::sort(
      r->blocks_.begin(), r->blocks_.end(),
      [](const DictionaryBlock& a, const DictionaryBlock& b) { return a.first_key < b.first_key; });
  return r;
}

Result<std::string> BitmapFileReader::ReadBlock(Handle h, const char* what) const {
  if (h.offset < 0 || h.length < 0 || h.offset > size_ ||
      size_ - h.offset < h.length + kTrailerSize) {
    return Status::Invalid("bitmap index file '", name_, "': ", what, " block [", h.offset, ", +",
                           h.length, ") is outside the file of ", size_, " bytes");
  }
  ARROW_ASSIGN_OR_RAISE(auto bytes, ReadIndexRange(file_.get(), h.offset, h.length + kTrailerSize,
                                                   "bitmap", name_, &bytes_read_));
  return ReadTrailedBlock(*bytes, 0, h.length, "bitmap", name_, what);
}

Result<std::vector<int64_t>> BitmapFileReader::ReadBitmap(Handle h) const {
  if (h.offset < 0 || h.length < 0 || h.offset > size_ || size_ - h.offset < h.length) {
    return Status::Invalid("bitmap index file '", name_, "': bitmap [", h.offset, ", +", h.length,
                           ") is outside the file of ", size_, " bytes");
  }
  ARROW_ASSIGN_OR_RAISE(
      auto bytes, ReadIndexRange(file_.get(), h.offset, h.length, "bitmap", name_, &bytes_read_));
  return DecodeRoaring64(
      std::string_view(reinterpret_cast<const char*>(bytes->data()), static_cast<size_t>(h.length)),
      "bitmap index bitmap");
}

Result<std::vector<BitmapFileReader::DictionaryEntry>> BitmapFileReader::ReadDictionary(
    const DictionaryBlock& block) const {
  ARROW_ASSIGN_OR_RAISE(std::string bytes, ReadBlock(block.handle, "dictionary"));
  const char* what = "bitmap dictionary block";
  size_t pos = 0;
  ARROW_ASSIGN_OR_RAISE(int64_t count, ReadVarLen(bytes, &pos, 5, what));
  std::vector<DictionaryEntry> out;
  for (int64_t i = 0; i < count; ++i) {
    DictionaryEntry e;
    ARROW_ASSIGN_OR_RAISE(int64_t klen, ReadVarLen(bytes, &pos, 5, what));
    if (bytes.size() - pos < static_cast<size_t>(klen)) {
      return Status::Invalid("bitmap index file '", name_, "': dictionary block truncated");
    }
    e.key = bytes.substr(pos, static_cast<size_t>(klen));
    pos += static_cast<size_t>(klen);
    ARROW_RETURN_NOT_OK(codec_.Validate(e.key));
    ARROW_ASSIGN_OR_RAISE(e.bitmap.offset, ReadVarLen(bytes, &pos, 10, what));
    ARROW_ASSIGN_OR_RAISE(e.bitmap.length, ReadVarLen(bytes, &pos, 5, what));
    out.push_back(std::move(e));
  }
  return out;
}

Status BitmapFileReader::LookupSorted(
    const std::vector<std::string_view>& keys,
    const std::function<Status(size_t, std::vector<int64_t>)>& found) const {
  // Each wanted byte string with the key position it answers for, in byte order, so each
  // dictionary block is decoded once.
  std::vector<std::pair<std::string, size_t>> wanted;
  for (size_t i = 0; i < keys.size(); ++i) {
    wanted.emplace_back(std::string(keys[i]), i);
    if (auto other = OtherZero(codec_, keys[i])) wanted.emplace_back(std::move(*other), i);
  }
  std::sort(wanted.begin(), wanted.end());
  std::vector<std::vector<int64_t>> hits(keys.size());
  std::vector<bool> hit(keys.size(), false);
  size_t cached = blocks_.size();
  std::vector<DictionaryEntry> entries;
  for (const auto& [key, position] : wanted) {
    // The last block whose first key is <= key.
    auto it = std::upper_bound(
        blocks_.begin(), blocks_.end(), key,
        [](const std::string& k, const DictionaryBlock& b) { return k < b.first_key; });
    if (it == blocks_.begin()) continue;
    const auto b = static_cast<size_t>(it - blocks_.begin()) - 1;
    if (b != cached) {
      ARROW_ASSIGN_OR_RAISE(entries, ReadDictionary(blocks_[b]));
      cached = b;
    }
    auto e =
        std::lower_bound(entries.begin(), entries.end(), key,
                         [](const DictionaryEntry& d, const std::string& k) { return d.key < k; });
    if (e == entries.end() || e->key != key) continue;
    ARROW_ASSIGN_OR_RAISE(auto ids, ReadBitmap(e->bitmap));
    auto& into = hits[position];
    if (hit[position]) {
      into.insert(into.end(), ids.begin(), ids.end());
      std::sort(into.begin(), into.end());
    } else {
      into = std::move(ids);
    }
    hit[position] = true;
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    if (hit[i]) ARROW_RETURN_NOT_OK(found(i, std::move(hits[i])));
  }
  return Status::OK();
}

Result<std::vector<BTreeEntry>> BitmapFileReader::Range(const std::optional<std::string>& lower,
                                                        bool lower_inclusive,
                                                        const std::optional<std::string>& upper,
                                                        bool upper_inclusive) const {
  std::vector<BTreeEntry> out;
  for (const DictionaryBlock& block : blocks_) {
    ARROW_ASSIGN_OR_RAISE(auto entries, ReadDictionary(block));
    for (auto& e : entries) {
      if (lower) {
        const int c = codec_.Compare(e.key, *lower);
        if (c < 0 || (c == 0 && !lower_inclusive)) continue;
      }
      if (upper) {
        const int c = codec_.Compare(e.key, *upper);
        if (c > 0 || (c == 0 && !upper_inclusive)) continue;
      }
      BTreeEntry entry;
      ARROW_ASSIGN_OR_RAISE(entry.row_ids, ReadBitmap(e.bitmap));
      entry.key = std::move(e.key);
      out.push_back(std::move(entry));
    }
  }
  return out;
}

Result<std::unique_ptr<SortedIndexReader>> OpenSortedIndexReader(
    const std::string& index_type, std::shared_ptr<arrow::io::RandomAccessFile> file, int64_t size,
    KeyCodec codec, std::string name) {
  if (index_type == kBTreeIndexType) {
    ARROW_ASSIGN_OR_RAISE(
        auto r, BTreeFileReader::Open(std::move(file), size, std::move(codec), std::move(name)));
    return std::unique_ptr<SortedIndexReader>(std::move(r));
  }
  if (index_type == kBitmapIndexType) {
    ARROW_ASSIGN_OR_RAISE(
        auto r, BitmapFileReader::Open(std::move(file), size, std::move(codec), std::move(name)));
    return std::unique_ptr<SortedIndexReader>(std::move(r));
  }
  return Status::Invalid("'", name, "' is a '", index_type,
                         "' index, not a sorted (btree or bitmap) index");
}

}  // namespace paimon_rowid
