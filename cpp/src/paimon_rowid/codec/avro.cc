#include "paimon_rowid/codec/avro.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <random>
#include <unordered_map>

#include "arrow/util/compression.h"
#include "arrow/util/crc32.h"

namespace paimon_rowid::avro {

// Avro stores floats little-endian; we copy them with memcpy.
static_assert(std::endian::native == std::endian::little, "little-endian host required");

namespace {

using Kind = Node::Kind;

constexpr char kMagic[4] = {'O', 'b', 'j', 1};
constexpr int kSyncSize = 16;
// Upper bound for one decompressed block; it turns a decompression bomb into an error instead
// of an allocation failure. Blocks are usually ~64 KB, but a block holds at least one whole
// record and a manifest entry can be huge: with full value stats (pypaimon's `full` mode,
// Java's for non-Parquet files, ours before truncate(16)) a 140 MB string is stored twice,
// and Java's manifest writer allows records up to the largest byte[] it can buffer. So the
// cap is Java's own limit: a block larger than INT32_MAX bytes no Java writer can produce
// and no Java reader can read.
constexpr int64_t kMaxBlockBytes = std::numeric_limits<int32_t>::max();
// Values that occupy zero bytes (null, empty records, fixed(0)) cannot be bounded by the
// remaining input, so each block gets a fixed allowance of them.
constexpr int64_t kMaxZeroWidthItems = int64_t{1} << 20;
// Writer block size: Java's default sync interval.
constexpr size_t kWriterBlockBytes = 64000;
constexpr int64_t kWriterBlockRecords = 4096;

Status Truncated() { return Status::Invalid("Avro: truncated data"); }

// ---------------------------------------------------------------------------------------
// Binary decoding

// Smallest encoding of a value of each node, used to reject counts the input cannot hold.
class MinSizes {
 public:
  int64_t Of(const Node& node) {
    auto it = memo_.find(&node);
    if (it != memo_.end()) return it->second;
    int64_t size = 0;
    switch (node.kind) {
      case Kind::kNull:
        size = 0;
        break;
      case Kind::kFloat:
        size = 4;
        break;
      case Kind::kDouble:
        size = 8;
        break;
      case Kind::kFixed:
        size = node.fixed_size;
        break;
      case Kind::kRecord:
        for (const auto& child : node.children) size = std::min(size + Of(*child), kMaxBlockBytes);
        break;
      default:
        size = 1;
        break;  // every other encoding starts with at least one byte
    }
    memo_[&node] = size;
    return size;
  }

 private:
  std::unordered_map<const Node*, int64_t> memo_;
};

class Decoder {
 public:
  Decoder(const uint8_t* data, int64_t size, MinSizes* min_sizes, int64_t* zero_width_budget)
      : pos_(data), end_(data + size), min_sizes_(min_sizes), budget_(zero_width_budget) {}

  int64_t remaining() const { return end_ - pos_; }

  Status ReadLong(int64_t* out) {
    uint64_t raw = 0;
    for (int shift = 0;; shift += 7) {
      if (pos_ == end_) return Truncated();
      if (shift > 63) return Status::Invalid("Avro: varint too long");
      uint8_t byte = *pos_++;
      // The 10th byte may only carry the top bit of a 64-bit value.
      if (shift == 63 && byte > 1) return Status::Invalid("Avro: varint too long");
      raw |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) break;
    }
    *out = static_cast<int64_t>(raw >> 1) ^ -static_cast<int64_t>(raw & 1);
    return Status::OK();
  }

  Status ReadInt(int32_t* out) {
    int64_t v;
    ARROW_RETURN_NOT_OK(ReadLong(&v));
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
      return Status::Invalid("Avro: int out of range");
    }
    *out = static_cast<int32_t>(v);
    return Status::OK();
  }

  Status ReadBytes(std::string* out) {
    int64_t len;
    ARROW_RETURN_NOT_OK(ReadLong(&len));
    if (len < 0 || len > remaining()) return Status::Invalid("Avro: bad byte length ", len);
    return ReadFixed(len, out);
  }

