#include "paimon_rowid/codec/blob_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "arrow/buffer.h"
#include "arrow/io/memory.h"
#include "arrow/json/from_string.h"
#include "paimon_rowid/codec/blob_file_nested.h"
#include "paimon_rowid/codec/delta_varint.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

std::string WriteFile(const std::function<void(BlobFileWriter&)>& body) {
  auto sink = arrow::io::BufferOutputStream::Create().ValueOrDie();
  BlobFileWriter writer(sink);
  body(writer);
  EXPECT_OK(writer.Close());
  auto buffer = sink->Finish().ValueOrDie();
  return buffer->ToString();
}

std::string Payload(std::string_view file, const BlobEntry& e) {
  return std::string(file.substr(e.payload_offset, e.payload_length));
}

TEST(BlobFileTest, Crc32IsZlibs) {
  // The standard check value of CRC-32 (zlib's crc32(0, "123456789")).
  EXPECT_EQ(BlobCrc32(0, "123456789", 9), 0xCBF43926u);
}

TEST(BlobFileTest, EntryBytesAndJavaCrcRange) {
  std::string file = WriteFile([](BlobFileWriter& w) { ASSERT_OK(w.AddValue("hello")); });
  // magic, payload, recordLength = 4 + 5 + 8 + 4 = 21, crc; then index (zigzag(21) = 42),
  // index length 1, version 1.
  ASSERT_EQ(file.size(), 21u + 1 + 4 + 1);
  EXPECT_EQ(file.substr(0, 4), std::string("\xcf\x11\x4e\x58", 4));
  EXPECT_EQ(file.substr(4, 5), "hello");
  int64_t length;
  std::memcpy(&length, file.data() + 9, 8);
  EXPECT_EQ(length, 21);
  uint32_t crc;
  std::memcpy(&crc, file.data() + 17, 4);
  // zlib.crc32(magic + b"hello" + length bytes) computed with Python's zlib.
  EXPECT_EQ(crc, 0x51a7f6c8u);
  EXPECT_EQ(crc, BlobCrc32(0, file.data(), 17));
  EXPECT_EQ(file.substr(21), std::string("\x2a\x01\x00\x00\x00\x01", 6));
}

TEST(BlobFileTest, RoundTripNullsPlaceholdersEmptyAndLarge) {
  std::string big(3 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 31 + 7);
  std::string file = WriteFile([&](BlobFileWriter& w) {
    ASSERT_OK(w.AddValue("a"));
    w.AddNull();
    ASSERT_OK(w.AddValue(""));
    w.AddPlaceholder();
    ASSERT_OK(w.BeginValue());
    ASSERT_OK(w.AppendPayload(std::string_view(big).substr(0, 1000)));
    ASSERT_OK(w.AppendPayload(std::string_view(big).substr(1000)));
    ASSERT_OK(w.EndValue());
    EXPECT_EQ(w.row_count(), 5);
  });
  ASSERT_OK_AND_ASSIGN(auto index, BlobFileIndex::Parse(file, "mem.blob"));
  ASSERT_EQ(index->num_rows(), 5);
  EXPECT_EQ(index->entry(0).kind, BlobEntry::Kind::kValue);
  EXPECT_EQ(Payload(file, index->entry(0)), "a");
  EXPECT_EQ(index->entry(1).kind, BlobEntry::Kind::kNull);
  EXPECT_EQ(index->entry(2).kind, BlobEntry::Kind::kValue);
  EXPECT_EQ(index->entry(2).payload_length, 0);
  EXPECT_EQ(index->entry(3).kind, BlobEntry::Kind::kPlaceholder);
  EXPECT_EQ(Payload(file, index->entry(4)), big);

  // The ranged reader gives the same index (index beyond the 64 KiB probe too).
  auto input = std::make_shared<arrow::io::BufferReader>(arrow::Buffer::FromString(file));
  ASSERT_OK_AND_ASSIGN(auto ranged,
                       BlobFileIndex::Read(input.get(), static_cast<int64_t>(file.size()), "m"));
  EXPECT_EQ(ranged->entry(4).payload_offset, index->entry(4).payload_offset);
}

