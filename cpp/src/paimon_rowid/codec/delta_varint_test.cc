#include "paimon_rowid/codec/delta_varint.h"

#include <gtest/gtest.h>

#include <limits>

#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

TEST(DeltaVarintTest, KnownBytes) {
  // 100 -> zigzag 200 -> c8 01; 98 - 100 = -2 -> zigzag 3; -1 - 98 = -99 -> zigzag 197 -> c5 01.
  EXPECT_EQ(EncodeDeltaVarint({100, 98, -1}), std::string("\xc8\x01\x03\xc5\x01", 5));
  EXPECT_EQ(EncodeDeltaVarint({}), "");
  EXPECT_EQ(EncodeDeltaVarint({-1}), std::string("\x01", 1));
  // Small values match pypaimon's compressor byte for byte. A difference beyond int64 wraps
  // modulo 2^64 as Java's long arithmetic does (pypaimon's unbounded ints would emit a
  // varint above 2^64 that no Java reader accepts); real indexes never get near that.
  EXPECT_EQ(EncodeDeltaVarint({300, std::numeric_limits<int64_t>::min()}),
            std::string("\xd8\x04\xa8\xfb\xff\xff\xff\xff\xff\xff\xff\x01", 12));
}

TEST(DeltaVarintTest, RoundTrips) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  std::vector<std::vector<int64_t>> cases = {
      {},
      {0},
      {-1, -2, -1, 5000, 5016, 5032},
      {kMax, kMin, kMax, 0, kMin},
      {1LL << 40, -(1LL << 40), 7},
  };
  std::vector<int64_t> many;
  for (int i = 0; i < 10000; ++i) many.push_back(i % 7 == 0 ? -1 : 16 + i * 31);
  cases.push_back(many);
  for (const auto& values : cases) {
    auto decoded = DecodeDeltaVarint(EncodeDeltaVarint(values));
    ASSERT_OK(decoded);
    EXPECT_EQ(*decoded, values);
  }
}

TEST(DeltaVarintTest, RejectsTruncatedAndOverlongInput) {
  std::string bytes = EncodeDeltaVarint({300, std::numeric_limits<int64_t>::min()});
  for (size_t len = 0; len < bytes.size(); ++len) {
    auto decoded = DecodeDeltaVarint(bytes.substr(0, len));
    // A cut between two varints leaves a shorter valid list; inside one it is an error.
    if (decoded.ok()) EXPECT_LE(decoded->size(), 1u);
  }
  EXPECT_FALSE(DecodeDeltaVarint(std::string("\x80", 1)).ok());
  EXPECT_FALSE(DecodeDeltaVarint(std::string(11, '\xff')).ok());
  EXPECT_FALSE(DecodeDeltaVarint(std::string(9, '\xff') + "\x02").ok());
}

}  // namespace
}  // namespace paimon_rowid
