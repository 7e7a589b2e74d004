#include "paimon_rowid/gindex/btree_file.h"

#include <arrow/array/builder_primitive.h>
#include <arrow/buffer.h>
#include <arrow/scalar.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <random>

#include "paimon_rowid/codec/little_endian.h"
#include "paimon_rowid/codec/roaring.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

KeyCodec Codec(TypeRoot root) {
  auto type =
      root == TypeRoot::kVarChar ? DataType::Char(root, 2147483647) : DataType::Atomic(root);
  return *KeyCodec::Make(*type);
}

std::string IntKey(int32_t v) {
  std::string k;
  AppendLE<int32_t>(&k, v);
  return k;
}

std::string Name(int i) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "n%02d", i % 5);
  return buf;
}

std::shared_ptr<arrow::Buffer> AsBuffer(const std::string& bytes) {
  return arrow::Buffer::FromString(bytes);
}

// pypaimon 2.1.0's btree(id) of `id INT` 0..19: one aligned data block of 165 bytes, an index
// block of 14 at 170, no bloom filter, no null bitmap; 241 bytes in all.
TEST(BTreeFileTest, IntFileHasPypaimonsLayout) {
  BTreeFileWriter writer(Codec(TypeRoot::kInt), {});
  for (int i = 0; i < 20; ++i) ASSERT_OK(writer.Add(IntKey(i), i));
  ASSERT_OK_AND_ASSIGN(BTreeFile file, writer.Finish());
  ASSERT_EQ(file.bytes.size(), 241u);
  EXPECT_EQ(file.row_count, 20);
  const char* footer = file.bytes.data() + file.bytes.size() - 52;
  EXPECT_EQ(LoadLE<uint64_t>(footer + 0), 0u);  // no bloom filter
  EXPECT_EQ(LoadLE<uint64_t>(footer + 20), 170u);
  EXPECT_EQ(LoadLE<uint32_t>(footer + 28), 14u);
  EXPECT_EQ(LoadLE<uint64_t>(footer + 32), 0u);  // no nulls
  EXPECT_EQ(LoadLE<uint32_t>(footer + 44), 1u);
  EXPECT_EQ(file.bytes.substr(file.bytes.size() - 4), "ITBP");
  // Aligned data block: entry size 8, then the 0x00 tag, then the trailer (type 0).
  EXPECT_EQ(LoadLE<uint32_t>(file.bytes.data() + 160), 8u);
  EXPECT_EQ(file.bytes[164], 0);
  EXPECT_EQ(file.bytes[165], 0);
  EXPECT_EQ(file.meta.Serialize(),
            std::string("\x04\0\0\0\0\0\0\0\x04\0\0\0\x13\0\0\0\0\x01\0", 19));
}