TEST(BlobFileTest, ManyRowsIndexLargerThanProbe) {
  std::string file = WriteFile([](BlobFileWriter& w) {
    for (int i = 0; i < 100000; ++i) {
      if (i % 3 == 0) {
        w.AddNull();
      } else {
        ASSERT_OK(w.AddValue(std::string(i % 200, 'x')));
      }
    }
  });
  auto input = std::make_shared<arrow::io::BufferReader>(arrow::Buffer::FromString(file));
  ASSERT_OK_AND_ASSIGN(auto index,
                       BlobFileIndex::Read(input.get(), static_cast<int64_t>(file.size()), "m"));
  ASSERT_EQ(index->num_rows(), 100000);
  for (int i : {0, 1, 2, 99998, 99999}) {
    auto e = index->entry(i);
    if (i % 3 == 0) {
      EXPECT_EQ(e.kind, BlobEntry::Kind::kNull);
    } else {
      EXPECT_EQ(Payload(file, e), std::string(i % 200, 'x'));
    }
  }
}

TEST(BlobFileTest, EmptyFile) {
  std::string file = WriteFile([](BlobFileWriter&) {});
  ASSERT_OK_AND_ASSIGN(auto index, BlobFileIndex::Parse(file, "e.blob"));
  EXPECT_EQ(index->num_rows(), 0);
}

TEST(BlobFileTest, TruncatedAndCorruptFilesAreIOErrors) {
  std::string file = WriteFile([](BlobFileWriter& w) {
    ASSERT_OK(w.AddValue("payload-1"));
    ASSERT_OK(w.AddValue("payload-2"));
  });
  for (size_t keep : {size_t{0}, size_t{3}, file.size() - 1, file.size() - 7, size_t{20}}) {
    auto st = BlobFileIndex::Parse(file.substr(0, keep), "t.blob").status();
    EXPECT_RAISES(IOError, st) << keep;
    auto input =
        std::make_shared<arrow::io::BufferReader>(arrow::Buffer::FromString(file.substr(0, keep)));
    st = BlobFileIndex::Read(input.get(), static_cast<int64_t>(keep), "t.blob").status();
    EXPECT_RAISES(IOError, st) << keep;
  }
  // A length that does not add up to the index start.
  std::string index = EncodeDeltaVarint({30, 30});
  std::string bad = std::string(42, 'x') + index;
  int32_t n = static_cast<int32_t>(index.size());
  bad.append(reinterpret_cast<const char*>(&n), 4);
  bad.push_back(1);
  EXPECT_RAISES(IOError, BlobFileIndex::Parse(bad, "b.blob"));
}

TEST(BlobFileTest, VerifyEntryCatchesEveryByteFlip) {
  std::string file = WriteFile([](BlobFileWriter& w) {
    ASSERT_OK(w.AddValue("first"));
    ASSERT_OK(w.AddValue(std::string(300, 'x')));
    ASSERT_OK(w.AddValue(""));
  });
  ASSERT_OK_AND_ASSIGN(auto index, BlobFileIndex::Parse(file, "t.blob"));
  for (int64_t row = 0; row < index->num_rows(); ++row) {
    const BlobEntry e = index->entry(row);
    const std::string entry = file.substr(e.entry_offset(), e.entry_length());
    EXPECT_TRUE(IsIntactBlobEntry(entry));
    EXPECT_OK(VerifyBlobEntry(entry, "t.blob", e.entry_offset(), 10 + row, row));
    for (size_t i = 0; i < entry.size(); ++i) {
      for (int bit : {0, 7}) {
        std::string bad = entry;
        bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
        EXPECT_FALSE(IsIntactBlobEntry(bad)) << "row " << row << " byte " << i;
        Status st = VerifyBlobEntry(bad, "t.blob", e.entry_offset(), 10 + row, row);
        ASSERT_RAISES(IOError, st) << "row " << row << " byte " << i;
        EXPECT_NE(st.message().find("'t.blob'"), std::string::npos) << st.message();
        EXPECT_NE(st.message().find("row id " + std::to_string(10 + row)), std::string::npos)
            << st.message();
      }
    }
  }
}

TEST(BlobFileTest, VerifyEntryAcceptsOldPypaimonCrcRange) {
  // Older pypaimon computed the CRC over magic + payload only (docs/format.md §6.2).
  std::string entry = WriteFile([](BlobFileWriter& w) { ASSERT_OK(w.AddValue("hi")); });
  entry.resize(2 + kBlobEntryOverhead);
  const uint32_t old_crc = BlobCrc32(0, entry.data(), 6);
  std::memcpy(entry.data() + entry.size() - 4, &old_crc, 4);
  EXPECT_OK(VerifyBlobEntry(entry, "t.blob", 0, -1, -1));
  entry[5] ^= 1;
  EXPECT_RAISES(IOError, VerifyBlobEntry(entry, "t.blob", 0, -1, -1));
}