  Status ReadFixed(int64_t len, std::string* out) {
    if (len > remaining()) return Truncated();
    out->assign(reinterpret_cast<const char*>(pos_), static_cast<size_t>(len));
    pos_ += len;
    return Status::OK();
  }

  // Checks that `count` more items of `item` can exist, charging zero-width ones to the
  // budget.
  Status CheckCount(int64_t count, const Node& item) {
    int64_t min_size = min_sizes_->Of(item);
    if (min_size > 0) {
      if (count > remaining() / min_size) {
        return Status::Invalid("Avro: count ", count, " too large");
      }
    } else {
      if (count > *budget_) return Status::Invalid("Avro: too many zero-width values");
      *budget_ -= count;
    }
    return Status::OK();
  }

  // Reads the count of the next array/map block (0 at the end).
  Status ReadBlockCount(const Node& item, int64_t* count) {
    ARROW_RETURN_NOT_OK(ReadLong(count));
    if (*count < 0) {
      if (*count == std::numeric_limits<int64_t>::min()) return Status::Invalid("Avro: bad count");
      *count = -*count;
      int64_t byte_size;  // only useful for skipping; we decode everything
      ARROW_RETURN_NOT_OK(ReadLong(&byte_size));
      if (byte_size < 0 || byte_size > remaining()) return Status::Invalid("Avro: bad block size");
    }
    return CheckCount(*count, item);
  }

  Status Decode(const Node& node, Value* out) {
    switch (node.kind) {
      case Kind::kNull:
        *out = Value::Null();
        return Status::OK();
      case Kind::kBoolean: {
        if (pos_ == end_) return Truncated();
        uint8_t b = *pos_++;
        if (b > 1) return Status::Invalid("Avro: bad boolean byte");
        *out = Value(b == 1);
        return Status::OK();
      }
      case Kind::kInt: {
        int32_t v;
        ARROW_RETURN_NOT_OK(ReadInt(&v));
        *out = Value(v);
        return Status::OK();
      }
      case Kind::kLong: {
        int64_t v;
        ARROW_RETURN_NOT_OK(ReadLong(&v));
        *out = Value(v);
        return Status::OK();
      }
      case Kind::kFloat: {
        if (remaining() < 4) return Truncated();
        float v;
        std::memcpy(&v, pos_, 4);
        pos_ += 4;
        *out = Value(v);
        return Status::OK();
      }
      case Kind::kDouble: {
        if (remaining() < 8) return Truncated();
        double v;
        std::memcpy(&v, pos_, 8);
        pos_ += 8;
        *out = Value(v);
        return Status::OK();
      }
      case Kind::kBytes:
      case Kind::kString: {
        std::string s;
        ARROW_RETURN_NOT_OK(ReadBytes(&s));
        *out = Value(std::move(s));
        return Status::OK();
      }
      case Kind::kFixed: {
        std::string s;
        ARROW_RETURN_NOT_OK(ReadFixed(node.fixed_size, &s));
        *out = Value(std::move(s));
        return Status::OK();
      }
      case Kind::kEnum: {
        int32_t index;
        ARROW_RETURN_NOT_OK(ReadInt(&index));
        if (index < 0 || static_cast<size_t>(index) >= node.symbols.size()) {
          return Status::Invalid("Avro: enum index ", index, " out of range");
        }
        *out = Value(index);
        return Status::OK();
      }
      case Kind::kUnion: {
        int64_t branch;
        ARROW_RETURN_NOT_OK(ReadLong(&branch));
        if (branch < 0 || static_cast<uint64_t>(branch) >= node.children.size()) {
          return Status::Invalid("Avro: union branch ", branch, " out of range");
        }
        return Decode(*node.children[branch], out);
      }
      case Kind::kRecord: {
        Value::Record record;
        record.fields.resize(node.children.size());
        for (size_t i = 0; i < node.children.size(); ++i) {
          ARROW_RETURN_NOT_OK(Decode(*node.children[i], &record.fields[i]));
        }
        *out = Value(std::move(record));
        return Status::OK();
      }
      case Kind::kArray: {
        if (node.children.size() != 1) return Status::Invalid("Avro: array without item type");
        const Node& item = *node.children[0];
        Value::Array array;
        int64_t count;
        while (true) {
          ARROW_RETURN_NOT_OK(ReadBlockCount(item, &count));
          if (count == 0) break;
          if (min_sizes_->Of(item) > 0) array.items.reserve(array.items.size() + count);
          for (int64_t i = 0; i < count; ++i) {
            array.items.emplace_back();
            ARROW_RETURN_NOT_OK(Decode(item, &array.items.back()));
          }
        }
        *out = Value(std::move(array));
        return Status::OK();
      }
      case Kind::kMap: {
        if (node.children.size() != 1) return Status::Invalid("Avro: map without value type");
        const Node& item = *node.children[0];
        // A key is at least one byte, so an entry is never zero-width.
        Value::MapValue map;
        int64_t count;
        while (true) {
          ARROW_RETURN_NOT_OK(ReadLong(&count));
          if (count < 0) {
            if (count == std::numeric_limits<int64_t>::min()) {
              return Status::Invalid("Avro: bad count");
            }
            count = -count;
            int64_t byte_size;
            ARROW_RETURN_NOT_OK(ReadLong(&byte_size));
          }
          if (count == 0) break;
          if (count > remaining() / std::max<int64_t>(1, min_sizes_->Of(item) + 1)) {
            return Status::Invalid("Avro: map count ", count, " too large");
          }
          for (int64_t i = 0; i < count; ++i) {
            std::string key;
            ARROW_RETURN_NOT_OK(ReadBytes(&key));
            map.entries.emplace_back(std::move(key), Value());
            ARROW_RETURN_NOT_OK(Decode(item, &map.entries.back().second));
          }
        }
        *out = Value(std::move(map));
        return Status::OK();
      }
    }
    return Status::Invalid("Avro: unknown schema node");
  }

