#include "paimon_rowid/codec/binary_row.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "arrow/scalar.h"
#include "arrow/type.h"
#include "arrow/util/decimal.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

using ScalarVector = std::vector<std::shared_ptr<arrow::Scalar>>;
using TypeVector = std::vector<std::shared_ptr<arrow::DataType>>;

std::string Hex(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out += ' ';
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::shared_ptr<arrow::Scalar> Str(const std::string& s) {
  return std::make_shared<arrow::StringScalar>(s);
}

TEST(BinaryRowTest, WorkedExamplesFromTheFormatDoc) {
  auto encoded = EncodeBinaryRow({Str("20240514")});
  ASSERT_OK(encoded);
  EXPECT_EQ(Hex(*encoded),
            "00 00 00 01 00 00 00 00 00 00 00 00 08 00 00 00 10 00 00 00 "
            "32 30 32 34 30 35 31 34");

  auto inline_value = EncodeBinaryRow({Str("ab")});
  ASSERT_OK(inline_value);
  ASSERT_EQ(inline_value->size(), 20u);
  EXPECT_EQ(Hex(inline_value->substr(12)), "61 62 00 00 00 00 00 82");

  auto empty = EncodeBinaryRow({});
  ASSERT_OK(empty);
  EXPECT_EQ(*empty, EmptySerializedBinaryRow());
  EXPECT_EQ(EmptySerializedBinaryRow(), std::string(12, '\0'));
  EXPECT_EQ(*SerializedBinaryRowArity(*encoded), 1);
  EXPECT_EQ(*SerializedBinaryRowArity(*empty), 0);
  EXPECT_FALSE(SerializedBinaryRowArity("abc").ok());
}

TEST(BinaryRowTest, NullBitsAndHeaderWidth) {
  // Bit i + 8 marks field i; 56 fields still fit one header word, 57 + 8 = 65 bits do not.
  ScalarVector values;
  for (int i = 0; i < 56; ++i) values.push_back(arrow::MakeNullScalar(arrow::int32()));
  auto one_word = EncodeBinaryRow(values);
  ASSERT_OK(one_word);
  EXPECT_EQ(one_word->size(), 4u + 8 + 8 * 56);
  values.push_back(arrow::MakeNullScalar(arrow::int32()));
  auto two_words = EncodeBinaryRow(values);
  ASSERT_OK(two_words);
  EXPECT_EQ(two_words->size(), 4u + 16 + 8 * 57);
  EXPECT_EQ(static_cast<uint8_t>((*two_words)[4]), 0);      // RowKind +I
  EXPECT_EQ(static_cast<uint8_t>((*two_words)[5]), 0xFF);   // fields 0..7
  EXPECT_EQ(static_cast<uint8_t>((*two_words)[12]), 0x01);  // field 56 = bit 64
}

std::string Show(const ScalarVector& values) {
  std::string out;
  for (const auto& v : values) out += v->type->ToString() + "=" + v->ToString() + ";";
  return out;
}

void ExpectRoundTrip(const ScalarVector& values) {
  TypeVector types;
  for (const auto& v : values) types.push_back(v->type);
  auto encoded = EncodeBinaryRow(values);
  ASSERT_OK(encoded);
  auto decoded = DecodeBinaryRow(*encoded, types);
  ASSERT_OK(decoded);
  ASSERT_EQ(decoded->size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_TRUE((*decoded)[i]->Equals(*values[i]))
        << "field " << i << ": " << (*decoded)[i]->ToString() << " vs " << values[i]->ToString();
  }
  // Every truncation of the row is an error or a clean decode, never a crash.
  for (size_t len = 0; len < encoded->size(); ++len) {
    (void)DecodeBinaryRow(std::string_view(*encoded).substr(0, len), types);
  }
}

arrow::Decimal128 Dec(const std::string& s) { return *arrow::Decimal128::FromString(s); }

ScalarVector AllTypes() {
  auto ts = [](arrow::TimeUnit::type unit, int64_t v) {
    return std::make_shared<arrow::TimestampScalar>(v, arrow::timestamp(unit));
  };
  return {
      std::make_shared<arrow::BooleanScalar>(true),
      std::make_shared<arrow::BooleanScalar>(false),
      std::make_shared<arrow::Int8Scalar>(-128),
      std::make_shared<arrow::Int16Scalar>(-30000),
      std::make_shared<arrow::Int32Scalar>(-2000000000),
      std::make_shared<arrow::Int64Scalar>(INT64_MIN),
      std::make_shared<arrow::FloatScalar>(-1.25f),
      std::make_shared<arrow::DoubleScalar>(3.141592653589793),
      std::make_shared<arrow::Date32Scalar>(19857),
      std::make_shared<arrow::Time32Scalar>(86399999, arrow::time32(arrow::TimeUnit::MILLI)),
      Str(""),
      Str("seven77"),
      Str("eight888"),
      Str("a string well beyond seven bytes, with unicode \xc3\xa9"),
      std::make_shared<arrow::LargeStringScalar>("large string value"),
      std::make_shared<arrow::BinaryScalar>(
          arrow::Buffer::FromString(std::string("\0\x01\xff", 3))),
      std::make_shared<arrow::LargeBinaryScalar>(arrow::Buffer::FromString("blob bytes > 7")),
      std::make_shared<arrow::Decimal128Scalar>(Dec("-12345.67"), arrow::decimal128(10, 2)),
      std::make_shared<arrow::Decimal128Scalar>(Dec("999999999999999999"),
                                                arrow::decimal128(18, 0)),
      std::make_shared<arrow::Decimal128Scalar>(Dec("0"), arrow::decimal128(38, 10)),
      std::make_shared<arrow::Decimal128Scalar>(Dec("-1"), arrow::decimal128(20, 0)),
      std::make_shared<arrow::Decimal128Scalar>(Dec("99999999999999999999999999999999999999"),
                                                arrow::decimal128(38, 0)),
      std::make_shared<arrow::Decimal128Scalar>(Dec("-9999999999999999999999.9999999999999999"),
                                                arrow::decimal128(38, 16)),
      ts(arrow::TimeUnit::MILLI, 1715644800123),
      ts(arrow::TimeUnit::MILLI, -1),
      ts(arrow::TimeUnit::SECOND, 1715644800),
      ts(arrow::TimeUnit::MICRO, 1715644800123456),
      ts(arrow::TimeUnit::MICRO, -1),
      ts(arrow::TimeUnit::NANO, 1715644800123456789),
      ts(arrow::TimeUnit::NANO, -999999999),
      std::make_shared<arrow::TimestampScalar>(5, arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
  };
}

// The same values serialized by pypaimon 2.1.0 (GenericRowSerializer.to_bytes, types
// BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DATE, STRING x2, BYTES,
// DECIMAL(10,2), DECIMAL(20,0), TIMESTAMP(3), TIMESTAMP(6), INT null).
TEST(BinaryRowTest, MatchesPypaimonBytes) {
  const std::string expected_hex =
      "0000001000008000000000000100000000000000fb00000000000000d4fe0000"
      "0000000040e20100000000000000000000ffffff0000c03f0000000000000000"
      "000002c0914d0000000000006162000000000082100000008800000009000000"
      "980000007929edffffffffff02000000a800000073eb9e748f01000040f50600"
      "b8000000000000000000000061206c6f6e67657220737472696e672100010203"
      "040506070800000000000000ff7f000000000000000000000000000073eb9e74"
      "8f010000";
  ScalarVector values = {
      std::make_shared<arrow::BooleanScalar>(true),
      std::make_shared<arrow::Int8Scalar>(-5),
      std::make_shared<arrow::Int16Scalar>(-300),
      std::make_shared<arrow::Int32Scalar>(123456),
      std::make_shared<arrow::Int64Scalar>(-(int64_t{1} << 40)),
      std::make_shared<arrow::FloatScalar>(1.5f),
      std::make_shared<arrow::DoubleScalar>(-2.25),
      std::make_shared<arrow::Date32Scalar>(19857),
      Str("ab"),
      Str("a longer string!"),
      std::make_shared<arrow::BinaryScalar>(
          arrow::Buffer::FromString(std::string("\0\1\2\3\4\5\6\7\x08", 9))),
      std::make_shared<arrow::Decimal128Scalar>(Dec("-12345.67"), arrow::decimal128(10, 2)),
      std::make_shared<arrow::Decimal128Scalar>(Dec("-129"), arrow::decimal128(20, 0)),
      std::make_shared<arrow::TimestampScalar>(1715648523123,
                                               arrow::timestamp(arrow::TimeUnit::MILLI)),
      std::make_shared<arrow::TimestampScalar>(1715648523123456,
                                               arrow::timestamp(arrow::TimeUnit::MICRO)),
      arrow::MakeNullScalar(arrow::int32()),
  };
  auto encoded = EncodeBinaryRow(values);
  ASSERT_OK(encoded);
  std::string hex = Hex(*encoded);
  hex.erase(std::remove(hex.begin(), hex.end(), ' '), hex.end());
  EXPECT_EQ(hex, expected_hex);
  ExpectRoundTrip(values);
}

TEST(BinaryRowTest, RoundTripsEveryType) { ExpectRoundTrip(AllTypes()); }

TEST(BinaryRowTest, RoundTripsNullsOfEveryType) {
  ScalarVector values;
  for (const auto& v : AllTypes()) {
    values.push_back(arrow::MakeNullScalar(v->type));
    values.push_back(v);
  }
  ExpectRoundTrip(values);
}

TEST(BinaryRowTest, DecimalAndTimestampLayouts) {
  // p > 18: minimal big-endian bytes in a 16-byte var slot; slot = offset << 32 | length.
  auto big = EncodeBinaryRow(
      {std::make_shared<arrow::Decimal128Scalar>(Dec("-129"), arrow::decimal128(20, 0))});
  ASSERT_OK(big);
  ASSERT_EQ(big->size(), 4u + 16 + 16);
  EXPECT_EQ(Hex(big->substr(12, 8)), "02 00 00 00 10 00 00 00");
  EXPECT_EQ(Hex(big->substr(20)), "ff 7f 00 00 00 00 00 00 00 00 00 00 00 00 00 00");

  // p <= 18: the unscaled long in the slot.
  auto compact = EncodeBinaryRow(
      {std::make_shared<arrow::Decimal128Scalar>(Dec("-1"), arrow::decimal128(5, 0))});
  ASSERT_OK(compact);
  EXPECT_EQ(Hex(compact->substr(12)), "ff ff ff ff ff ff ff ff");

  // Microsecond timestamp: millis in the var part, nano-of-milli (456000) in the slot.
  auto micros = EncodeBinaryRow({std::make_shared<arrow::TimestampScalar>(
      1123456, arrow::timestamp(arrow::TimeUnit::MICRO))});
  ASSERT_OK(micros);
  EXPECT_EQ(Hex(micros->substr(12)), "40 f5 06 00 10 00 00 00 63 04 00 00 00 00 00 00");

  // Java reserves the var bytes of a null high-precision value too.
  auto null_big = EncodeBinaryRow({arrow::MakeNullScalar(arrow::decimal128(20, 0))});
  ASSERT_OK(null_big);
  EXPECT_EQ(null_big->size(), 4u + 16 + 16);
  EXPECT_EQ(Hex(null_big->substr(12, 8)), "00 00 00 00 10 00 00 00");

  // A value that does not fit a compact precision is rejected, not truncated.
  EXPECT_FALSE(EncodeBinaryRow({std::make_shared<arrow::Decimal128Scalar>(
                                   Dec("99999999999999999999"), arrow::decimal128(18, 0))})
                   .ok());
}

TEST(BinaryRowTest, DecodeRejectsBadInput) {
  auto encoded = *EncodeBinaryRow({Str("20240514")});
  EXPECT_FALSE(DecodeBinaryRow(encoded, {}).ok());  // arity mismatch
  EXPECT_FALSE(DecodeBinaryRow(encoded, {arrow::utf8(), arrow::utf8()}).ok());
  EXPECT_FALSE(DecodeBinaryRow(encoded.substr(0, 20), {arrow::utf8()}).ok());  // var part cut
  std::string bad_offset = encoded;
  bad_offset[16] = 0x7F;  // offset far beyond the row
  EXPECT_FALSE(DecodeBinaryRow(bad_offset, {arrow::utf8()}).ok());
  std::string bad_length = encoded;
  bad_length[12] = 0x09;  // 9 bytes from offset 16 run past the end
  EXPECT_FALSE(DecodeBinaryRow(bad_length, {arrow::utf8()}).ok());
  std::string negative_arity = encoded;
  negative_arity[0] = static_cast<char>(0x80);
  EXPECT_FALSE(DecodeBinaryRow(negative_arity, {arrow::utf8()}).ok());
  EXPECT_RAISES(NotImplemented, DecodeBinaryRow(encoded, {arrow::list(arrow::int32())}));
  EXPECT_OK(EncodeBinaryRow({arrow::MakeNullScalar(arrow::list(arrow::int32()))}));  // null only
}

// Found by fuzz/fuzz_binary_row: a TIMESTAMP(0) slot within a second of INT64_MIN millis
// decoded to seconds the encoder cannot write back; it is out of range, like the other units.
TEST(BinaryRowTest, SecondTimestampsNearTheLimitAreOutOfRange) {
  const auto ts_ms = arrow::timestamp(arrow::TimeUnit::MILLI);
  const auto ts_s = arrow::timestamp(arrow::TimeUnit::SECOND);
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  for (int64_t millis : {kMin, kMin + 807, kMin + 808}) {
    auto row = *EncodeBinaryRow({std::make_shared<arrow::TimestampScalar>(millis, ts_ms)});
    auto decoded = DecodeBinaryRow(row, {ts_s});
    if (millis < kMin + 808) {
      EXPECT_RAISES(Invalid, decoded) << millis;
      continue;
    }
    ASSERT_OK(decoded);
    auto again = EncodeBinaryRow(*decoded);
    ASSERT_OK(again);
    EXPECT_EQ(*again, row);
  }
}

TEST(BinaryRowTest, BitFlipsNeverCrash) {
  ScalarVector values = AllTypes();
  TypeVector types;
  for (const auto& v : values) types.push_back(v->type);
  std::string encoded = *EncodeBinaryRow(values);
  for (size_t bit = 0; bit < encoded.size() * 8; ++bit) {
    std::string flipped = encoded;
    flipped[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    (void)DecodeBinaryRow(flipped, types);
  }
}

}  // namespace
}  // namespace paimon_rowid