TEST(BlobFileTest, RowHoldingFindsPayloadsAndParts) {
  std::string file = WriteFile([](BlobFileWriter& w) {
    w.AddNull();
    ASSERT_OK(w.AddValue("abcdef"));
    w.AddPlaceholder();
    w.AddNull();
    ASSERT_OK(w.AddValue("ghij"));
    w.AddNull();
  });
  ASSERT_OK_AND_ASSIGN(auto index, BlobFileIndex::Parse(file, "t.blob"));
  const BlobEntry a = index->entry(1);
  const BlobEntry b = index->entry(4);
  EXPECT_EQ(index->RowHolding(a.payload_offset, 6), 1);
  EXPECT_EQ(index->RowHolding(a.payload_offset + 2, 3), 1);
  EXPECT_EQ(index->RowHolding(a.payload_offset + 6, 0), 1);
  EXPECT_EQ(index->RowHolding(a.payload_offset + 5, 2), -1);  // runs into the trailer
  EXPECT_EQ(index->RowHolding(a.payload_offset - 1, 1), -1);  // the magic
  EXPECT_EQ(index->RowHolding(b.payload_offset, 4), 4);
  EXPECT_EQ(index->RowHolding(b.payload_offset + 1, 2), 4);
  EXPECT_EQ(index->RowHolding(b.payload_offset + 4, 1), -1);
  EXPECT_EQ(index->RowHolding(0, 0), -1);
  EXPECT_EQ(index->RowHolding(static_cast<int64_t>(file.size()), 1), -1);
}

TEST(BlobDescriptorTest, RoundTripAndDetection) {
  BlobDescriptor d{"/tmp/w/t/bucket-0/data-x-0.blob", 4, 123};
  std::string bytes = d.Serialize();
  EXPECT_EQ(bytes.size(), 29 + d.uri.size());
  EXPECT_EQ(bytes.substr(0, 9), std::string("\x02\x43\x53\x45\x44\x42\x4f\x4c\x42", 9));
  EXPECT_TRUE(BlobDescriptor::LooksLikeDescriptor(bytes));
  ASSERT_OK_AND_ASSIGN(auto back, BlobDescriptor::Deserialize(bytes));
  EXPECT_EQ(back.uri, d.uri);
  EXPECT_EQ(back.offset, 4);
  EXPECT_EQ(back.length, 123);
  EXPECT_FALSE(BlobDescriptor::LooksLikeDescriptor("hello world"));
  EXPECT_FALSE(BlobDescriptor::LooksLikeDescriptor(bytes.substr(0, 8)));
  std::string v1 = bytes;
  v1[0] = 1;
  EXPECT_FALSE(BlobDescriptor::LooksLikeDescriptor(v1));
  EXPECT_RAISES(Invalid, BlobDescriptor::Deserialize(bytes.substr(0, 20)));
}

TEST(BlobDescriptorTest, DeserializeErrorsNameTheProblem) {
  const std::string bytes = BlobDescriptor{"/a/b.blob", 4, 123}.Serialize();
  auto message = [](std::string_view b) {
    return BlobDescriptor::Deserialize(b).status().message();
  };
  EXPECT_EQ(message(""), "invalid BlobDescriptor: empty");
  EXPECT_EQ(message("\x03" + bytes.substr(1)), "invalid BlobDescriptor: version 3 is newer than 2");
  EXPECT_EQ(message(bytes.substr(0, 5)), "invalid BlobDescriptor: missing the BLOBDESC magic");
  EXPECT_EQ(message(bytes.substr(0, 11)), "invalid BlobDescriptor: too short");
  EXPECT_EQ(message(bytes.substr(0, bytes.size() - 1)), "invalid BlobDescriptor: too short");
  std::string negative = bytes;
  negative[negative.size() - 1] = '\xff';  // length's sign byte
  EXPECT_EQ(message(negative).substr(0, 35), "offset and length must be >= 0, got");
  // Versions 0 and 1 carry no magic.
  std::string v1 = "\x01" + bytes.substr(9);
  ASSERT_OK_AND_ASSIGN(auto old, BlobDescriptor::Deserialize(v1));
  EXPECT_EQ(old.version, 1);
  EXPECT_EQ(old.uri, "/a/b.blob");
}

// ---- ARRAY<BLOB> / MAP<K, BLOB> payloads ----------------------------------------------------