 private:
  const uint8_t* pos_;
  const uint8_t* end_;
  MinSizes* min_sizes_;
  int64_t* budget_;
};

// ---------------------------------------------------------------------------------------
// Binary encoding

void WriteLong(int64_t v, std::string* out) {
  uint64_t raw = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (raw >= 0x80) {
    out->push_back(static_cast<char>((raw & 0x7F) | 0x80));
    raw >>= 7;
  }
  out->push_back(static_cast<char>(raw));
}

void WriteBytes(std::string_view bytes, std::string* out) {
  WriteLong(static_cast<int64_t>(bytes.size()), out);
  out->append(bytes);
}

// How well `value` fits `node`: 2 exactly, 1 with a lossless/obvious conversion, 0 not.
int Fit(const Node& node, const Value& value) {
  const auto& s = value.storage();
  switch (node.kind) {
    case Kind::kNull:
      return value.is_null() ? 2 : 0;
    case Kind::kBoolean:
      return std::holds_alternative<bool>(s) ? 2 : 0;
    case Kind::kInt:
      return std::holds_alternative<int32_t>(s) ? 2 : 0;
    case Kind::kLong:
      return std::holds_alternative<int64_t>(s) ? 2 : std::holds_alternative<int32_t>(s) ? 1 : 0;
    case Kind::kFloat:
      return std::holds_alternative<float>(s) ? 2 : std::holds_alternative<double>(s) ? 1 : 0;
    case Kind::kDouble:
      return std::holds_alternative<double>(s) ? 2 : std::holds_alternative<float>(s) ? 1 : 0;
    case Kind::kBytes:
    case Kind::kString:
      return std::holds_alternative<std::string>(s) ? 2 : 0;
    case Kind::kFixed:
      return std::holds_alternative<std::string>(s) &&
                     std::get<std::string>(s).size() == static_cast<size_t>(node.fixed_size)
                 ? 2
                 : 0;
    case Kind::kEnum:
      return std::holds_alternative<int32_t>(s) || std::holds_alternative<std::string>(s) ? 1 : 0;
    case Kind::kRecord:
      return std::holds_alternative<Value::Record>(s) &&
                     std::get<Value::Record>(s).fields.size() == node.children.size()
                 ? 2
                 : 0;
    case Kind::kArray:
      return std::holds_alternative<Value::Array>(s) ? 2 : 0;
    case Kind::kMap:
      return std::holds_alternative<Value::MapValue>(s) ? 2 : 0;
    case Kind::kUnion:
      return 0;
  }
  return 0;
}

