#include <arrow/buffer.h>
#include <arrow/io/memory.h>
#include <arrow/util/compression.h>

#include <algorithm>

#include "paimon_rowid/codec/crc32.h"
#include "paimon_rowid/codec/little_endian.h"
#include "paimon_rowid/codec/roaring.h"
#include "paimon_rowid/gindex/btree_file.h"
#include "paimon_rowid/gindex/var_len_internal.h"

namespace paimon_rowid {

using gindex_internal::ReadVarLen;

namespace {

constexpr int64_t kTrailerSize = 5;

// A decoded block: entry i spans [starts[i], starts[i + 1] or entries_end).
struct Block {
  std::string bytes;
  std::vector<uint32_t> starts;
  size_t entries_end = 0;

  struct Entry {
    std::string_view key, value;
  };
  Result<Entry> At(size_t i, const std::string& file) const {
    std::string_view all(bytes.data(), entries_end);
    size_t pos = starts[i];
    if (pos > all.size()) return Status::Invalid("btree index file '", file, "': bad entry");
    const char* what = "btree index block entry";
    ARROW_ASSIGN_OR_RAISE(int64_t klen, ReadVarLen(all, &pos, 5, what));
    if (all.size() - pos < static_cast<size_t>(klen)) {
      return Status::Invalid("btree index file '", file, "': entry key out of its block");
    }
    Entry e;
    e.key = all.substr(pos, static_cast<size_t>(klen));
    pos += static_cast<size_t>(klen);
    ARROW_ASSIGN_OR_RAISE(int64_t vlen, ReadVarLen(all, &pos, 5, what));
    if (all.size() - pos < static_cast<size_t>(vlen)) {
      return Status::Invalid("btree index file '", file, "': entry value out of its block");
    }
    e.value = all.substr(pos, static_cast<size_t>(vlen));
    return e;
  }
};

Result<Block> ParseBlock(std::string bytes, const std::string& file) {
  Block block;
  auto bad = [&](const char* why) {
    return Status::Invalid("btree index file '", file, "' has a malformed block (", why, ")");
  };
  if (bytes.size() < 5) return bad("too short");
  const auto type = static_cast<uint8_t>(bytes.back());
  const size_t body = bytes.size() - 1;
  const uint32_t last = LoadLE<uint32_t>(bytes.data() + body - 4);
  if (type == 0) {
    const size_t entries = body - 4;
    if (last == 0) {
      if (entries != 0) return bad("zero entry size");
    } else {
      if (entries % last != 0) return bad("entries not a multiple of the entry size");
      for (size_t p = 0; p < entries; p += last) block.starts.push_back(static_cast<uint32_t>(p));
    }
    block.entries_end = entries;
  } else if (type == 1) {
    const uint64_t count = last;
    if ((body - 4) / 4 < count) return bad("offset table out of the block");
    const size_t table = body - 4 - 4 * count;
    for (uint64_t i = 0; i < count; ++i) {
      const uint32_t start = LoadLE<uint32_t>(bytes.data() + table + 4 * i);
      if (start >= table || (i > 0 && start <= block.starts.back())) return bad("offsets");
      block.starts.push_back(start);
    }
    block.entries_end = table;
  } else {
    return bad("unknown alignment byte");
  }
  block.bytes = std::move(bytes);
  return block;
}

Result<std::vector<int64_t>> DecodeRowIds(std::string_view value, const std::string& file) {
  size_t pos = 0;
  const char* what = "btree index row ids";
  ARROW_ASSIGN_OR_RAISE(int64_t count, ReadVarLen(value, &pos, 5, what));
  if (static_cast<uint64_t>(count) > value.size()) {
    return Status::Invalid("btree index file '", file, "' claims ", count, " row ids in ",
                           value.size(), " bytes");
  }
  std::vector<int64_t> out(static_cast<size_t>(count));
  for (auto& r : out) {
    ARROW_ASSIGN_OR_RAISE(r, ReadVarLen(value, &pos, 10, what));
  }
  return out;
}

Result<std::string> Decompress(std::string_view stored, uint8_t type, const char* kind,
                               const std::string& file) {
  if (type == 0) return std::string(stored);
  size_t pos = 0;
  ARROW_ASSIGN_OR_RAISE(int64_t length, ReadVarLen(stored, &pos, 5, "index block"));
  std::string out(static_cast<size_t>(length), '\0');
  std::unique_ptr<arrow::util::Codec> codec;
  std::string_view payload = stored.substr(pos);
  if (type == 1) {
    ARROW_ASSIGN_OR_RAISE(codec, arrow::util::Codec::Create(arrow::Compression::ZSTD));
  } else if (type == 2) {
    if (payload.size() < 8) return Status::Invalid(kind, " index file '", file, "': lz4 header");
    const int32_t compressed = LoadLE<int32_t>(payload.data());
    const int32_t original = LoadLE<int32_t>(payload.data() + 4);
    if (original != length || compressed < 0 ||
        static_cast<size_t>(compressed) > payload.size() - 8) {
      return Status::Invalid(kind, " index file '", file, "': lz4 block header is inconsistent");
    }
    payload = payload.substr(8, static_cast<size_t>(compressed));
    ARROW_ASSIGN_OR_RAISE(codec, arrow::util::Codec::Create(arrow::Compression::LZ4));
  } else if (type == 3) {
    return Status::NotImplemented(kind, " index file '", file, "' has LZO-compressed blocks");
  } else {
    return Status::Invalid(kind, " index file '", file, "' has compression type ", int{type});
  }
  ARROW_ASSIGN_OR_RAISE(int64_t n,
                        codec->Decompress(static_cast<int64_t>(payload.size()),
                                          reinterpret_cast<const uint8_t*>(payload.data()), length,
                                          reinterpret_cast<uint8_t*>(out.data())));
  if (n != length) {
    return Status::Invalid(kind, " index file '", file, "': block decompressed to ", n,
                           " bytes, expected ", length);
  }
  return out;
}

}  // namespace

Result<std::string> ReadTrailedBlock(const arrow::Buffer& file, int64_t offset, int64_t size,
                                     const char* kind, const std::string& name, const char* what) {
  const int64_t file_size = file.size();
  if (offset < 0 || size < 0 || offset > file_size || file_size - offset < size + kTrailerSize) {
    return Status::Invalid(kind, " index file '", name, "': ", what, " block [", offset, ", +",
                           size, ") is outside the file of ", file_size, " bytes");
  }
  const char* p = reinterpret_cast<const char*>(file.data()) + offset;
  const auto type = static_cast<uint8_t>(p[size]);
  uint32_t crc = Crc32(0, p, static_cast<size_t>(size));
  crc = Crc32(crc, p + size, 1);
  const uint32_t stored = LoadLE<uint32_t>(p + size + 1);
  if (crc != stored) {
    return Status::IOError(kind, " index file '", name, "' is damaged: ", what, " block CRC32 ",
                           crc, ", stored ", stored);
  }
  return Decompress(std::string_view(p, static_cast<size_t>(size)), type, kind, name);
}

Result<std::shared_ptr<arrow::Buffer>> ReadIndexRange(arrow::io::RandomAccessFile* file,
                                                      int64_t offset, int64_t length,
                                                      const char* kind, const std::string& name,
                                                      std::atomic<int64_t>* bytes_read) {
  ARROW_ASSIGN_OR_RAISE(auto buffer, file->ReadAt(offset, length));
  if (buffer->size() != length) {
    return Status::IOError(kind, " index file '", name, "': read ", buffer->size(), " bytes at ",
                           offset, ", expected ", length);
  }
  bytes_read->fetch_add(length, std::memory_order_relaxed);
  return buffer;
}

Result<std::shared_ptr<arrow::Buffer>> BTreeFileReader::ReadRange(int64_t offset,
                                                                  int64_t length) const {
  return ReadIndexRange(file_.get(), offset, length, "btree", name_, &bytes_read_);
}

Result<std::string> BTreeFileReader::ReadBlock(int64_t offset, int64_t size,
                                               const char* what) const {
  if (offset < 0 || size < 0 || offset > size_ || size_ - offset < size + kTrailerSize) {
    return Status::Invalid("btree index file '", name_, "': ", what, " block [", offset, ", +",
                           size, ") is outside the file of ", size_, " bytes");
  }
  ARROW_ASSIGN_OR_RAISE(auto bytes, ReadRange(offset, size + kTrailerSize));
  return ReadTrailedBlock(*bytes, 0, size, "btree", name_, what);
}

Result<std::unique_ptr<BTreeFileReader>> BTreeFileReader::Open(std::shared_ptr<arrow::Buffer> file,
                                                               KeyCodec codec, std::string name) {
  const int64_t size = file->size();
  return Open(std::make_shared<arrow::io::BufferReader>(std::move(file)), size, std::move(codec),
              std::move(name));
}

Result<std::unique_ptr<BTreeFileReader>> BTreeFileReader::Open(
    std::shared_ptr<arrow::io::RandomAccessFile> file, int64_t size, KeyCodec codec,
    std::string name) {
  std::unique_ptr<BTreeFileReader> r(
      new BTreeFileReader(std::move(file), size, std::move(codec), std::move(name)));
  if (size < kBTreeFooterSize) {
    return Status::Invalid("btree index file '", r->name_, "' is too short (", size, " bytes)");
  }
  ARROW_ASSIGN_OR_RAISE(auto footer, r->ReadRange(size - kBTreeFooterSize, kBTreeFooterSize));
  const char* f = reinterpret_cast<const char*>(footer->data());
  const uint64_t bloom_offset = LoadLE<uint64_t>(f);
  const uint32_t bloom_size = LoadLE<uint32_t>(f + 8);
  const uint64_t bloom_entries = LoadLE<uint64_t>(f + 12);
  const uint64_t index_offset = LoadLE<uint64_t>(f + 20);
  const uint32_t index_size = LoadLE<uint32_t>(f + 28);
  const uint64_t null_offset = LoadLE<uint64_t>(f + 32);
  const uint32_t null_size = LoadLE<uint32_t>(f + 40);
  const uint32_t version = LoadLE<uint32_t>(f + 44);
  const uint32_t magic = LoadLE<uint32_t>(f + 48);
  if (magic != kBTreeMagic) {
    return Status::Invalid("'", r->name_, "' is not a btree index file (magic ", magic, ")");
  }
  if (version != 1) {
    return Status::NotImplemented("btree index file '", r->name_, "' has version ", version);
  }
  const uint64_t body = static_cast<uint64_t>(size - kBTreeFooterSize);
  if (bloom_offset != 0 || bloom_size != 0 || bloom_entries != 0) {
    if (bloom_offset > body || body - bloom_offset < bloom_size) {
      return Status::Invalid("btree index file '", r->name_, "': bloom filter outside the file");
    }
    ARROW_ASSIGN_OR_RAISE(auto bloom_bytes,
                          r->ReadRange(static_cast<int64_t>(bloom_offset), bloom_size));
    ARROW_ASSIGN_OR_RAISE(auto bloom, BloomFilter::FromBytes(bloom_bytes->ToString(),
                                                             static_cast<int64_t>(bloom_entries)));
    r->bloom_ = std::move(bloom);
  }
  if (null_offset != 0 || null_size != 0) {
    if (null_offset > body || body - null_offset < uint64_t{null_size} + 4) {
      return Status::Invalid("btree index file '", r->name_, "': null bitmap outside the file");
    }
    r->null_offset_ = static_cast<int64_t>(null_offset);
    r->null_size_ = null_size;
  }
  ARROW_ASSIGN_OR_RAISE(std::string index_bytes,
                        r->ReadBlock(static_cast<int64_t>(index_offset), index_size, "index"));
  ARROW_ASSIGN_OR_RAISE(Block index, ParseBlock(std::move(index_bytes), r->name_));
  for (size_t i = 0; i < index.starts.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto entry, index.At(i, r->name_));
    ARROW_RETURN_NOT_OK(r->codec_.Validate(entry.key));
    size_t pos = 0;
    BlockRef ref;
    ref.last_key = std::string(entry.key);
    ARROW_ASSIGN_OR_RAISE(ref.offset, ReadVarLen(entry.value, &pos, 10, "btree block handle"));
    ARROW_ASSIGN_OR_RAISE(ref.size, ReadVarLen(entry.value, &pos, 5, "btree block handle"));
    r->blocks_.push_back(std::move(ref));
  }
  return r;
}

