// The Avro object container writer (FileWriter) and the binary encoding of values against
// a schema (with the union branch chosen by how well a value fits).
#include <cstring>

#include "paimon_rowid/codec/avro.h"
#include "paimon_rowid/codec/avro_internal.h"
#include "paimon_rowid/common/identifier.h"

namespace paimon_rowid::avro {

namespace {

using Kind = Node::Kind;
using internal::CompressBlock;
using internal::kMagic;
using internal::kSyncSize;
using internal::MakeArrowCodec;

// Writer block size: Java's default sync interval.
constexpr size_t kWriterBlockBytes = 64000;
constexpr int64_t kWriterBlockRecords = 4096;

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

}  // namespace

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
  // Opening std::random_device per file cost more than encoding a small manifest.
  impl.sync.resize(kSyncSize);
  for (int i = 0; i < kSyncSize; i += 8) {
    uint64_t word = RandomU64();
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
