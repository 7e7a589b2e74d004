#include "paimon_rowid/codec/blob_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "arrow/buffer.h"
#include "arrow/io/memory.h"
#include "paimon_rowid/codec/delta_varint.h"

#define ASSERT_OK_AND_ASSIGN(lhs, expr)                     \
  auto lhs##_result = (expr);                               \
  ASSERT_TRUE(lhs##_result.ok()) << lhs##_result.status().ToString(); \
  auto lhs = std::move(lhs##_result).ValueOrDie()

namespace paimon_rowid {
namespace {

std::string WriteFile(const std::function<void(BlobFileWriter&)>& body) {
  auto sink = arrow::io::BufferOutputStream::Create().ValueOrDie();
  BlobFileWriter writer(sink);
  body(writer);
  EXPECT_TRUE(writer.Close().ok());
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
  std::string file = WriteFile([](BlobFileWriter& w) { ASSERT_TRUE(w.AddValue("hello").ok()); });
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
    ASSERT_TRUE(w.AddValue("a").ok());
    w.AddNull();
    ASSERT_TRUE(w.AddValue("").ok());
    w.AddPlaceholder();
    ASSERT_TRUE(w.BeginValue().ok());
    ASSERT_TRUE(w.AppendPayload(std::string_view(big).substr(0, 1000)).ok());
    ASSERT_TRUE(w.AppendPayload(std::string_view(big).substr(1000)).ok());
    ASSERT_TRUE(w.EndValue().ok());
    EXPECT_EQ(w.row_count(), 5);
  });
  ASSERT_OK_AND_ASSIGN(index, BlobFileIndex::Parse(file, "mem.blob"));
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
  ASSERT_OK_AND_ASSIGN(ranged,
                       BlobFileIndex::Read(input.get(), static_cast<int64_t>(file.size()), "m"));
  EXPECT_EQ(ranged->entry(4).payload_offset, index->entry(4).payload_offset);
}

TEST(BlobFileTest, ManyRowsIndexLargerThanProbe) {
  std::string file = WriteFile([](BlobFileWriter& w) {
    for (int i = 0; i < 100000; ++i) {
      if (i % 3 == 0) {
        w.AddNull();
      } else {
        ASSERT_TRUE(w.AddValue(std::string(i % 200, 'x')).ok());
      }
    }
  });
  auto input = std::make_shared<arrow::io::BufferReader>(arrow::Buffer::FromString(file));
  ASSERT_OK_AND_ASSIGN(index,
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
  ASSERT_OK_AND_ASSIGN(index, BlobFileIndex::Parse(file, "e.blob"));
  EXPECT_EQ(index->num_rows(), 0);
}

TEST(BlobFileTest, TruncatedAndCorruptFilesAreIOErrors) {
  std::string file = WriteFile([](BlobFileWriter& w) {
    ASSERT_TRUE(w.AddValue("payload-1").ok());
    ASSERT_TRUE(w.AddValue("payload-2").ok());
  });
  for (size_t keep : {size_t{0}, size_t{3}, file.size() - 1, file.size() - 7, size_t{20}}) {
    auto st = BlobFileIndex::Parse(file.substr(0, keep), "t.blob").status();
    EXPECT_TRUE(st.IsIOError()) << keep << ": " << st.ToString();
    auto input = std::make_shared<arrow::io::BufferReader>(
        arrow::Buffer::FromString(file.substr(0, keep)));
    st = BlobFileIndex::Read(input.get(), static_cast<int64_t>(keep), "t.blob").status();
    EXPECT_TRUE(st.IsIOError()) << keep << ": " << st.ToString();
  }
  // A length that does not add up to the index start.
  std::string index = EncodeDeltaVarint({30, 30});
  std::string bad = std::string(42, 'x') + index;
  int32_t n = static_cast<int32_t>(index.size());
  bad.append(reinterpret_cast<const char*>(&n), 4);
  bad.push_back(1);
  EXPECT_TRUE(BlobFileIndex::Parse(bad, "b.blob").status().IsIOError());
}

TEST(BlobDescriptorTest, RoundTripAndDetection) {
  BlobDescriptor d{"/tmp/w/t/bucket-0/data-x-0.blob", 4, 123};
  std::string bytes = d.Serialize();
  EXPECT_EQ(bytes.size(), 29 + d.uri.size());
  EXPECT_EQ(bytes.substr(0, 9), std::string("\x02\x43\x53\x45\x44\x42\x4f\x4c\x42", 9));
  EXPECT_TRUE(BlobDescriptor::LooksLikeDescriptor(bytes));
  ASSERT_OK_AND_ASSIGN(back, BlobDescriptor::Deserialize(bytes));
  EXPECT_EQ(back.uri, d.uri);
  EXPECT_EQ(back.offset, 4);
  EXPECT_EQ(back.length, 123);
  EXPECT_FALSE(BlobDescriptor::LooksLikeDescriptor("hello world"));
  EXPECT_FALSE(BlobDescriptor::LooksLikeDescriptor(bytes.substr(0, 8)));
  std::string v1 = bytes;
  v1[0] = 1;
  EXPECT_FALSE(BlobDescriptor::LooksLikeDescriptor(v1));
  EXPECT_TRUE(BlobDescriptor::Deserialize(bytes.substr(0, 20)).status().IsInvalid());
}

}  // namespace
}  // namespace paimon_rowid
