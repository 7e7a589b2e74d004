#include "paimon_rowid/codec/crc32.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace paimon_rowid {
namespace {

TEST(Crc32Test, KnownValues) {
  EXPECT_EQ(Crc32(0, "", 0), 0u);
  EXPECT_EQ(Crc32(0, "123456789", 9), 0xCBF43926u);  // the CRC-32 check value
  const std::string a(1000, 'a');
  EXPECT_EQ(Crc32(0, a.data(), a.size()), Crc32Portable(0, a.data(), a.size()));
}

TEST(Crc32Test, EqualsThePortablePathForEveryLengthOffsetAndSeed) {
  std::mt19937_64 rng(7);
  std::vector<uint8_t> buf(70000);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  for (size_t len = 0; len <= 600; ++len) {
    for (size_t off : {0, 1, 3, 8, 15}) {
      const uint32_t seed = static_cast<uint32_t>(rng());
      ASSERT_EQ(Crc32(seed, buf.data() + off, len), Crc32Portable(seed, buf.data() + off, len))
          << "length " << len << " offset " << off;
    }
  }
  for (size_t len : {4096, 65536, 69999}) {
    ASSERT_EQ(Crc32(0, buf.data(), len), Crc32Portable(0, buf.data(), len)) << len;
  }
}

TEST(Crc32Test, ChainsLikeZlib) {
  const std::string s = std::string(300, 'x') + std::string(77, 'y');
  const uint32_t whole = Crc32(0, s.data(), s.size());
  const uint32_t chained = Crc32(Crc32(0, s.data(), 130), s.data() + 130, s.size() - 130);
  EXPECT_EQ(whole, chained);
}

}  // namespace
}  // namespace paimon_rowid