// pypaimon's btree(name) with the bloom filter on: name = n%02d(i % 5), null when i % 7 == 3.
TEST(BTreeFileTest, StringFileWithNullsAndBloomHasPypaimonsLayout) {
  std::map<std::string, std::vector<int64_t>> rows;
  std::vector<int64_t> nulls;
  for (int i = 0; i < 20; ++i) {
    if (i % 7 == 3) {
      nulls.push_back(i);
    } else {
      rows[Name(i)].push_back(i);
    }
  }
  BTreeWriteOptions options;
  options.bloom_filter = true;
  BTreeFileWriter writer(Codec(TypeRoot::kVarChar), options);
  for (int64_t r : nulls) ASSERT_OK(writer.AddNull(r));
  for (const auto& [key, ids] : rows) {
    for (int64_t r : ids) ASSERT_OK(writer.Add(key, r));
  }
  ASSERT_OK_AND_ASSIGN(BTreeFile file, writer.Finish());
  ASSERT_EQ(file.bytes.size(), 188u);
  const char* footer = file.bytes.data() + file.bytes.size() - 52;
  EXPECT_EQ(LoadLE<uint64_t>(footer + 0), 115u);
  EXPECT_EQ(LoadLE<uint32_t>(footer + 8), 4u);
  EXPECT_EQ(LoadLE<uint64_t>(footer + 12), 5u);
  EXPECT_EQ(LoadLE<uint64_t>(footer + 20), 119u);
  EXPECT_EQ(LoadLE<uint32_t>(footer + 28), 12u);
  EXPECT_EQ(LoadLE<uint64_t>(footer + 32), 77u);
  EXPECT_EQ(LoadLE<uint32_t>(footer + 40), 34u);
  // The bloom bits pypaimon computes for the five keys (k = 4).
  EXPECT_EQ(file.bytes.substr(115, 4), std::string("\x74\x73\x6b\xa9"));

  ASSERT_OK_AND_ASSIGN(auto reader,
                       BTreeFileReader::Open(AsBuffer(file.bytes), Codec(TypeRoot::kVarChar), "f"));
  EXPECT_TRUE(reader->has_bloom_filter());
  EXPECT_EQ(*reader->NullRows(), nulls);
  ASSERT_OK_AND_ASSIGN(auto n00, reader->Lookup("n00"));
  EXPECT_EQ(n00, (std::vector<int64_t>{0, 5, 15}));
  for (const auto& [key, ids] : rows) {
    ASSERT_OK_AND_ASSIGN(auto got, reader->Lookup(key));
    EXPECT_EQ(got, ids) << key;
  }
  ASSERT_OK_AND_ASSIGN(auto none, reader->Lookup("zz"));
  EXPECT_TRUE(none.empty());
  ASSERT_OK_AND_ASSIGN(auto between,
                       reader->Range(std::string("n01"), false, std::string("n03"), true));
  ASSERT_EQ(between.size(), 2u);
  EXPECT_EQ(between[0].key, "n02");
  EXPECT_EQ(between[1].key, "n03");
}

TEST(BTreeFileTest, PaimonHashMatchesJava) {
  // Values computed by pypaimon 2.1.0's murmur_hash_bytes (Java's MurmurHashUtils.hashBytes).
  EXPECT_EQ(PaimonHashBytes(""), 142593372);
  EXPECT_EQ(PaimonHashBytes("a"), 1485273170);
  EXPECT_EQ(PaimonHashBytes("n00"), 1553401146);
  EXPECT_EQ(PaimonHashBytes("abcd"), -396302900);
  EXPECT_EQ(PaimonHashBytes("abcdefg"), 2132013596);
  EXPECT_EQ(PaimonHashBytes(IntKey(5)), 1023896466);
  EXPECT_EQ(PaimonHashBytes("\xff\x80\x7f"), -555039606);
}

TEST(BTreeFileTest, Roaring64MatchesPyroaringBytes) {
  const std::string bytes(
      "\x01\0\0\0\0\0\0\0"
      "\0\0\0\0"
      "\x3a\x30\0\0\x01\0\0\0\0\0\x02\0\x10\0\0\0\x03\0\x0a\0\x11\0",
      34);
  ASSERT_OK_AND_ASSIGN(auto values, DecodeRoaring64(bytes, "bitmap"));
  EXPECT_EQ(values, (std::vector<int64_t>{3, 10, 17}));
  EXPECT_EQ(EncodeRoaring64(values), bytes);
  std::vector<int64_t> wide = {0, 1, 70000, (int64_t{5} << 32) + 9, (int64_t{5} << 32) + 10};
  for (int i = 0; i < 5000; ++i) wide.push_back((int64_t{7} << 32) + 2 * i);  // a bitmap container
  ASSERT_OK_AND_ASSIGN(auto back, DecodeRoaring64(EncodeRoaring64(wide), "bitmap"));
  EXPECT_EQ(back, wide);
  EXPECT_FALSE(DecodeRoaring64(bytes.substr(0, 30), "bitmap").ok());
  EXPECT_FALSE(DecodeRoaring64(bytes + "x", "bitmap").ok());
}

