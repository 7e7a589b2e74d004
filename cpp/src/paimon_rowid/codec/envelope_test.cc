#include "paimon_rowid/codec/envelope.h"

#include <gtest/gtest.h>

#include "paimon_rowid/codec/little_endian.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

constexpr EnvelopeKind kKind{{'T', 'E', 'S', 'T'}, 3, "test payload"};

TEST(EnvelopeTest, LayoutIsLittleEndian) {
  const std::string bytes = SealEnvelope(kKind, "{}", "BODY");
  ASSERT_EQ(bytes.size(), kEnvelopePrefixSize + 2 + 4);
  EXPECT_EQ(bytes.substr(0, 4), "TEST");
  // Explicit bytes, so the layout cannot silently follow the host's byte order.
  EXPECT_EQ(bytes.substr(4, 8), std::string("\x01\x00\x03\x00\x02\x00\x00\x00", 8));
  EXPECT_EQ(bytes.substr(12), "{}BODY");
}

TEST(EnvelopeTest, RoundTrip) {
  const std::string header = R"({"a":1})";
  const std::string body("\x00\xff body", 7);
  const std::string bytes = SealEnvelope(kKind, header, body);
  auto parts = OpenEnvelope(kKind, bytes);  // views into `bytes`
  ASSERT_OK(parts);
  EXPECT_EQ(parts->header, header);
  EXPECT_EQ(parts->body, body);
  const std::string sealed_empty = SealEnvelope(kKind, "", "");
  auto empty = OpenEnvelope(kKind, sealed_empty);
  ASSERT_OK(empty);
  EXPECT_TRUE(empty->header.empty());
  EXPECT_TRUE(empty->body.empty());
}

TEST(EnvelopeTest, TruncatedInputIsInvalid) {
  const std::string bytes = SealEnvelope(kKind, R"({"a":1})", "xyz");
  // Too short for the prefix: not an envelope at all.
  for (size_t n : {size_t{0}, size_t{3}, kEnvelopePrefixSize - 1}) {
    auto st = OpenEnvelope(kKind, bytes.substr(0, n)).status();
    EXPECT_TRUE(st.IsInvalid());
    EXPECT_EQ(st.message(), "not a serialized test payload") << n;
  }
  // The header runs past the end.
  for (size_t n = kEnvelopePrefixSize; n < kEnvelopePrefixSize + 7; ++n) {
    auto st = OpenEnvelope(kKind, bytes.substr(0, n)).status();
    EXPECT_TRUE(st.IsInvalid());
    EXPECT_EQ(st.message(), "serialized test payload is truncated") << n;
  }
  // A header length near 2^32 must not wrap around.
  std::string huge = bytes;
  huge.replace(8, 4, std::string("\xff\xff\xff\xff", 4));
  EXPECT_EQ(OpenEnvelope(kKind, huge).status().message(), "serialized test payload is truncated");
}

TEST(EnvelopeTest, WrongMagicOrVersionIsClear) {
  const std::string bytes = SealEnvelope(kKind, "{}", "");
  constexpr EnvelopeKind kOther{{'O', 'T', 'H', 'R'}, 3, "other payload"};
  EXPECT_EQ(OpenEnvelope(kOther, bytes).status().message(), "not a serialized other payload");

  constexpr EnvelopeKind kNewer{{'T', 'E', 'S', 'T'}, 4, "test payload"};
  auto st = OpenEnvelope(kNewer, bytes).status();
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_EQ(st.message(), "serialized test payload has payload version 3 (expected 4)");

  std::string future = bytes;
  future.replace(4, 2, std::string("\x02\x00", 2));
  st = OpenEnvelope(kKind, future).status();
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_EQ(st.message(), "serialized test payload has envelope version 2 (expected 1)");
}

TEST(HexTest, RoundTripAndErrors) {
  const std::string bytes("\x00\x01\x7f\x80\xff", 5);
  EXPECT_EQ(ToHex(bytes), "00017f80ff");
  EXPECT_EQ(FromHex("00017f80ff").ValueOrDie(), bytes);
  EXPECT_EQ(FromHex("ABcd").ValueOrDie(), "\xab\xcd");
  EXPECT_EQ(FromHex("").ValueOrDie(), "");
  EXPECT_TRUE(FromHex("abc").status().IsInvalid());
  EXPECT_TRUE(FromHex("zz").status().IsInvalid());
}

TEST(LittleEndianTest, LoadAndAppend) {
  std::string out;
  AppendLE<uint32_t>(&out, 0x01020304u);
  AppendLE<int16_t>(&out, -2);
  AppendLE<int64_t>(&out, int64_t{-1} << 40);
  ASSERT_EQ(out.size(), 14u);
  EXPECT_EQ(out.substr(0, 4), std::string("\x04\x03\x02\x01", 4));
  EXPECT_EQ(out.substr(4, 2), std::string("\xfe\xff", 2));
  EXPECT_EQ(LoadLE<uint32_t>(out.data()), 0x01020304u);
  EXPECT_EQ(LoadLE<int16_t>(out.data() + 4), -2);
  EXPECT_EQ(LoadLE<int64_t>(out.data() + 6), int64_t{-1} << 40);
  EXPECT_EQ(LoadLE<uint8_t>(out.data() + 5), 0xffu);
}

}  // namespace
}  // namespace paimon_rowid
