#include "paimon_rowid/codec/bucket_function.h"

#include <gtest/gtest.h>

#include <random>

#include "arrow/array.h"
#include "arrow/builder.h"
#include "arrow/scalar.h"
#include "arrow/type.h"
#include "arrow/util/decimal.h"
#include "paimon_rowid/codec/binary_row.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

using ArrayVector = std::vector<std::shared_ptr<arrow::Array>>;

std::shared_ptr<arrow::Array> Int64s(const std::vector<std::optional<int64_t>>& values) {
  arrow::Int64Builder b;
  for (const auto& v : values) {
    if (v) {
      EXPECT_OK(b.Append(*v));
    } else {
      EXPECT_OK(b.AppendNull());
    }
  }
  return b.Finish().ValueOrDie();
}

std::shared_ptr<arrow::Array> Int32s(const std::vector<int32_t>& values) {
  arrow::Int32Builder b;
  EXPECT_OK(b.AppendValues(values));
  return b.Finish().ValueOrDie();
}

std::shared_ptr<arrow::Array> Strings(const std::vector<std::string>& values) {
  arrow::StringBuilder b;
  EXPECT_OK(b.AppendValues(values));
  return b.Finish().ValueOrDie();
}

std::vector<int32_t> Buckets(BucketFunctionType type, const ArrayVector& keys, int32_t n) {
  std::vector<std::shared_ptr<arrow::DataType>> types;
  for (const auto& k : keys) types.push_back(k->type());
  auto fn = BucketFunction::Make(type, types).ValueOrDie();
  return fn->Buckets(keys, n).ValueOrDie();
}

int32_t RowHash(const ArrayVector& keys, int64_t i) {
  auto encoder = BinaryRowEncoder::Make(keys).ValueOrDie();
  return HashBytesByWords(encoder.Row(i).ValueOrDie());
}

// Reference values computed with pypaimon 2.1.0's FixedBucketRowKeyExtractor (an independent
// implementation of Java's BinaryRow.hashCode), 7 buckets.
TEST(BucketFunctionTest, DefaultMatchesReferenceHashes) {
  auto bigints =
      Int64s({0, 1, -1, 42, 123456789012LL, std::numeric_limits<int64_t>::min(), std::nullopt});
  std::vector<int32_t> hashes = {-300363099, 1465514398, -821098432, 907821237,
                                 -290760731, 302122119,  -1748325344};
  for (int64_t i = 0; i < bigints->length(); ++i) EXPECT_EQ(RowHash({bigints}, i), hashes[i]);
  EXPECT_EQ(Buckets(BucketFunctionType::kDefault, {bigints}, 7),
            (std::vector<int32_t>{1, 5, 0, 1, 2, 5, 3}));

  auto ints = Int32s({0, 7, -5, 2147483647});
  EXPECT_EQ(Buckets(BucketFunctionType::kDefault, {ints}, 7), (std::vector<int32_t>{1, 3, 2, 5}));
  EXPECT_EQ(RowHash({ints}, 2), -343067111);

  auto strings =
      Strings({"", "a", "abcdefg", "abcdefgh", "hello world, paimon", "\xc3\xa9\xe2\x9c\x93"});
  std::vector<int32_t> string_hashes = {302122119,  943281246,   -1431907323,
                                        -843760178, -2034202288, -1041949794};
  for (int64_t i = 0; i < strings->length(); ++i) {
    EXPECT_EQ(RowHash({strings}, i), string_hashes[i]) << i;
  }
  EXPECT_EQ(Buckets(BucketFunctionType::kDefault, {strings}, 7),
            (std::vector<int32_t>{5, 5, 0, 2, 6, 4}));

  // A two-column key (INT, STRING) = (5, "xyz12345").
  EXPECT_EQ(RowHash({Int32s({5}), Strings({"xyz12345"})}, 0), -728326518);
}

