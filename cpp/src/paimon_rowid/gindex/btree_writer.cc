#include <arrow/buffer.h>
#include <arrow/util/compression.h>

#include "paimon_rowid/codec/crc32.h"
#include "paimon_rowid/codec/little_endian.h"
#include "paimon_rowid/codec/roaring.h"
#include "paimon_rowid/gindex/btree_file.h"
#include "paimon_rowid/gindex/var_len_internal.h"

namespace paimon_rowid {

using gindex_internal::AppendVarLen;

namespace {

constexpr uint8_t kAligned = 0;
constexpr uint8_t kUnaligned = 1;
constexpr uint32_t kVersion = 1;
constexpr uint8_t kMetaVersion = 1;
constexpr uint8_t kFirstKeyNull = 1;
constexpr uint8_t kLastKeyNull = 2;

// Appends the block tail (aligned or the offset table) to `block`.
void FinishBlock(std::string* block, const std::vector<uint32_t>& positions, bool aligned,
                 int64_t aligned_size) {
  if (positions.empty()) aligned = false;
  if (aligned) {
    AppendLE<uint32_t>(block, static_cast<uint32_t>(aligned_size));
    block->push_back(static_cast<char>(kAligned));
  } else {
    for (uint32_t p : positions) AppendLE<uint32_t>(block, p);
    AppendLE<uint32_t>(block, static_cast<uint32_t>(positions.size()));
    block->push_back(static_cast<char>(kUnaligned));
  }
}

void AddEntry(std::string* block, std::vector<uint32_t>* positions, bool* aligned,
              int64_t* aligned_size, std::string_view key, std::string_view value) {
  const size_t start = block->size();
  AppendVarLen(block, key.size());
  block->append(key);
  AppendVarLen(block, value.size());
  block->append(value);
  positions->push_back(static_cast<uint32_t>(start));
  const int64_t size = static_cast<int64_t>(block->size() - start);
  if (*aligned) {
    if (*aligned_size == 0) {
      *aligned_size = size;
    } else {
      *aligned = *aligned_size == size;
    }
  }
}

}  // namespace

Result<BlockCompression> ParseBlockCompression(const std::string& name) {
  if (name.empty() || name == "none") return BlockCompression::kNone;
  if (name == "zstd") return BlockCompression::kZstd;
  return Status::Invalid("btree-index.compression '", name,
                         "' is not supported for writing (none, zstd)");
}

std::string SortedIndexFileMeta::Serialize() const {
  std::string out;
  uint8_t flags = 0;
  for (const auto* key : {&first_key, &last_key}) {
    if (key->has_value()) {
      AppendLE<uint32_t>(&out, static_cast<uint32_t>((*key)->size()));
      out += **key;
    } else {
      AppendLE<uint32_t>(&out, 0);
      flags |= key == &first_key ? kFirstKeyNull : kLastKeyNull;
    }
  }
  out.push_back(has_nulls ? 1 : 0);
  out.push_back(static_cast<char>(kMetaVersion));
  out.push_back(static_cast<char>(flags));
  return out;
}

Result<SortedIndexFileMeta> SortedIndexFileMeta::Deserialize(std::string_view bytes) {
  size_t pos = 0;
  auto read_key = [&]() -> Result<std::string> {
    if (bytes.size() - pos < 4) return Status::Invalid("sorted index meta is truncated");
    const uint32_t len = LoadLE<uint32_t>(bytes.data() + pos);
    pos += 4;
    if (bytes.size() - pos < len) return Status::Invalid("sorted index meta is truncated");
    std::string key(bytes.substr(pos, len));
    pos += len;
    return key;
  };
  SortedIndexFileMeta meta;
  ARROW_ASSIGN_OR_RAISE(std::string first, read_key());
  ARROW_ASSIGN_OR_RAISE(std::string last, read_key());
  if (pos >= bytes.size()) return Status::Invalid("sorted index meta is truncated");
  meta.has_nulls = bytes[pos++] == 1;
  meta.first_key = std::move(first);
  meta.last_key = std::move(last);
  if (bytes.size() - pos >= 2) {
    if (static_cast<uint8_t>(bytes[pos]) == kMetaVersion) {
      const auto flags = static_cast<uint8_t>(bytes[pos + 1]);
      if (flags & kFirstKeyNull) meta.first_key.reset();
      if (flags & kLastKeyNull) meta.last_key.reset();
    }
  } else if (meta.first_key->empty() && meta.last_key->empty() && meta.has_nulls) {
    meta.first_key.reset();
    meta.last_key.reset();
  }
  return meta;
}

BTreeFileWriter::BTreeFileWriter(KeyCodec codec, BTreeWriteOptions options)
    : codec_(std::move(codec)), options_(options) {}

Status BTreeFileWriter::Add(std::string_view key, int64_t row_id) {
  if (finished_) return Status::Invalid("btree index writer is finished");
  if (row_id < 0) return Status::Invalid("btree index row id ", row_id, " is negative");
  ARROW_RETURN_NOT_OK(codec_.Validate(key));
  if (key_.has_value()) {
    const int c = codec_.Compare(key, *key_);
    if (c < 0) return Status::Invalid("btree index keys must be added in ascending order");
    if (c != 0) ARROW_RETURN_NOT_OK(FlushKey());
  }
  // Equal keys (-0.0 and 0.0) are one entry under the latest key's bytes, as pypaimon's.
  key_ = std::string(key);
  if (!first_key_) first_key_ = key_;
  key_rows_.push_back(row_id);
  ++row_count_;
  return Status::OK();
}

Status BTreeFileWriter::AddNull(int64_t row_id) {
  if (finished_) return Status::Invalid("btree index writer is finished");
  if (row_id < 0) return Status::Invalid("btree index row id ", row_id, " is negative");
  if (!nulls_.empty() && row_id <= nulls_.back()) {
    return Status::Invalid("btree index null row ids must ascend");
  }
  nulls_.push_back(row_id);
  ++row_count_;
  return Status::OK();
}

Status BTreeFileWriter::FlushKey() {
  if (key_rows_.empty()) return Status::OK();
  std::string value;
  AppendVarLen(&value, key_rows_.size());
  for (int64_t r : key_rows_) AppendVarLen(&value, static_cast<uint64_t>(r));
  key_rows_.clear();
  AddEntry(&block_, &positions_, &aligned_, &aligned_size_, *key_, value);
  if (options_.bloom_filter) hashes_.push_back(PaimonHashBytes(*key_));
  block_last_key_ = *key_;
  int64_t memory = static_cast<int64_t>(block_.size()) + 5;
  if (!aligned_) memory += 4 * static_cast<int64_t>(positions_.size());
  if (memory > options_.block_size) return FlushDataBlock();
  return Status::OK();
}

Status BTreeFileWriter::FlushDataBlock() {
  if (positions_.empty()) return Status::OK();
  std::string block = std::move(block_);
  FinishBlock(&block, positions_, aligned_, aligned_size_);
  block_.clear();
  positions_.clear();
  aligned_ = true;
  aligned_size_ = 0;
  int64_t offset = 0, size = 0;
  ARROW_RETURN_NOT_OK(WriteBlock(std::move(block), &offset, &size));
  std::string handle;
  AppendVarLen(&handle, static_cast<uint64_t>(offset));
  AppendVarLen(&handle, static_cast<uint64_t>(size));
  AddEntry(&index_, &index_positions_, &index_aligned_, &index_aligned_size_, block_last_key_,
           handle);
  return Status::OK();
}

Status BTreeFileWriter::WriteBlock(std::string block, int64_t* offset, int64_t* size) {
  uint8_t type = static_cast<uint8_t>(BlockCompression::kNone);
  if (options_.compression == BlockCompression::kZstd) {
    ARROW_ASSIGN_OR_RAISE(auto codec, arrow::util::Codec::Create(arrow::Compression::ZSTD,
                                                                 options_.compression_level));
    const int64_t bound = codec->MaxCompressedLen(static_cast<int64_t>(block.size()),
                                                  reinterpret_cast<const uint8_t*>(block.data()));
    std::string compressed;
    AppendVarLen(&compressed, block.size());
    const size_t head = compressed.size();
    compressed.resize(head + static_cast<size_t>(bound));
    ARROW_ASSIGN_OR_RAISE(int64_t n,
                          codec->Compress(static_cast<int64_t>(block.size()),
                                          reinterpret_cast<const uint8_t*>(block.data()), bound,
                                          reinterpret_cast<uint8_t*>(compressed.data() + head)));
    compressed.resize(head + static_cast<size_t>(n));
    // Java keeps a block uncompressed unless compression saves an eighth of it.
    if (compressed.size() < block.size() - block.size() / 8) {
      block = std::move(compressed);
      type = static_cast<uint8_t>(BlockCompression::kZstd);
    }
  }
  *offset = static_cast<int64_t>(out_.size());
  *size = static_cast<int64_t>(block.size());
  out_ += block;
  const char type_byte = static_cast<char>(type);
  uint32_t crc = Crc32(0, block.data(), block.size());
  crc = Crc32(crc, &type_byte, 1);
  out_.push_back(type_byte);
  AppendLE<uint32_t>(&out_, crc);
  return Status::OK();
}

Result<BTreeFile> BTreeFileWriter::Finish() {
  if (finished_) return Status::Invalid("btree index writer is finished");
  finished_ = true;
  if (row_count_ == 0) return Status::Invalid("a btree index file cannot be empty");
  BTreeFile file;
  file.meta.first_key = first_key_;
  file.meta.last_key = key_;
  file.meta.has_nulls = !nulls_.empty();
  ARROW_RETURN_NOT_OK(FlushKey());
  ARROW_RETURN_NOT_OK(FlushDataBlock());

  uint64_t null_offset = 0;
  uint32_t null_size = 0;
  if (!nulls_.empty()) {
    const std::string bitmap = EncodeRoaring64(nulls_);
    null_offset = out_.size();
    null_size = static_cast<uint32_t>(bitmap.size());
    out_ += bitmap;
    AppendLE<uint32_t>(&out_, Crc32(0, bitmap.data(), bitmap.size()));
  }
  uint64_t bloom_offset = 0, bloom_entries = 0;
  uint32_t bloom_size = 0;
  if (options_.bloom_filter && !hashes_.empty()) {
    BloomFilter bloom = BloomFilter::Build(hashes_);
    bloom_offset = out_.size();
    bloom_size = static_cast<uint32_t>(bloom.bytes().size());
    bloom_entries = static_cast<uint64_t>(bloom.expected_entries());
    out_ += bloom.bytes();
  }
  std::string index = std::move(index_);
  FinishBlock(&index, index_positions_, index_aligned_, index_aligned_size_);
  int64_t index_offset = 0, index_size = 0;
  ARROW_RETURN_NOT_OK(WriteBlock(std::move(index), &index_offset, &index_size));

  AppendLE<uint64_t>(&out_, bloom_offset);
  AppendLE<uint32_t>(&out_, bloom_size);
  AppendLE<uint64_t>(&out_, bloom_entries);
  AppendLE<uint64_t>(&out_, static_cast<uint64_t>(index_offset));
  AppendLE<uint32_t>(&out_, static_cast<uint32_t>(index_size));
  AppendLE<uint64_t>(&out_, null_offset);
  AppendLE<uint32_t>(&out_, null_size);
  AppendLE<uint32_t>(&out_, kVersion);
  AppendLE<uint32_t>(&out_, kBTreeMagic);
  file.bytes = std::move(out_);
  file.row_count = row_count_;
  return file;
}

}  // namespace paimon_rowid