std::string Hex(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

// One entry holding `payload`, as BlobFileWriter writes it (file index cut off).
std::string EntryOf(const std::vector<std::string>& payload_parts) {
  std::string file = WriteFile([&](BlobFileWriter& w) {
    ASSERT_OK(w.BeginValue());
    for (const auto& part : payload_parts) ASSERT_OK(w.AppendPayload(part));
    ASSERT_OK(w.EndValue());
  });
  return file.substr(0, file.size() - 1 /*index*/ - 4 - 1);
}

TEST(BlobNestedTest, ArrayEntryBytesMatchPypaimon) {
  // pypaimon 2.1.0 BlobFormatWriter.add_blob_array([b"a", None, b""]), whole entry.
  const std::string expected = "cf114e5842434241010300000061020302030000002100000000000000ae771e00";
  std::string entry =
      EntryOf({EncodeBlobArrayHeader(3), "a", "", EncodeBlobArrayTrailer({1, -1, 0})});
  EXPECT_EQ(Hex(entry), expected);

  const std::string payload = entry.substr(4, entry.size() - 16);
  ASSERT_OK_AND_ASSIGN(auto layout, ParseBlobArrayPayload(static_cast<int64_t>(payload.size()),
                                                          InMemoryPayloadReader(payload), "t"));
  ASSERT_EQ(layout.values.size(), 3u);
  EXPECT_EQ(layout.values[0].offset, 9);
  EXPECT_EQ(layout.values[0].length, 1);
  EXPECT_TRUE(layout.values[1].is_null());
  EXPECT_EQ(layout.values[2].offset, 10);
  EXPECT_EQ(layout.values[2].length, 0);
  EXPECT_TRUE(layout.keys.empty());
}

TEST(BlobNestedTest, EmptyArrayAndMap) {
  std::string array = EncodeBlobArrayHeader(0) + EncodeBlobArrayTrailer({});
  EXPECT_EQ(array.size(), 13u);
  ASSERT_OK_AND_ASSIGN(auto a, ParseBlobArrayPayload(13, InMemoryPayloadReader(array), "t"));
  EXPECT_TRUE(a.values.empty());
  std::string map = EncodeBlobMapHeader(0) + EncodeBlobMapTrailer({}, {});
  EXPECT_EQ(map.size(), 17u);
  ASSERT_OK_AND_ASSIGN(auto m, ParseBlobMapPayload(17, InMemoryPayloadReader(map), 4, "t"));
  EXPECT_TRUE(m.keys.empty());
  EXPECT_TRUE(m.values.empty());
}

TEST(BlobNestedTest, MapEntryBytesMatchPypaimon) {
  // pypaimon 2.1.0 add_blob_map({7: b"xy", -1: None}, key type INT), whole entry.
  const std::string expected =
      "cf114e584243424d010200000007000000ffffffff78790800040502000000020000002f000000000000003c"
      "511aa7";
  auto keys = arrow::json::ArrayFromJSONString(arrow::int32(), "[7, -1]").ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto k0, EncodeMapBlobKey(*keys, 0));
  ASSERT_OK_AND_ASSIGN(auto k1, EncodeMapBlobKey(*keys, 1));
  std::string entry =
      EntryOf({EncodeBlobMapHeader(2), k0, k1, "xy", EncodeBlobMapTrailer({4, 4}, {2, -1})});
  EXPECT_EQ(Hex(entry), expected);

  const std::string payload = entry.substr(4, entry.size() - 16);
  ASSERT_OK_AND_ASSIGN(auto layout, ParseBlobMapPayload(static_cast<int64_t>(payload.size()),
                                                        InMemoryPayloadReader(payload), 4, "t"));
  ASSERT_EQ(layout.keys.size(), 2u);
  EXPECT_EQ(layout.keys[1].offset, 13);
  EXPECT_EQ(layout.values[0].offset, 17);
  EXPECT_EQ(layout.values[0].length, 2);
  EXPECT_TRUE(layout.values[1].is_null());
  EXPECT_EQ(layout.key_data, k0 + k1);
  arrow::Int32Builder builder;
  ASSERT_OK(AppendMapBlobKey(layout.key_data.substr(4, 4), &builder));
  EXPECT_EQ(builder.GetValue(0), -1);
  // A fixed-width key type with the wrong width is corrupt.
  EXPECT_TRUE(ParseBlobMapPayload(static_cast<int64_t>(payload.size()),
                                  InMemoryPayloadReader(payload), 8, "t")
                  .status()
                  .IsIOError());
}