Status Mismatch(const Node& node, const char* what) {
  return Status::TypeError("Avro writer: value does not match schema ",
                           node.name.empty() ? "" : node.name + " ", "(", what, ")");
}

Status Encode(const Node& node, const Value& value, std::string* out) {
  const auto& s = value.storage();
  switch (node.kind) {
    case Kind::kNull:
      return value.is_null() ? Status::OK() : Mismatch(node, "null");
    case Kind::kBoolean:
      if (!std::holds_alternative<bool>(s)) return Mismatch(node, "boolean");
      out->push_back(std::get<bool>(s) ? 1 : 0);
      return Status::OK();
    case Kind::kInt:
    case Kind::kLong: {
      if (std::holds_alternative<int32_t>(s)) {
        WriteLong(std::get<int32_t>(s), out);
      } else if (std::holds_alternative<int64_t>(s)) {
        int64_t v = std::get<int64_t>(s);
        if (node.kind == Kind::kInt &&
            (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())) {
          return Mismatch(node, "int out of range");
        }
        WriteLong(v, out);
      } else {
        return Mismatch(node, "int/long");
      }
      return Status::OK();
    }
    case Kind::kFloat:
    case Kind::kDouble: {
      double v;
      if (std::holds_alternative<float>(s)) {
        v = std::get<float>(s);
      } else if (std::holds_alternative<double>(s)) {
        v = std::get<double>(s);
      } else {
        return Mismatch(node, "float/double");
      }
      if (node.kind == Kind::kFloat) {
        float f = static_cast<float>(v);
        out->append(reinterpret_cast<const char*>(&f), 4);
      } else {
        out->append(reinterpret_cast<const char*>(&v), 8);
      }
      return Status::OK();
    }
    case Kind::kBytes:
    case Kind::kString:
      if (!std::holds_alternative<std::string>(s)) return Mismatch(node, "bytes/string");
      WriteBytes(std::get<std::string>(s), out);
      return Status::OK();
    case Kind::kFixed:
      if (Fit(node, value) == 0) return Mismatch(node, "fixed");
      out->append(std::get<std::string>(s));
      return Status::OK();
    case Kind::kEnum: {
      int64_t index = -1;
      if (std::holds_alternative<int32_t>(s)) {
        index = std::get<int32_t>(s);
      } else if (std::holds_alternative<std::string>(s)) {
        auto it = std::find(node.symbols.begin(), node.symbols.end(), std::get<std::string>(s));
        if (it != node.symbols.end()) index = it - node.symbols.begin();
      }
      if (index < 0 || static_cast<size_t>(index) >= node.symbols.size()) {
        return Mismatch(node, "enum symbol");
      }
      WriteLong(index, out);
      return Status::OK();
    }
    case Kind::kUnion: {
      int best = 0;
      size_t best_branch = 0;
      for (size_t i = 0; i < node.children.size(); ++i) {
        int fit = Fit(*node.children[i], value);
        if (fit > best) {
          best = fit;
          best_branch = i;
        }
      }
      if (best == 0) return Mismatch(node, "no union branch fits");
      WriteLong(static_cast<int64_t>(best_branch), out);
      return Encode(*node.children[best_branch], value, out);
    }
    case Kind::kRecord: {
      if (Fit(node, value) == 0) return Mismatch(node, "record arity");
      const auto& fields = std::get<Value::Record>(s).fields;
      for (size_t i = 0; i < fields.size(); ++i) {
        Status st = Encode(*node.children[i], fields[i], out);
        if (!st.ok()) return st.WithMessage(st.message(), " in field ", node.field_names[i]);
      }
      return Status::OK();
    }
    case Kind::kArray: {
      if (!std::holds_alternative<Value::Array>(s)) return Mismatch(node, "array");
      const auto& items = std::get<Value::Array>(s).items;
      if (!items.empty()) {
        WriteLong(static_cast<int64_t>(items.size()), out);
        for (const Value& item : items) ARROW_RETURN_NOT_OK(Encode(*node.children[0], item, out));
      }
      WriteLong(0, out);
      return Status::OK();
    }
    case Kind::kMap: {
      if (!std::holds_alternative<Value::MapValue>(s)) return Mismatch(node, "map");
      const auto& entries = std::get<Value::MapValue>(s).entries;
      if (!entries.empty()) {
        WriteLong(static_cast<int64_t>(entries.size()), out);
        for (const auto& [key, item] : entries) {
          WriteBytes(key, out);
          ARROW_RETURN_NOT_OK(Encode(*node.children[0], item, out));
        }
      }
      WriteLong(0, out);
      return Status::OK();
    }
  }
  return Mismatch(node, "unknown node");
}