// Many blocks (a small block size), duplicates, zstd blocks: every key and every range comes
// back as written.
TEST(BTreeFileTest, RandomRoundTripAcrossBlocksAndCompression) {
  std::mt19937_64 rng(7);
  std::map<int64_t, std::vector<int64_t>> truth;
  for (int64_t r = 0; r < 5000; ++r) truth[static_cast<int64_t>(rng() % 1500) - 700].push_back(r);
  for (BlockCompression compression : {BlockCompression::kNone, BlockCompression::kZstd}) {
    BTreeWriteOptions options;
    options.block_size = 512;
    options.bloom_filter = true;
    options.compression = compression;
    KeyCodec codec = Codec(TypeRoot::kBigInt);
    BTreeFileWriter writer(codec, options);
    auto key_of = [](int64_t v) {
      std::string k;
      AppendLE<int64_t>(&k, v);
      return k;
    };
    for (const auto& [k, ids] : truth) {
      for (int64_t r : ids) ASSERT_OK(writer.Add(key_of(k), r));
    }
    ASSERT_OK_AND_ASSIGN(BTreeFile file, writer.Finish());
    EXPECT_EQ(file.row_count, 5000);
    ASSERT_OK_AND_ASSIGN(auto reader, BTreeFileReader::Open(AsBuffer(file.bytes), codec, "f"));
    for (int64_t k = -750; k < 850; ++k) {
      ASSERT_OK_AND_ASSIGN(auto got, reader->Lookup(key_of(k)));
      auto it = truth.find(k);
      EXPECT_EQ(got, it == truth.end() ? std::vector<int64_t>{} : it->second) << k;
    }
    // LookupSorted answers a sorted batch of keys (present, absent, beyond both ends) alike.
    std::vector<std::string> batch;
    for (int64_t k = -760; k < 860; k += 3) batch.push_back(key_of(k));
    std::vector<std::string_view> views(batch.begin(), batch.end());
    std::map<int64_t, std::vector<int64_t>> sorted_found;
    ASSERT_OK(reader->LookupSorted(views, [&](size_t i, std::vector<int64_t> ids) {
      sorted_found[-760 + 3 * static_cast<int64_t>(i)] = std::move(ids);
      return Status::OK();
    }));
    std::map<int64_t, std::vector<int64_t>> sorted_expected;
    for (int64_t k = -760; k < 860; k += 3) {
      if (truth.count(k)) sorted_expected[k] = truth[k];
    }
    EXPECT_EQ(sorted_found, sorted_expected);
    ASSERT_OK_AND_ASSIGN(auto range, reader->Range(key_of(-10), true, key_of(10), false));
    size_t expected = 0;
    for (const auto& [k, ids] : truth) expected += (k >= -10 && k < 10) ? 1 : 0;
    EXPECT_EQ(range.size(), expected);
    ASSERT_OK_AND_ASSIGN(auto all, reader->ReadAll());
    EXPECT_EQ(all.size(), truth.size());
  }
}

TEST(BTreeFileTest, DamageAndMisuseAreErrors) {
  KeyCodec codec = Codec(TypeRoot::kInt);
  BTreeFileWriter writer(codec, {});
  ASSERT_OK(writer.Add(IntKey(5), 0));
  EXPECT_TRUE(writer.Add(IntKey(4), 1).IsInvalid());  // keys must ascend
  EXPECT_TRUE(writer.Add("abc", 1).IsInvalid());      // wrong width
  ASSERT_OK_AND_ASSIGN(BTreeFile file, writer.Finish());
  EXPECT_TRUE(writer.Finish().status().IsInvalid());
  EXPECT_TRUE(BTreeFileWriter(codec, {}).Finish().status().IsInvalid());  // empty

  std::string damaged = file.bytes;
  damaged[2] ^= 1;  // inside the data block
  ASSERT_OK_AND_ASSIGN(auto reader, BTreeFileReader::Open(AsBuffer(damaged), codec, "f"));
  EXPECT_TRUE(reader->Lookup(IntKey(5)).status().IsIOError());
  std::string bad_magic = file.bytes;
  bad_magic.back() = 'X';
  EXPECT_TRUE(BTreeFileReader::Open(AsBuffer(bad_magic), codec, "f").status().IsInvalid());
  EXPECT_TRUE(BTreeFileReader::Open(AsBuffer("short"), codec, "f").status().IsInvalid());
}