// The encoder's rows are EncodeBinaryRow's bytes minus the arity prefix, for every type.
TEST(BucketFunctionTest, EncoderMatchesScalarEncoding) {
  std::mt19937_64 rng(7);
  const int64_t n = 200;
  arrow::Int16Builder i16;
  arrow::DoubleBuilder f64;
  arrow::LargeStringBuilder str;
  arrow::BinaryBuilder bin;
  arrow::Decimal128Builder small_dec(arrow::decimal128(10, 2));
  arrow::Decimal128Builder big_dec(arrow::decimal128(30, 4));
  arrow::TimestampBuilder ts_us(arrow::timestamp(arrow::TimeUnit::MICRO),
                                arrow::default_memory_pool());
  arrow::Date32Builder date;
  arrow::BooleanBuilder boolean;
  for (int64_t i = 0; i < n; ++i) {
    bool null = rng() % 9 == 0;
    int64_t v = static_cast<int64_t>(rng());
    std::string s(rng() % 20, static_cast<char>('a' + rng() % 26));
    if (null) {
      ASSERT_OK(i16.AppendNull());
      ASSERT_OK(f64.AppendNull());
      ASSERT_OK(str.AppendNull());
      ASSERT_OK(bin.AppendNull());
      ASSERT_OK(small_dec.AppendNull());
      ASSERT_OK(big_dec.AppendNull());
      ASSERT_OK(ts_us.AppendNull());
      ASSERT_OK(date.AppendNull());
      ASSERT_OK(boolean.AppendNull());
      continue;
    }
    ASSERT_OK(i16.Append(static_cast<int16_t>(v)));
    ASSERT_OK(f64.Append(static_cast<double>(v) / 3.0));
    ASSERT_OK(str.Append(s));
    ASSERT_OK(bin.Append(s + s));
    ASSERT_OK(small_dec.Append(arrow::Decimal128(v % 1000000000)));
    ASSERT_OK(big_dec.Append(arrow::Decimal128(v, static_cast<uint64_t>(v))));
    ASSERT_OK(ts_us.Append(v >> 8));
    ASSERT_OK(date.Append(static_cast<int32_t>(v % 100000)));
    ASSERT_OK(boolean.Append(v % 2 == 0));
  }
  ArrayVector columns;
  for (arrow::ArrayBuilder* b : std::vector<arrow::ArrayBuilder*>{
           &i16, &f64, &str, &bin, &small_dec, &big_dec, &ts_us, &date, &boolean}) {
    ASSERT_OK_AND_ASSIGN(auto a, b->Finish());
    columns.push_back(a);
  }
  ASSERT_OK_AND_ASSIGN(auto encoder, BinaryRowEncoder::Make(columns));
  for (int64_t i = 0; i < n; ++i) {
    std::vector<std::shared_ptr<arrow::Scalar>> scalars;
    for (const auto& c : columns) scalars.push_back(c->GetScalar(i).ValueOrDie());
    ASSERT_OK_AND_ASSIGN(std::string expected, EncodeBinaryRow(scalars));
    ASSERT_OK_AND_ASSIGN(std::string_view row, encoder.Row(i));
    ASSERT_EQ(std::string(row), expected.substr(4)) << "row " << i;
  }
}

TEST(BucketFunctionTest, ModIsFloorMod) {
  EXPECT_EQ(Buckets(BucketFunctionType::kMod, {Int32s({17, -3, 5, 0})}, 5),
            (std::vector<int32_t>{2, 2, 0, 0}));
  EXPECT_EQ(Buckets(BucketFunctionType::kMod, {Int64s({-1, std::nullopt, 1LL << 40})}, 3),
            (std::vector<int32_t>{2, 0, static_cast<int32_t>((1LL << 40) % 3)}));
  EXPECT_RAISES(Invalid, BucketFunction::Make(BucketFunctionType::kMod, {arrow::utf8()}));
  EXPECT_RAISES(Invalid,
                BucketFunction::Make(BucketFunctionType::kMod, {arrow::int32(), arrow::int32()}));
}

TEST(BucketFunctionTest, HiveHashes) {
  // Hive: an int hashes to itself, a string to Java's 31 * h + signed byte; (h & MAX) % n.
  EXPECT_EQ(Buckets(BucketFunctionType::kHive, {Int32s({7, -7, 100})}, 8),
            (std::vector<int32_t>{7, (-7 & 0x7fffffff) % 8, 4}));
  int32_t abc = ('a' * 31 + 'b') * 31 + 'c';
  EXPECT_EQ(Buckets(BucketFunctionType::kHive, {Strings({"abc"})}, 1000),
            (std::vector<int32_t>{abc % 1000}));
  // Two fields: 31 * hash(first) + hash(second).
  EXPECT_EQ(Buckets(BucketFunctionType::kHive, {Int32s({2}), Int32s({3})}, 100),
            (std::vector<int32_t>{(31 * 2 + 3) % 100}));
  // BIGINT: (int)(v ^ (v >>> 32)).
  int64_t big = (int64_t{5} << 32) | 9;
  EXPECT_EQ(Buckets(BucketFunctionType::kHive, {Int64s({big})}, 100),
            (std::vector<int32_t>{(5 ^ 9) % 100}));
  EXPECT_RAISES(Invalid,
                BucketFunction::Make(BucketFunctionType::kHive, {arrow::decimal128(10, 2)}));
}

TEST(BucketFunctionTest, ParsesTypeNames) {
  ASSERT_OK_AND_ASSIGN(auto t, ParseBucketFunctionType("DEFAULT"));
  EXPECT_EQ(t, BucketFunctionType::kDefault);
  ASSERT_OK_AND_ASSIGN(t, ParseBucketFunctionType("mod"));
  EXPECT_EQ(t, BucketFunctionType::kMod);
  ASSERT_OK_AND_ASSIGN(t, ParseBucketFunctionType("Hive"));
  EXPECT_EQ(t, BucketFunctionType::kHive);
  EXPECT_RAISES(Invalid, ParseBucketFunctionType("murmur"));
}

TEST(BucketFunctionTest, RefusesBadInput) {
  EXPECT_RAISES(Invalid, BucketFunction::Make(BucketFunctionType::kDefault, {}));
  EXPECT_RAISES(NotImplemented,
                BucketFunction::Make(BucketFunctionType::kDefault, {arrow::list(arrow::int32())}));
  auto fn = BucketFunction::Make(BucketFunctionType::kDefault, {arrow::int64()}).ValueOrDie();
  EXPECT_RAISES(Invalid, fn->Buckets({Int64s({1})}, 0));
}

}  // namespace
}  // namespace paimon_rowid