Result<std::vector<int64_t>> BTreeFileReader::NullRows() const {
  if (null_size_ == 0 && null_offset_ == 0) return std::vector<int64_t>{};
  ARROW_ASSIGN_OR_RAISE(auto bytes, ReadRange(null_offset_, null_size_ + 4));
  const char* data = reinterpret_cast<const char*>(bytes->data());
  std::string_view bitmap(data, static_cast<size_t>(null_size_));
  const uint32_t crc = Crc32(0, bitmap.data(), bitmap.size());
  const uint32_t stored = LoadLE<uint32_t>(data + null_size_);
  if (crc != stored) {
    return Status::IOError("btree index file '", name_, "' is damaged: null bitmap CRC32 ", crc,
                           ", stored ", stored);
  }
  return DecodeRoaring64(bitmap, "btree index null bitmap");
}

size_t BTreeFileReader::FirstBlockAtLeast(std::string_view key) const {
  auto it = std::partition_point(blocks_.begin(), blocks_.end(), [&](const BlockRef& b) {
    return codec_.Compare(b.last_key, key) < 0;
  });
  return static_cast<size_t>(it - blocks_.begin());
}

Result<std::vector<int64_t>> BTreeFileReader::Lookup(std::string_view key) const {
  if (bloom_ && !bloom_->MightContain(PaimonHashBytes(key))) return std::vector<int64_t>{};
  const size_t b = FirstBlockAtLeast(key);
  if (b == blocks_.size()) return std::vector<int64_t>{};
  ARROW_ASSIGN_OR_RAISE(std::string bytes, ReadBlock(blocks_[b].offset, blocks_[b].size, "data"));
  ARROW_ASSIGN_OR_RAISE(Block block, ParseBlock(std::move(bytes), name_));
  size_t lo = 0, hi = block.starts.size();
  while (lo < hi) {  // first entry >= key
    const size_t mid = lo + (hi - lo) / 2;
    ARROW_ASSIGN_OR_RAISE(auto e, block.At(mid, name_));
    if (codec_.Compare(e.key, key) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == block.starts.size()) return std::vector<int64_t>{};
  ARROW_ASSIGN_OR_RAISE(auto e, block.At(lo, name_));
  if (codec_.Compare(e.key, key) != 0) return std::vector<int64_t>{};
  return DecodeRowIds(e.value, name_);
}

Status BTreeFileReader::LookupSorted(
    const std::vector<std::string_view>& keys,
    const std::function<Status(size_t, std::vector<int64_t>)>& found) const {
  size_t i = 0;
  while (i < keys.size()) {
    const size_t b = FirstBlockAtLeast(keys[i]);
    if (b == blocks_.size()) break;  // this key and every later one is above the last key
    // The keys up to the block's last key all live in block b, if anywhere.
    size_t end = i;
    while (end < keys.size() && codec_.Compare(keys[end], blocks_[b].last_key) <= 0) ++end;
    bool any = false;
    for (size_t k = i; k < end && !any; ++k) {
      any = !bloom_ || bloom_->MightContain(PaimonHashBytes(keys[k]));
    }
    if (any) {
      ARROW_ASSIGN_OR_RAISE(std::string bytes,
                            ReadBlock(blocks_[b].offset, blocks_[b].size, "data"));
      ARROW_ASSIGN_OR_RAISE(Block block, ParseBlock(std::move(bytes), name_));
      size_t lo = 0;  // keys ascend, so each search starts where the previous one ended
      for (size_t k = i; k < end; ++k) {
        if (bloom_ && !bloom_->MightContain(PaimonHashBytes(keys[k]))) continue;
        size_t hi = block.starts.size();
        while (lo < hi) {  // first entry >= key
          const size_t mid = lo + (hi - lo) / 2;
          ARROW_ASSIGN_OR_RAISE(auto e, block.At(mid, name_));
          if (codec_.Compare(e.key, keys[k]) < 0) {
            lo = mid + 1;
          } else {
            hi = mid;
          }
        }
        if (lo == block.starts.size()) break;
        ARROW_ASSIGN_OR_RAISE(auto e, block.At(lo, name_));
        if (codec_.Compare(e.key, keys[k]) != 0) continue;
        ARROW_ASSIGN_OR_RAISE(auto ids, DecodeRowIds(e.value, name_));
        ARROW_RETURN_NOT_OK(found(k, std::move(ids)));
      }
    }
    i = std::max(end, i + 1);
  }
  return Status::OK();
}

Result<std::vector<BTreeEntry>> BTreeFileReader::Range(const std::optional<std::string>& lower,
                                                       bool lower_inclusive,
                                                       const std::optional<std::string>& upper,
                                                       bool upper_inclusive) const {
  std::vector<BTreeEntry> out;
  size_t b = lower ? FirstBlockAtLeast(*lower) : 0;
  for (; b < blocks_.size(); ++b) {
    ARROW_ASSIGN_OR_RAISE(std::string bytes, ReadBlock(blocks_[b].offset, blocks_[b].size, "data"));
    ARROW_ASSIGN_OR_RAISE(Block block, ParseBlock(std::move(bytes), name_));
    for (size_t i = 0; i < block.starts.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(auto e, block.At(i, name_));
      ARROW_RETURN_NOT_OK(codec_.Validate(e.key));
      if (lower) {
        const int c = codec_.Compare(e.key, *lower);
        if (c < 0 || (c == 0 && !lower_inclusive)) continue;
      }
      if (upper) {
        const int c = codec_.Compare(e.key, *upper);
        if (c > 0 || (c == 0 && !upper_inclusive)) return out;
      }
      BTreeEntry entry;
      entry.key = std::string(e.key);
      ARROW_ASSIGN_OR_RAISE(entry.row_ids, DecodeRowIds(e.value, name_));
      out.push_back(std::move(entry));
    }
  }
  return out;
}

}  // namespace paimon_rowid