TEST(BTreeFileTest, KeysCompareAsValues) {
  KeyCodec ints = Codec(TypeRoot::kInt);
  EXPECT_LT(ints.Compare(IntKey(-1), IntKey(1)), 0);  // not bytewise
  EXPECT_GT(ints.Compare(IntKey(256), IntKey(1)), 0);
  KeyCodec doubles = Codec(TypeRoot::kDouble);
  ASSERT_OK_AND_ASSIGN(auto nan, doubles.FromScalar(arrow::DoubleScalar(std::nan(""))));
  ASSERT_OK_AND_ASSIGN(auto big, doubles.FromScalar(arrow::DoubleScalar(1e300)));
  ASSERT_OK_AND_ASSIGN(auto neg_zero, doubles.FromScalar(arrow::DoubleScalar(-0.0)));
  ASSERT_OK_AND_ASSIGN(auto zero, doubles.FromScalar(arrow::Int32Scalar(0)));  // cast
  EXPECT_GT(doubles.Compare(nan, big), 0);
  EXPECT_EQ(doubles.Compare(neg_zero, zero), 0);
  EXPECT_TRUE(KeyCodec::Make(*DataType::Char(TypeRoot::kVarBinary, 100)).status().IsInvalid());
}

// TIMESTAMP keys: epoch millis (LE) and, above precision 3, a varint of the nanos within the
// millisecond; values before the epoch floor. DECIMAL above precision 18: shortest big-endian
// two's complement, compared as numbers.
TEST(BTreeFileTest, TemporalAndDecimalKeys) {
  ASSERT_OK_AND_ASSIGN(auto ts6, KeyCodec::Make(*DataType::Temporal(TypeRoot::kTimestamp, 6)));
  EXPECT_FALSE(ts6.lossy());
  auto micros = [&](int64_t v) {
    return *ts6.FromScalar(arrow::TimestampScalar(v, arrow::timestamp(arrow::TimeUnit::MICRO)));
  };
  std::string expect;
  AppendLE<int64_t>(&expect, -2);            // -1001 us = -2 ms + 999 us
  expect += std::string("\xd8\xfc\x3c", 3);  // varint 999000
  EXPECT_EQ(micros(-1001), expect);
  EXPECT_LT(ts6.Compare(micros(-1001), micros(-1000)), 0);
  EXPECT_LT(ts6.Compare(micros(1000), micros(1001)), 0);
  EXPECT_OK(ts6.Validate(micros(5)));
  ASSERT_OK_AND_ASSIGN(auto ts0, KeyCodec::Make(*DataType::Temporal(TypeRoot::kTimestamp, 0)));
  ASSERT_OK_AND_ASSIGN(auto sec, ts0.FromScalar(arrow::TimestampScalar(
                                     3, arrow::timestamp(arrow::TimeUnit::SECOND))));
  EXPECT_EQ(LoadLE<int64_t>(sec.data()), 3000);
  EXPECT_EQ(sec.size(), 8u);
  ASSERT_OK_AND_ASSIGN(auto ts9, KeyCodec::Make(*DataType::Temporal(TypeRoot::kTimestampLtz, 9)));
  EXPECT_TRUE(ts9.lossy());

  ASSERT_OK_AND_ASSIGN(auto big, KeyCodec::Make(*DataType::Decimal(30, 2)));
  auto dec = [&](int64_t v) {
    return *big.FromScalar(arrow::Decimal128Scalar(arrow::Decimal128(v), arrow::decimal128(30, 2)));
  };
  EXPECT_EQ(dec(127), std::string("\x7f", 1));
  EXPECT_EQ(dec(128), std::string("\x00\x80", 2));
  EXPECT_EQ(dec(-129), std::string("\xff\x7f", 2));
  EXPECT_LT(big.Compare(dec(-129), dec(-128)), 0);
  EXPECT_LT(big.Compare(dec(-1), dec(0)), 0);
  EXPECT_LT(big.Compare(dec(127), dec(128)), 0);
  EXPECT_GT(big.Compare(dec(1), dec(-100000)), 0);
  ASSERT_OK_AND_ASSIGN(auto small, KeyCodec::Make(*DataType::Decimal(10, 2)));
  ASSERT_OK_AND_ASSIGN(auto s, small.FromScalar(arrow::Decimal128Scalar(arrow::Decimal128(-5),
                                                                        arrow::decimal128(10, 2))));
  EXPECT_EQ(LoadLE<int64_t>(s.data()), -5);
}

