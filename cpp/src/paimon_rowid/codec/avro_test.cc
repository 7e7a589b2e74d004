#include "paimon_rowid/codec/avro.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <sstream>

#include "arrow/util/compression.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid::avro {
namespace {

// A readable rendering used to compare decoded values.
std::string Show(const Value& v) {
  std::ostringstream os;
  const auto& s = v.storage();
  if (v.is_null()) {
    os << "null";
  } else if (auto* b = std::get_if<bool>(&s)) {
    os << (*b ? "true" : "false");
  } else if (auto* i = std::get_if<int32_t>(&s)) {
    os << "i" << *i;
  } else if (auto* l = std::get_if<int64_t>(&s)) {
    os << "l" << *l;
  } else if (auto* f = std::get_if<float>(&s)) {
    os << "f" << *f;
  } else if (auto* d = std::get_if<double>(&s)) {
    os << "d" << *d;
  } else if (auto* str = std::get_if<std::string>(&s)) {
    os << '"' << *str << '"';
  } else if (auto* r = std::get_if<Value::Record>(&s)) {
    os << "{";
    for (const auto& f : r->fields) os << Show(f) << ",";
    os << "}";
  } else if (auto* a = std::get_if<Value::Array>(&s)) {
    os << "[";
    for (const auto& item : a->items) os << Show(item) << ",";
    os << "]";
  } else if (auto* m = std::get_if<Value::MapValue>(&s)) {
    os << "<";
    for (const auto& [k, item] : m->entries) os << k << ":" << Show(item) << ",";
    os << ">";
  }
  return os.str();
}

constexpr const char* kRichSchema = R"({
  "type": "record", "name": "Rich", "namespace": "test.ns",
  "fields": [
    {"name": "b", "type": "boolean"},
    {"name": "i", "type": "int"},
    {"name": "l", "type": "long"},
    {"name": "f", "type": "float"},
    {"name": "d", "type": "double"},
    {"name": "s", "type": "string"},
    {"name": "raw", "type": "bytes"},
    {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN"]}},
    {"name": "md5", "type": {"type": "fixed", "name": "Md5", "size": 4}},
    {"name": "point", "type": {"type": "record", "name": "Point",
                               "fields": [{"name": "x", "type": "long"}]}},
    {"name": "other_point", "type": "Point"},
    {"name": "full_ref", "type": ["null", "test.ns.Point"], "default": null},
    {"name": "opt", "type": ["null", "string"], "default": null},
    {"name": "tags", "type": {"type": "array", "items": ["null", "long"]}},
    {"name": "props", "type": {"type": "map", "values": "Color"}},
    {"name": "multi", "type": ["null", "int", "string", "double"]}
  ]})";

Value RichRecord(int n) {
  Value::Array tags;
  for (int k = 0; k < n % 5; ++k) {
    tags.items.push_back(k % 2 ? Value::Null() : Value(int64_t{k} * int64_t{1000000007}));
  }
  Value::MapValue props;
  for (int k = 0; k < n % 3; ++k) {
    props.entries.emplace_back("key" + std::to_string(k), Value(k % 2));
  }
  Value multi = n % 4 == 0   ? Value::Null()
                : n % 4 == 1 ? Value(int32_t{n})
                : n % 4 == 2 ? Value("s" + std::to_string(n))
                             : Value(n * 0.5);
  return Value(Value::Record{{
      Value(n % 2 == 0),
      Value(int32_t{-n}),
      Value(int64_t{n} << 33),
      Value(static_cast<float>(n) / 4),
      Value(static_cast<double>(n) / 3),
      Value("string value " + std::to_string(n)),
      Value(std::string("\0\x01\xff", 3)),
      Value(int64_t{1715644800000} + n),
      Value(int32_t{n % 2}),
      Value(std::string("abcd")),
      Value(Value::Record{{Value(int64_t{n})}}),
      Value(Value::Record{{Value(int64_t{-n})}}),
      n % 3 ? Value(Value::Record{{Value(int64_t{7})}}) : Value::Null(),
      n % 2 ? Value("opt") : Value::Null(),
      Value(std::move(tags)),
      Value(std::move(props)),
      multi,
  }});
}

std::shared_ptr<arrow::Buffer> WriteFile(const std::string& schema, const std::string& codec,
                                         const std::vector<Value>& records) {
  auto writer = FileWriter::Make(schema, codec);
  EXPECT_OK(writer);
  for (const auto& r : records) {
    Status st = (*writer)->Append(r);
    EXPECT_OK(st);
  }
  auto buffer = (*writer)->Finish();
  EXPECT_OK(buffer);
  return *buffer;
}