// ---------------------------------------------------------------------------------------
// Block codecs

Result<std::unique_ptr<arrow::util::Codec>> MakeArrowCodec(const std::string& codec, int level) {
  using arrow::Compression;
  using arrow::util::Codec;
  int arrow_level = level > 0 ? level : arrow::util::kUseDefaultCompressionLevel;
  if (codec == "null") return nullptr;
  if (codec == "deflate") {
    // Avro's deflate is raw RFC 1951 data, without a zlib or gzip wrapper.
    arrow::util::GZipCodecOptions options;
    options.gzip_format = arrow::util::GZipFormat::DEFLATE;
    options.compression_level = arrow_level;
    return Codec::Create(Compression::GZIP, options);
  }
  if (codec == "zstandard") return Codec::Create(Compression::ZSTD, arrow_level);
  if (codec == "snappy") return Codec::Create(Compression::SNAPPY);
  return Status::NotImplemented("Avro codec '", codec, "' is not supported");
}

// Streams through a compressed block. Java writes zstd frames without a content size, so the
// output size is only known at the end; the buffer grows up to kMaxBlockBytes.
Result<std::shared_ptr<arrow::Buffer>> StreamDecompress(arrow::util::Codec* codec,
                                                        const uint8_t* in, int64_t in_len,
                                                        bool multiple_frames) {
  if (in_len == 0) return std::make_shared<arrow::Buffer>(nullptr, 0);
  ARROW_ASSIGN_OR_RAISE(auto decompressor, codec->MakeDecompressor());
  int64_t capacity = std::clamp<int64_t>(in_len * 4, 4096, kMaxBlockBytes);
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::ResizableBuffer> out,
                        arrow::AllocateResizableBuffer(capacity));
  int64_t out_len = 0;
  while (true) {
    if (decompressor->IsFinished()) {
      // Trailing bytes after a deflate stream are ignored; zstd may concatenate frames.
      if (in_len == 0 || !multiple_frames) break;
      ARROW_RETURN_NOT_OK(decompressor->Reset());
    }
    if (out_len == capacity) {
      if (capacity >= kMaxBlockBytes) return Status::Invalid("Avro: block decompresses too large");
      capacity = std::min(capacity * 2, kMaxBlockBytes);
      ARROW_RETURN_NOT_OK(out->Resize(capacity, /*shrink_to_fit=*/false));
    }
    if (in_len == 0) return Status::Invalid("Avro: truncated compressed block");
    ARROW_ASSIGN_OR_RAISE(auto step, decompressor->Decompress(in_len, in, capacity - out_len,
                                                              out->mutable_data() + out_len));
    in += step.bytes_read;
    in_len -= step.bytes_read;
    out_len += step.bytes_written;
    if (step.bytes_read == 0 && step.bytes_written == 0 && out_len < capacity) {
      return Status::Invalid("Avro: corrupt compressed block");
    }
  }
  ARROW_RETURN_NOT_OK(out->Resize(out_len));
  return out;
}