TEST(BlobNestedTest, CorruptFramingIsIOError) {
  const std::string good = EncodeBlobArrayHeader(2) + "abc" + EncodeBlobArrayTrailer({1, 2});
  auto parse = [](const std::string& p) {
    return ParseBlobArrayPayload(static_cast<int64_t>(p.size()), InMemoryPayloadReader(p), "t")
        .status();
  };
  ASSERT_OK(parse(good));
  std::string bad_magic = good;
  bad_magic[0] ^= 1;
  EXPECT_RAISES(IOError, parse(bad_magic));
  std::string bad_version = good;
  bad_version[4] = 2;
  EXPECT_RAISES(IOError, parse(bad_version));
  // Lengths that do not add up to the element data, a count that disagrees with the index.
  const auto array = [](int32_t count, const std::string& data, std::vector<int64_t> lengths) {
    return EncodeBlobArrayHeader(count) + data + EncodeBlobArrayTrailer(lengths);
  };
  EXPECT_RAISES(IOError, parse(array(2, "abcd", {1, 2})));
  EXPECT_RAISES(IOError, parse(array(3, "abc", {1, 2})));
  EXPECT_RAISES(IOError, parse(array(2, "abc", {1, 5})));
  EXPECT_RAISES(IOError, parse(good.substr(0, 10)));
  // A map payload is not an array payload.
  EXPECT_RAISES(IOError, parse(EncodeBlobMapHeader(0) + EncodeBlobMapTrailer({}, {})));
}

TEST(BlobNestedTest, MapKeyEncodingsRoundTrip) {
  struct Case {
    std::shared_ptr<arrow::DataType> type;
    std::string json;
    std::vector<std::string> hex;  // serialized keys
  };
  const std::vector<Case> cases = {
      {arrow::int8(), "[-2, 5]", {"fe", "05"}},
      {arrow::int16(), "[258]", {"0201"}},
      {arrow::int64(), "[-1]", {"ffffffffffffffff"}},
      {arrow::boolean(), "[true, false]", {"01", "00"}},
      {arrow::date32(), "[19000]", {"384a0000"}},
      {arrow::time32(arrow::TimeUnit::MILLI), "[3723004]", {"fcce3800"}},
      {arrow::utf8(), R"(["k\u00e9", ""])", {"6bc3a9", ""}},
      {arrow::binary(), R"(["ab"])", {"6162"}},
      // Compact decimal: unscaled int64 LE (pypaimon: DECIMAL(10, 2) -1.50).
      {arrow::decimal128(10, 2), R"(["-1.50"])", {"6affffffffffffff"}},
      // Wide decimal: minimal big-endian two's complement (pypaimon, DECIMAL(30, 3)).
      {arrow::decimal128(30, 3),
       R"(["-12345678901234567890.125", "0.000", "1.000", "-0.001", "127.999", "0.128"])",
       {"fd62bd49b1898ebdbb33", "00", "03e8", "ff", "01f3ff", "0080"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.type->ToString());
    EXPECT_TRUE(IsSupportedMapBlobKeyType(*c.type));
    auto keys = arrow::json::ArrayFromJSONString(c.type, c.json).ValueOrDie();
    std::unique_ptr<arrow::ArrayBuilder> builder;
    ASSERT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), c.type, &builder));
    for (int64_t i = 0; i < keys->length(); ++i) {
      ASSERT_OK_AND_ASSIGN(auto bytes, EncodeMapBlobKey(*keys, i));
      EXPECT_EQ(Hex(bytes), c.hex[i]);
      ASSERT_OK(AppendMapBlobKey(Unhex(c.hex[i]), builder.get()));
    }
    std::shared_ptr<arrow::Array> back;
    ASSERT_OK(builder->Finish(&back));
    EXPECT_TRUE(back->Equals(*keys)) << back->ToString();
  }
  EXPECT_FALSE(IsSupportedMapBlobKeyType(*arrow::float64()));
  EXPECT_FALSE(IsSupportedMapBlobKeyType(*arrow::timestamp(arrow::TimeUnit::MICRO)));
  arrow::BooleanBuilder booleans;
  EXPECT_RAISES(IOError, AppendMapBlobKey(std::string("\x02", 1), &booleans));
  arrow::Int32Builder ints;
  EXPECT_RAISES(IOError, AppendMapBlobKey("abc", &ints));
  arrow::Decimal128Builder narrow(arrow::decimal128(3, 0));
  EXPECT_RAISES(IOError, AppendMapBlobKey(Unhex("03e8"), &narrow));  // 1000 > DECIMAL(3)
}

}  // namespace
}  // namespace paimon_rowid