// Reads a whole buffer; never expected to crash, whatever the bytes.
Result<std::vector<Value>> ReadFile(std::shared_ptr<arrow::Buffer> data) {
  ARROW_ASSIGN_OR_RAISE(auto reader, FileReader::Open(std::move(data)));
  return reader->ReadAll();
}

class AvroCodecTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AvroCodecTest, RoundTripManyBlocks) {
  std::vector<Value> records;
  for (int n = 0; n < 9000; ++n) records.push_back(RichRecord(n));
  auto data = WriteFile(kRichSchema, GetParam(), records);
  auto reader = FileReader::Open(data);
  ASSERT_OK(reader);
  EXPECT_EQ((*reader)->codec(), GetParam());
  EXPECT_EQ((*reader)->metadata().at("avro.codec"), GetParam());
  EXPECT_EQ((*reader)->schema()->kind, Node::Kind::kRecord);
  EXPECT_EQ((*reader)->schema()->name, "test.ns.Rich");
  EXPECT_EQ((*reader)->schema()->children[7]->logical_type, "timestamp-millis");
  // The second reference to Point is the same node as its definition.
  EXPECT_EQ((*reader)->schema()->children[10], (*reader)->schema()->children[11]);
  auto read = (*reader)->ReadAll();
  ASSERT_OK(read);
  ASSERT_EQ(read->size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    ASSERT_EQ(Show((*read)[i]), Show(records[i])) << "record " << i;
  }
  // Reading past the end keeps reporting the end.
  Value extra;
  EXPECT_FALSE(*(*reader)->Next(&extra));
}

TEST_P(AvroCodecTest, EmptyFileHasOnlyAHeader) {
  auto data = WriteFile(kRichSchema, GetParam(), {});
  auto read = ReadFile(data);
  ASSERT_OK(read);
  EXPECT_TRUE(read->empty());
}

// Cuts the file at every length and flips every bit: reading must fail or succeed cleanly.
TEST_P(AvroCodecTest, TruncationAndBitFlipsNeverCrash) {
  std::vector<Value> records;
  for (int n = 0; n < 6; ++n) records.push_back(RichRecord(n));
  auto data = WriteFile(kRichSchema, GetParam(), records);
  std::string bytes = data->ToString();
  for (size_t len = 0; len < bytes.size(); ++len) {
    auto read = ReadFile(arrow::Buffer::FromString(bytes.substr(0, len)));
    // A cut right after the header is a valid empty file; any other cut lands inside the
    // only block and must be an error.
    if (read.ok()) EXPECT_TRUE(read->empty()) << "prefix " << len;
  }
  int decoded_ok = 0;
  for (size_t bit = 0; bit < bytes.size() * 8; ++bit) {
    std::string flipped = bytes;
    flipped[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    auto read = ReadFile(arrow::Buffer::FromString(std::move(flipped)));
    if (read.ok()) ++decoded_ok;
  }
  SUCCEED() << decoded_ok << " bit flips still decoded";
}

// Several random byte overwrites at once reach states single bit flips do not (e.g. a
// plausible-looking length next to a corrupt payload).
TEST_P(AvroCodecTest, RandomCorruptionNeverCrashes) {
  std::vector<Value> records;
  for (int n = 0; n < 40; ++n) records.push_back(RichRecord(n));
  std::string bytes = WriteFile(kRichSchema, GetParam(), records)->ToString();
  std::mt19937 rng(20240514);
  for (int round = 0; round < 400; ++round) {
    std::string corrupt = bytes;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits; ++k) corrupt[rng() % corrupt.size()] = static_cast<char>(rng());
    (void)ReadFile(arrow::Buffer::FromString(std::move(corrupt)));
  }
}

