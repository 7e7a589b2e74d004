#include "paimon_rowid/codec/deletion_vector.h"

#include <gtest/gtest.h>

#include <random>

#include "arrow/util/crc32.h"
#include "paimon_rowid/codec/little_endian.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

std::string BE32(uint32_t v) {
  std::string out;
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(v >> shift));
  return out;
}

TEST(DeletionVectorTest, SmallVectorBytesAreRoaringArrayContainer) {
  DeletionVector dv({1, 5, 70000});
  ASSERT_OK_AND_ASSIGN(std::string bytes, dv.Serialize());
  std::string expected = BE32(1581511376);
  AppendLE<uint32_t>(&expected, 12346);  // cookie without run containers
  AppendLE<uint32_t>(&expected, 2);      // containers
  AppendLE<uint16_t>(&expected, 0);      // key 0, cardinality 2
  AppendLE<uint16_t>(&expected, 1);
  AppendLE<uint16_t>(&expected, 1);  // key 1, cardinality 1
  AppendLE<uint16_t>(&expected, 0);
  AppendLE<uint32_t>(&expected, 24);  // offsets
  AppendLE<uint32_t>(&expected, 28);
  AppendLE<uint16_t>(&expected, 1);
  AppendLE<uint16_t>(&expected, 5);
  AppendLE<uint16_t>(&expected, 70000 - 65536);
  EXPECT_EQ(bytes, expected);
  ASSERT_OK_AND_ASSIGN(auto back, DeletionVector::Deserialize(bytes));
  EXPECT_EQ(back, dv);
}

TEST(DeletionVectorTest, RoundTripsDenseAndSparseContainers) {
  std::mt19937_64 rng(7);
  std::vector<int64_t> positions;
  for (int64_t p = 0; p < 300000; ++p) {
    // container 0 dense (bitmap), 1 sparse (array), 2 empty, 3 dense
    const int64_t key = p >> 16;
    const bool keep = key == 0 || key == 3 ? rng() % 3 != 0 : key == 1 && rng() % 100 == 0;
    if (keep) positions.push_back(p);
  }
  DeletionVector dv(positions);
  ASSERT_OK_AND_ASSIGN(std::string bytes, dv.Serialize());
  ASSERT_OK_AND_ASSIGN(auto back, DeletionVector::Deserialize(bytes));
  EXPECT_EQ(back.positions(), positions);
  EXPECT_TRUE(back.Contains(positions[10]));
  EXPECT_FALSE(back.Contains(2 * 65536 + 5));
}

TEST(DeletionVectorTest, ReadsRunContainers) {
  // cookie 12347 with one container (size - 1 = 0 in the high half), run flag set, no
  // offsets (fewer than 4 containers): runs [3, 5] and [10, 10].
  std::string bytes = BE32(1581511376);
  AppendLE<uint32_t>(&bytes, 12347);
  bytes.push_back('\x01');
  AppendLE<uint16_t>(&bytes, 0);
  AppendLE<uint16_t>(&bytes, 3);  // cardinality 4
  AppendLE<uint16_t>(&bytes, 2);  // two runs
  AppendLE<uint16_t>(&bytes, 3);
  AppendLE<uint16_t>(&bytes, 2);
  AppendLE<uint16_t>(&bytes, 10);
  AppendLE<uint16_t>(&bytes, 0);
  ASSERT_OK_AND_ASSIGN(auto dv, DeletionVector::Deserialize(bytes));
  EXPECT_EQ(dv.positions(), (std::vector<int64_t>{3, 4, 5, 10}));
}

TEST(DeletionVectorTest, AddAllMergesAndCounts) {
  DeletionVector dv({2, 4});
  EXPECT_EQ(dv.AddAll({4, 1, 1, 9}), 2);
  EXPECT_EQ(dv.positions(), (std::vector<int64_t>{1, 2, 4, 9}));
  EXPECT_EQ(dv.cardinality(), 4);
}