Result<std::shared_ptr<arrow::Buffer>> SnappyDecompress(arrow::util::Codec* codec,
                                                        const uint8_t* in, int64_t in_len) {
  // Avro's snappy block: raw snappy data, then a big-endian CRC32 of the uncompressed bytes.
  if (in_len < 4) return Status::Invalid("Avro: snappy block too short");
  int64_t body_len = in_len - 4;
  uint64_t expected_len = 0;
  int i = 0;
  for (;; ++i) {
    if (i >= body_len || i >= 5) return Status::Invalid("Avro: bad snappy length");
    expected_len |= static_cast<uint64_t>(in[i] & 0x7F) << (7 * i);
    if ((in[i] & 0x80) == 0) break;
  }
  // A snappy element expands at most ~21x (3-byte copy of 64 bytes); larger claims are corrupt.
  if (expected_len > static_cast<uint64_t>(body_len) * 24 + 64 ||
      expected_len > static_cast<uint64_t>(kMaxBlockBytes)) {
    return Status::Invalid("Avro: implausible snappy length ", expected_len);
  }
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::ResizableBuffer> out,
                        arrow::AllocateResizableBuffer(static_cast<int64_t>(expected_len)));
  ARROW_ASSIGN_OR_RAISE(
      int64_t n,
      codec->Decompress(body_len, in, static_cast<int64_t>(expected_len), out->mutable_data()));
  if (static_cast<uint64_t>(n) != expected_len) {
    return Status::Invalid("Avro: snappy length mismatch");
  }
  const uint8_t* crc = in + body_len;
  uint32_t stored = (uint32_t{crc[0]} << 24) | (uint32_t{crc[1]} << 16) | (uint32_t{crc[2]} << 8) |
                    uint32_t{crc[3]};
  if (arrow::internal::crc32(0, out->data(), static_cast<size_t>(n)) != stored) {
    return Status::Invalid("Avro: snappy block checksum mismatch");
  }
  return out;
}