TEST(BTreeFileTest, SortedIndexFileMetaForms) {
  SortedIndexFileMeta only_nulls{std::nullopt, std::nullopt, true};
  EXPECT_EQ(only_nulls.Serialize(), std::string("\0\0\0\0\0\0\0\0\x01\x01\x03", 11));
  ASSERT_OK_AND_ASSIGN(auto back, SortedIndexFileMeta::Deserialize(only_nulls.Serialize()));
  EXPECT_EQ(back, only_nulls);
  // The legacy form has no version and flags: empty keys with nulls mean only nulls.
  ASSERT_OK_AND_ASSIGN(auto legacy,
                       SortedIndexFileMeta::Deserialize(std::string("\0\0\0\0\0\0\0\0\x01", 9)));
  EXPECT_EQ(legacy, only_nulls);
  EXPECT_FALSE(SortedIndexFileMeta::Deserialize("ab").ok());
}

}  // namespace
}  // namespace paimon_rowid

namespace paimon_rowid {
namespace {

// A lookup reads the footer, the bloom filter and the index block when the file is opened,
// then only the data block that can hold its key; a key the bloom filter rules out reads no
// data block at all.
TEST(BTreeFileTest, LookupReadsOnlyTheBlocksItNeeds) {
  BTreeWriteOptions options;
  options.block_size = 512;
  options.bloom_filter = true;
  BTreeFileWriter writer(Codec(TypeRoot::kInt), options);
  for (int i = 0; i < 20000; ++i) ASSERT_OK(writer.Add(IntKey(2 * i), i));
  ASSERT_OK_AND_ASSIGN(BTreeFile file, writer.Finish());
  ASSERT_OK_AND_ASSIGN(auto reader,
                       BTreeFileReader::Open(AsBuffer(file.bytes), Codec(TypeRoot::kInt), "f"));
  const int64_t opened = reader->bytes_read();
  EXPECT_LT(opened, static_cast<int64_t>(file.bytes.size()) / 4);
  ASSERT_OK_AND_ASSIGN(auto ids, reader->Lookup(IntKey(2 * 777)));
  EXPECT_EQ(ids, std::vector<int64_t>{777});
  const int64_t one_block = reader->bytes_read() - opened;
  EXPECT_GT(one_block, 0);
  EXPECT_LE(one_block, 512 + 64);  // one data block and its trailer
  int64_t before = reader->bytes_read();
  int skipped = 0;
  for (int k = 1; k < 400; k += 2) {  // odd keys are absent: the bloom filter skips most
    ASSERT_OK_AND_ASSIGN(auto none, reader->Lookup(IntKey(k)));
    EXPECT_TRUE(none.empty());
    if (reader->bytes_read() == before) ++skipped;
    before = reader->bytes_read();
  }
  EXPECT_GT(skipped, 150);
  ASSERT_OK_AND_ASSIGN(auto nulls, reader->NullRows());
  EXPECT_TRUE(nulls.empty());
}

}  // namespace
}  // namespace paimon_rowid
