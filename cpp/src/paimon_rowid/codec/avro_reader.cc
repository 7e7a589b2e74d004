// The Avro object container reader (FileReader): header, block framing and the binary
// decoding of values against a schema, with bounds that keep hostile input from allocating
// more than it holds. Schema parsing is in avro_schema.cc, the writer in avro_writer.cc.
#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <unordered_map>

#include "paimon_rowid/codec/avro.h"
#include "paimon_rowid/codec/avro_internal.h"

namespace paimon_rowid::avro {

namespace {

using Kind = Node::Kind;
using internal::kMagic;
using internal::kMaxBlockBytes;
using internal::kSyncSize;
using internal::MakeArrowCodec;
using internal::SnappyDecompress;
using internal::StreamDecompress;

// Values that occupy zero bytes (null, empty records, fixed(0)) cannot be bounded by the
// remaining input, so each block gets a fixed allowance of them.
constexpr int64_t kMaxZeroWidthItems = int64_t{1} << 20;

Status Truncated() { return Status::Invalid("Avro: truncated data"); }

// The files of one table (manifests, manifest lists) share a handful of schema texts, and
// parsing one costs more than decoding a small manifest: each text is parsed once per
// process. Nodes are immutable, so readers on any thread share them.
Result<NodePtr> CachedSchema(const std::string& json) {
  constexpr size_t kMaxSchemas = 64;
  static std::mutex mutex;
  static auto* cache = new std::unordered_map<std::string, NodePtr>();
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache->find(json);
    if (it != cache->end()) return it->second;
  }
  ARROW_ASSIGN_OR_RAISE(NodePtr parsed, ParseSchema(json));
  std::lock_guard<std::mutex> lock(mutex);
  if (cache->size() >= kMaxSchemas) cache->clear();
  cache->emplace(json, parsed);
  return parsed;
}

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
    ARROW_ASSIGN_OR_RAISE(schema, CachedSchema(schema_it->second));
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

}  // namespace paimon_rowid::avro