Result<std::string> CompressBlock(const std::string& codec_name, arrow::util::Codec* codec,
                                  const std::string& raw) {
  if (codec == nullptr) return raw;
  const auto* in = reinterpret_cast<const uint8_t*>(raw.data());
  int64_t in_len = static_cast<int64_t>(raw.size());
  std::string out(static_cast<size_t>(codec->MaxCompressedLen(in_len, in)) + 4, '\0');
  ARROW_ASSIGN_OR_RAISE(int64_t n, codec->Compress(in_len, in, static_cast<int64_t>(out.size()),
                                                   reinterpret_cast<uint8_t*>(out.data())));
  out.resize(static_cast<size_t>(n));
  if (codec_name == "snappy") {
    uint32_t crc = arrow::internal::crc32(0, raw.data(), raw.size());
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(crc >> shift));
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// FileReader

struct FileReader::Impl {
  std::shared_ptr<arrow::Buffer> data;
  const uint8_t* pos = nullptr;
  const uint8_t* end = nullptr;
  NodePtr schema;
  std::map<std::string, std::string> metadata;
  std::string codec_name;
  std::unique_ptr<arrow::util::Codec> codec;
  uint8_t sync[kSyncSize];
  MinSizes min_sizes;

  std::shared_ptr<arrow::Buffer> block;  // decompressed bytes of the current block
  std::unique_ptr<Decoder> block_decoder;
  int64_t block_records_left = 0;
  int64_t zero_width_budget = 0;
  Status failed;  // sticky: a reader that hit corruption stays failed

  Status ReadHeader() {
    if (end - pos < 4 || std::memcmp(pos, kMagic, 4) != 0) {
      return Status::Invalid("Not an Avro object container file (bad magic)");
    }
    pos += 4;
    int64_t budget = 0;
    Decoder header(pos, end - pos, &min_sizes, &budget);
    while (true) {
      int64_t count;
      ARROW_RETURN_NOT_OK(header.ReadLong(&count));
      if (count == 0) break;
      if (count < 0) {
        if (count == std::numeric_limits<int64_t>::min()) {
          return Status::Invalid("Avro: bad header");
        }
        count = -count;
        int64_t byte_size;
        ARROW_RETURN_NOT_OK(header.ReadLong(&byte_size));
      }
      if (count > header.remaining() / 2) return Status::Invalid("Avro: bad header map count");
      for (int64_t i = 0; i < count; ++i) {
        std::string key, value;
        ARROW_RETURN_NOT_OK(header.ReadBytes(&key));
        ARROW_RETURN_NOT_OK(header.ReadBytes(&value));
        metadata[std::move(key)] = std::move(value);
      }
    }
    pos = end - header.remaining();
    if (end - pos < kSyncSize) return Truncated();
    std::memcpy(sync, pos, kSyncSize);
    pos += kSyncSize;

    auto schema_it = metadata.find("avro.schema");
    if (schema_it == metadata.end()) return Status::Invalid("Avro header without avro.schema");
    ARROW_ASSIGN_OR_RAISE(schema, ParseSchema(schema_it->second));
    auto codec_it = metadata.find("avro.codec");
    codec_name = codec_it == metadata.end() || codec_it->second.empty() ? "null" : codec_it->second;
    ARROW_ASSIGN_OR_RAISE(codec, MakeArrowCodec(codec_name, /*level=*/0));
    return Status::OK();
  }

  Status LoadBlock() {
    int64_t budget = 0;
    Decoder framing(pos, end - pos, &min_sizes, &budget);
    int64_t count, size;
    ARROW_RETURN_NOT_OK(framing.ReadLong(&count));
    ARROW_RETURN_NOT_OK(framing.ReadLong(&size));
    if (count < 0) return Status::Invalid("Avro: negative block count");
    if (size < 0 || size > framing.remaining() - kSyncSize) {
      return Status::Invalid("Avro: block size ", size, " exceeds the file");
    }
    const uint8_t* payload = end - framing.remaining();
    if (std::memcmp(payload + size, sync, kSyncSize) != 0) {
      return Status::Invalid("Avro: sync marker mismatch");
    }
    pos = payload + size + kSyncSize;

    if (codec == nullptr) {
      block = arrow::SliceBuffer(data, payload - data->data(), size);
    } else if (codec_name == "snappy") {
      ARROW_ASSIGN_OR_RAISE(block, SnappyDecompress(codec.get(), payload, size));
    } else {
      ARROW_ASSIGN_OR_RAISE(block, StreamDecompress(codec.get(), payload, size,
                                                    /*multiple_frames=*/codec_name == "zstandard"));
    }
    zero_width_budget = kMaxZeroWidthItems;
    block_decoder =
        std::make_unique<Decoder>(block->data(), block->size(), &min_sizes, &zero_width_budget);
    ARROW_RETURN_NOT_OK(block_decoder->CheckCount(count, *schema));
    block_records_left = count;
    return Status::OK();
  }

  Result<bool> Next(Value* out) {
    while (block_records_left == 0) {
      if (pos == end) return false;
      ARROW_RETURN_NOT_OK(LoadBlock());
    }
    ARROW_RETURN_NOT_OK(block_decoder->Decode(*schema, out));
    if (--block_records_left == 0 && block_decoder->remaining() != 0) {
      return Status::Invalid("Avro: ", block_decoder->remaining(), " stray bytes after a block");
    }
    return true;
  }
};

FileReader::FileReader() : impl_(std::make_unique<Impl>()) {}
FileReader::~FileReader() = default;

Result<std::unique_ptr<FileReader>> FileReader::Open(std::shared_ptr<arrow::Buffer> data) {
  if (data == nullptr) return Status::Invalid("Avro: null buffer");
  std::unique_ptr<FileReader> reader(new FileReader());
  Impl& impl = *reader->impl_;
  impl.data = std::move(data);
  impl.pos = impl.data->data();
  impl.end = impl.pos + impl.data->size();
  ARROW_RETURN_NOT_OK(impl.ReadHeader());
  return reader;
}

const NodePtr& FileReader::schema() const { return impl_->schema; }
const std::map<std::string, std::string>& FileReader::metadata() const { return impl_->metadata; }
const std::string& FileReader::codec() const { return impl_->codec_name; }

Result<bool> FileReader::Next(Value* out) {
  ARROW_RETURN_NOT_OK(impl_->failed);
  Result<bool> more = impl_->Next(out);
  if (!more.ok()) impl_->failed = more.status();
  return more;
}

Result<std::vector<Value>> FileReader::ReadAll() {
  std::vector<Value> values;
  while (true) {
    Value value;
    ARROW_ASSIGN_OR_RAISE(bool more, Next(&value));
    if (!more) break;
    values.push_back(std::move(value));
  }
  return values;
}

// ---------------------------------------------------------------------------------------
// FileWriter

struct FileWriter::Impl {
  NodePtr schema;
  std::string codec_name;
  std::unique_ptr<arrow::util::Codec> codec;
  std::string sync;
  std::string out;
  std::string block;
  int64_t block_records = 0;
  bool finished = false;

  Status FlushBlock() {
    if (block_records == 0) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(std::string payload, CompressBlock(codec_name, codec.get(), block));
    WriteLong(block_records, &out);
    WriteLong(static_cast<int64_t>(payload.size()), &out);
    out += payload;
    out += sync;
    block.clear();
    block_records = 0;
    return Status::OK();
  }
};

FileWriter::FileWriter() : impl_(std::make_unique<Impl>()) {}
FileWriter::~FileWriter() = default;

Result<std::unique_ptr<FileWriter>> FileWriter::Make(std::string_view schema_json,
                                                     std::string codec, int level) {
  std::unique_ptr<FileWriter> writer(new FileWriter());
  Impl& impl = *writer->impl_;
  ARROW_ASSIGN_OR_RAISE(impl.schema, ParseSchema(schema_json));
  ARROW_ASSIGN_OR_RAISE(impl.codec, MakeArrowCodec(codec, level));
  impl.codec_name = std::move(codec);

  // The sync marker only has to be unlikely to occur in the data; it need not be secret.
  std::random_device seed;
  std::mt19937_64 rng((uint64_t{seed()} << 32) ^ seed());
  impl.sync.resize(kSyncSize);
  for (int i = 0; i < kSyncSize; i += 8) {
    uint64_t word = rng();
    std::memcpy(impl.sync.data() + i, &word, 8);
  }

  impl.out.append(kMagic, 4);
  WriteLong(2, &impl.out);
  WriteBytes("avro.schema", &impl.out);
  WriteBytes(schema_json, &impl.out);
  WriteBytes("avro.codec", &impl.out);
  WriteBytes(impl.codec_name, &impl.out);
  WriteLong(0, &impl.out);
  impl.out += impl.sync;
  return writer;
}

Status FileWriter::Append(const Value& record) {
  Impl& impl = *impl_;
  if (impl.finished) return Status::Invalid("Avro writer already finished");
  size_t mark = impl.block.size();
  Status st = Encode(*impl.schema, record, &impl.block);
  if (!st.ok()) {
    impl.block.resize(mark);  // drop the partial record, keep the file consistent
    return st;
  }
  ++impl.block_records;
  if (impl.block.size() >= kWriterBlockBytes || impl.block_records >= kWriterBlockRecords) {
    return impl.FlushBlock();
  }
  return Status::OK();
}

Result<std::shared_ptr<arrow::Buffer>> FileWriter::Finish() {
  Impl& impl = *impl_;
  if (impl.finished) return Status::Invalid("Avro writer already finished");
  ARROW_RETURN_NOT_OK(impl.FlushBlock());
  impl.finished = true;
  return arrow::Buffer::FromString(std::move(impl.out));
}

}  // namespace paimon_rowid::avro