TEST(DeletionVectorTest, RefusesMalformedInput) {
  ASSERT_OK_AND_ASSIGN(std::string good, DeletionVector({1, 2, 3}).Serialize());
  for (size_t cut = 0; cut < good.size(); ++cut) {
    EXPECT_FALSE(DeletionVector::Deserialize(good.substr(0, cut)).ok()) << cut;
  }
  std::string bad_magic = good;
  bad_magic[0] = 'x';
  EXPECT_FALSE(DeletionVector::Deserialize(bad_magic).ok());
  std::string wide;
  AppendLE<int32_t>(&wide, kDeletionVector64Magic);
  EXPECT_TRUE(DeletionVector::Deserialize(wide).status().IsNotImplemented());
  EXPECT_FALSE(DeletionVector({int64_t{1} << 31}).Serialize().ok());
  // A bitmap holding 2^31 (key 0x8000) parses as no deletion vector (found by fuzzing).
  std::string high = BE32(1581511376);
  AppendLE<uint32_t>(&high, 12346);
  AppendLE<uint32_t>(&high, 1);
  AppendLE<uint16_t>(&high, 0x8000);
  AppendLE<uint16_t>(&high, 0);
  AppendLE<uint32_t>(&high, 16);
  AppendLE<uint16_t>(&high, 0);
  EXPECT_TRUE(DeletionVector::Deserialize(high).status().IsInvalid());
  EXPECT_FALSE(DeletionVector({-1}).Serialize().ok());
}

TEST(DeletionVectorFileTest, LayoutRangesAndChecks) {
  std::map<std::string, DeletionVector> vectors;
  vectors["data-b.parquet"] = DeletionVector({7});
  vectors["data-a.parquet"] = DeletionVector({0, 1});
  vectors["data-c.parquet"] = DeletionVector();  // skipped
  ASSERT_OK_AND_ASSIGN(auto file, EncodeDeletionVectorFile(vectors));
  ASSERT_EQ(file.ranges.size(), 2u);
  EXPECT_EQ(file.bytes[0], '\x01');
  EXPECT_EQ(file.ranges[0].data_file, "data-a.parquet");
  EXPECT_EQ(file.ranges[0].offset, 1);
  EXPECT_EQ(file.ranges[0].cardinality, 2);
  EXPECT_EQ(file.ranges[1].offset, 1 + 4 + file.ranges[0].length + 4);
  EXPECT_EQ(static_cast<int64_t>(file.bytes.size()),
            file.ranges[1].offset + 8 + file.ranges[1].length);
  ASSERT_OK(CheckDeletionVectorFileVersion(file.bytes, "f"));
  EXPECT_FALSE(CheckDeletionVectorFileVersion("\x02", "f").ok());
  for (size_t i = 0; i < 2; ++i) {
    const auto& r = file.ranges[i];
    ASSERT_OK_AND_ASSIGN(
        auto dv, DecodeDeletionVectorAt(std::string_view(file.bytes).substr(r.offset), r, "f"));
    EXPECT_EQ(dv, vectors[r.data_file]);
    // The CRC is Java's CRC32 of the DV bytes, big-endian after them.
    const std::string body = file.bytes.substr(r.offset + 4, r.length);
    EXPECT_EQ(file.bytes.substr(r.offset + 4 + r.length, 4),
              BE32(arrow::internal::crc32(0, body.data(), body.size())));
  }
  std::string damaged = file.bytes;
  damaged[file.ranges[0].offset + 6] ^= 0x40;
  EXPECT_TRUE(DecodeDeletionVectorAt(std::string_view(damaged).substr(file.ranges[0].offset),
                                     file.ranges[0], "f")
                  .status()
                  .IsIOError());
  DeletionVectorRange wrong = file.ranges[0];
  wrong.length += 1;
  EXPECT_FALSE(
      DecodeDeletionVectorAt(std::string_view(file.bytes).substr(wrong.offset), wrong, "f").ok());
  wrong = file.ranges[0];
  wrong.cardinality = 5;
  EXPECT_FALSE(
      DecodeDeletionVectorAt(std::string_view(file.bytes).substr(wrong.offset), wrong, "f").ok());
}

}  // namespace
}  // namespace paimon_rowid