// Readers on one thread share a decompressor per codec type and a parsed schema per schema
// text: a read that failed half-way through a block must not leak into the next reader.
TEST_P(AvroCodecTest, ReadsAfterCorruptOnesOnTheSameThreadAreExact) {
  std::vector<Value> records;
  for (int n = 0; n < 300; ++n) records.push_back(RichRecord(n));
  auto good = WriteFile(kRichSchema, GetParam(), records);
  auto other = WriteFile(kRichSchema, GetParam() == "zstandard" ? "deflate" : "zstandard", records);
  const std::string bytes = good->ToString();
  std::mt19937 rng(7);
  for (int round = 0; round < 30; ++round) {
    std::string corrupt = bytes;
    // Damage the block's second half: decompression starts, then fails or yields garbage.
    size_t at = bytes.size() / 2 + rng() % (bytes.size() / 2 - 20);
    for (int k = 0; k < 4; ++k) corrupt[at + k] = static_cast<char>(rng());
    (void)ReadFile(arrow::Buffer::FromString(std::move(corrupt)));
    for (const auto& data : {good, other}) {
      auto read = ReadFile(data);
      ASSERT_OK(read);
      ASSERT_EQ(read->size(), records.size());
      for (size_t i = 0; i < records.size(); i += 37) {
        ASSERT_EQ(Show((*read)[i]), Show(records[i])) << "round " << round << " record " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Codecs, AvroCodecTest,
                         ::testing::Values("null", "deflate", "snappy", "zstandard"));

// ---- hand-built containers

void PutLong(int64_t v, std::string* out) {
  uint64_t raw = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (raw >= 0x80) {
    out->push_back(static_cast<char>((raw & 0x7F) | 0x80));
    raw >>= 7;
  }
  out->push_back(static_cast<char>(raw));
}

void PutBytes(const std::string& s, std::string* out) {
  PutLong(static_cast<int64_t>(s.size()), out);
  *out += s;
}

const std::string kSync = "0123456789abcdef";

std::string Header(const std::string& schema, const std::string& codec) {
  std::string out("Obj\x01", 4);
  PutLong(2, &out);
  PutBytes("avro.schema", &out);
  PutBytes(schema, &out);
  PutBytes("avro.codec", &out);
  PutBytes(codec, &out);
  PutLong(0, &out);
  return out + kSync;
}

std::string Block(int64_t count, const std::string& payload) {
  std::string out;
  PutLong(count, &out);
  PutLong(static_cast<int64_t>(payload.size()), &out);
  return out + payload + kSync;
}

// Java's zstd output stream writes frames without a content size; Arrow's streaming
// compressor does the same, so the reader must not rely on it.
std::string StreamingZstd(const std::string& raw) {
  auto codec = *arrow::util::Codec::Create(arrow::Compression::ZSTD);
  auto compressor = *codec->MakeCompressor();
  std::string out(raw.size() + 1024, '\0');
  auto* dst = reinterpret_cast<uint8_t*>(out.data());
  auto step = *compressor->Compress(static_cast<int64_t>(raw.size()),
                                    reinterpret_cast<const uint8_t*>(raw.data()),
                                    static_cast<int64_t>(out.size()), dst);
  EXPECT_EQ(step.bytes_read, static_cast<int64_t>(raw.size()));
  auto end = *compressor->End(static_cast<int64_t>(out.size()) - step.bytes_written,
                              dst + step.bytes_written);
  EXPECT_FALSE(end.should_retry);
  out.resize(static_cast<size_t>(step.bytes_written + end.bytes_written));
  // Frame header descriptor: no content-size field, not single-segment.
  EXPECT_EQ(static_cast<uint8_t>(out[4]) & 0xE0, 0);
  return out;
}

TEST(AvroReaderTest, ZstdFramesWithoutContentSize) {
  // 200 KiB of longs, larger than the reader's first output guess.
  std::string raw;
  for (int i = 0; i < 50000; ++i) PutLong(i * int64_t{7919}, &raw);
  // A second block made of two concatenated frames.
  std::string first, second;
  PutLong(0, &first);
  PutLong(7919, &second);
  std::string file = Header(R"("long")", "zstandard") + Block(50000, StreamingZstd(raw)) +
                     Block(2, StreamingZstd(first) + StreamingZstd(second));
  auto read = ReadFile(arrow::Buffer::FromString(file));
  ASSERT_OK(read);
  ASSERT_EQ(read->size(), 50002u);
  EXPECT_EQ(*(*read)[49999].AsLong(), 49999 * int64_t{7919});
  EXPECT_EQ(*(*read)[50001].AsLong(), int64_t{7919});
}

TEST(AvroReaderTest, RejectsAbsurdCountsAndSizes) {
  std::string schema = R"({"type":"record","name":"r","fields":[{"name":"a","type":"long"}]})";
  std::string raw;
  PutLong(1, &raw);
  std::vector<std::string> bad = {
      Header(schema, "null") + Block(int64_t{1} << 60, raw),  // more records than bytes
      Header(schema, "null") + Block(-1, raw),                // negative count
      Header(schema, "lz4") + Block(1, raw),                  // unsupported codec
      Header(schema, "null") + Block(2, raw),                 // fewer bytes than records
      Header(schema, "null") + Block(1, raw + "x"),           // stray bytes in the block
      Header("{not json", "null"),
      Header(R"({"type":"record","name":"r","fields":[{"name":"a","type":"r"}]})", "null"),
      Header(R"({"type":"enum","name":"e","symbols":["A"]})", "null") + Block(1, "\x02"),
      std::string("Obj\x01", 4) + "\xff\xff\xff\xff\xff\xff\xff\xff\x7f",  // huge metadata map
  };
  {
    std::string file = Header(schema, "null") + Block(1, raw);
    file.back() ^= 1;  // sync marker mismatch
    bad.push_back(file);
  }
  {
    // An array of nulls claiming 2^40 zero-width items.
    std::string payload;
    PutLong(int64_t{1} << 40, &payload);
    bad.push_back(Header(R"({"type":"array","items":"null"})", "null") + Block(1, payload));
  }
  {
    // A string longer than the block.
    std::string payload;
    PutLong(int64_t{1} << 50, &payload);
    bad.push_back(Header(R"("string")", "null") + Block(1, payload));
  }
  {
    // A snappy block claiming a 4 GiB output.
    std::string payload("\xff\xff\xff\xff\x0f\x00", 6);
    bad.push_back(Header(R"("long")", "snappy") + Block(1, payload + std::string(4, '\0')));
  }
  for (size_t i = 0; i < bad.size(); ++i) {
    auto read = ReadFile(arrow::Buffer::FromString(bad[i]));
    EXPECT_FALSE(read.ok()) << "case " << i;
  }
}

// A block holds at least one whole record, and a manifest entry with full value stats of a
// 140 MB string is one ~280 MB record (pypaimon's `full` mode; our writer before
// truncate(16)). Such blocks, past the old 256 MiB cap, must read; Java-style zstd frames
// (no content size) and snappy (length announced up front) take different paths.
TEST(AvroReaderTest, ReadsBlocksOfHugeRecords) {
  const std::string value(280'000'000, 'v');
  {
    std::string raw;
    PutBytes(value, &raw);
    std::string file = Header(R"("bytes")", "zstandard") + Block(1, StreamingZstd(raw));
    raw = std::string();
    auto read = ReadFile(arrow::Buffer::FromString(std::move(file)));
    ASSERT_OK(read);
    ASSERT_EQ(read->size(), 1u);
    EXPECT_TRUE(*(*read)[0].AsBytes() == value);
  }
  auto snappy = WriteFile(R"("bytes")", "snappy", {Value(value)});
  auto read = ReadFile(snappy);
  ASSERT_OK(read);
  ASSERT_EQ(read->size(), 1u);
  EXPECT_TRUE(*(*read)[0].AsBytes() == value);
}

TEST(AvroSchemaTest, ParsesNamesAndRejectsBadSchemas) {
  auto node = ParseSchema(kRichSchema);
  ASSERT_OK(node);
  EXPECT_EQ((*node)->FieldIndex("color"), 8);
  EXPECT_EQ((*node)->FieldIndex("nope"), -1);
  EXPECT_EQ((*node)->children[8]->symbols.size(), 2u);
  EXPECT_EQ((*node)->children[9]->fixed_size, 4);
  EXPECT_EQ((*node)->children[12]->children[1]->name, "test.ns.Point");
  for (const char* bad : {"", "[]", "{}", R"({"type":"unknown_type"})", R"({"type":"array"})",
                          R"({"type":"fixed","name":"f"})", R"(["null",["int"]])",
                          R"({"type":"record","name":"a","fields":[{"name":"x"}]})"}) {
    EXPECT_FALSE(ParseSchema(bad).ok()) << bad;
  }
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += R"({"type":"array","items":)";
  deep += R"("int")";
  for (int i = 0; i < 200; ++i) deep += "}";
  EXPECT_FALSE(ParseSchema(deep).ok());
}

TEST(AvroWriterTest, RejectsValuesThatDoNotMatch) {
  auto writer = *FileWriter::Make(
      R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"},
          {"name":"b","type":["null","string"]}]})",
      "null");
  EXPECT_FALSE(writer->Append(Value(Value::Record{{Value("x"), Value::Null()}})).ok());
  EXPECT_FALSE(writer->Append(Value(Value::Record{{Value(int32_t{1})}})).ok());
  EXPECT_FALSE(writer->Append(Value(Value::Record{{Value(int32_t{1}), Value(int64_t{2})}})).ok());
  ASSERT_OK(writer->Append(Value(Value::Record{{Value(int32_t{1}), Value("b")}})));
  auto read = ReadFile(*writer->Finish());
  ASSERT_OK(read);
  ASSERT_EQ(read->size(), 1u);  // failed appends left nothing behind
  EXPECT_EQ(Show((*read)[0]), R"({i1,"b",})");
  EXPECT_FALSE(FileWriter::Make(R"("int")", "lz4").ok());
}

TEST(AvroValueTest, TypedAccessorsReportTypeErrors) {
  EXPECT_EQ(*Value(int32_t{3}).AsLong(), 3);
  EXPECT_EQ(*Value(1.5f).AsDouble(), 1.5);
  EXPECT_RAISES(TypeError, Value::Null().AsLong());
  EXPECT_RAISES(TypeError, Value("x").AsInt());
  EXPECT_EQ(*Value("x").AsBytes(), "x");
  EXPECT_RAISES(TypeError, Value(true).AsRecord());
}

}  // namespace
}  // namespace paimon_rowid::avro
