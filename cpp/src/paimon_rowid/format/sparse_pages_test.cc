// GatherSparsePages on hand-built pages: run layouts the writers' files rarely hold (wide
// bit-packed dictionary indices across runs, nulls inside literal level runs, V2 pages) and
// malformed pages. Files of real writers are covered by parquet_io_test.cc.
#include "paimon_rowid/format/sparse_pages.h"

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <optional>
#include <random>

#include "arrow/array.h"
#include "arrow/buffer.h"
#include "arrow/builder.h"
#include "arrow/memory_pool.h"
#include "parquet/column_page.h"
#include "parquet/schema.h"

namespace paimon_rowid::format_internal {
namespace {

using Bytes = std::vector<uint8_t>;

void PutVarint(uint64_t v, Bytes* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));
}

void PutLE32(uint32_t v, Bytes* out) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// The RLE / bit-packed hybrid encoding of `values`, alternating a run-length run of
// `rle_count` copies of the next value with a bit-packed run of `packed_groups` groups.
Bytes Hybrid(const std::vector<uint32_t>& values, int bit_width, int rle_count, int packed_groups) {
  Bytes out;
  size_t i = 0;
  bool rle = true;
  while (i < values.size()) {
    if (rle) {
      size_t n = std::min<size_t>(static_cast<size_t>(rle_count), values.size() - i);
      // Only a run of equal values can be run-length encoded: shorten it to those.
      size_t same = 1;
      while (same < n && values[i + same] == values[i]) ++same;
      PutVarint(same << 1, &out);
      for (int b = 0; b < (bit_width + 7) / 8; ++b) {
        out.push_back(static_cast<uint8_t>(values[i] >> (8 * b)));
      }
      i += same;
    } else {
      const size_t n = std::min<size_t>(static_cast<size_t>(packed_groups) * 8, values.size() - i);
      const size_t groups = (n + 7) / 8;
      PutVarint((groups << 1) | 1, &out);
      Bytes packed(groups * static_cast<size_t>(bit_width), 0);
      for (size_t k = 0; k < n; ++k) {
        for (int b = 0; b < bit_width; ++b) {
          if ((values[i + k] >> b) & 1) {
            const size_t bit = k * static_cast<size_t>(bit_width) + static_cast<size_t>(b);
            packed[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
          }
        }
      }
      out.insert(out.end(), packed.begin(), packed.end());
      i += n;
    }
    rle = !rle;
  }
  return out;
}

std::shared_ptr<arrow::Buffer> ToBuffer(const Bytes& bytes) {
  return arrow::Buffer::FromString(std::string(bytes.begin(), bytes.end()));
}

struct Column {
  parquet::SchemaDescriptor schema;
  const parquet::ColumnDescriptor* descr() const { return schema.Column(0); }
};

std::unique_ptr<Column> MakeColumn(parquet::Type::type physical, bool optional,
                                   std::shared_ptr<const parquet::LogicalType> logical = nullptr) {
  auto column = std::make_unique<Column>();
  auto leaf = parquet::schema::PrimitiveNode::Make(
      "v", optional ? parquet::Repetition::OPTIONAL : parquet::Repetition::REQUIRED,
      logical ? logical : parquet::LogicalType::None(), physical);
  column->schema.Init(
      parquet::schema::GroupNode::Make("schema", parquet::Repetition::REQUIRED, {leaf}));
  return column;
}

std::shared_ptr<parquet::Page> Dictionary(const std::vector<int64_t>& values) {
  Bytes bytes(values.size() * 8);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return std::make_shared<parquet::DictionaryPage>(
      ToBuffer(bytes), static_cast<int32_t>(values.size()), parquet::Encoding::PLAIN);
}

std::shared_ptr<parquet::Page> V1(const Bytes& levels, const Bytes& values, int32_t rows,
                                  parquet::Encoding::type encoding) {
  Bytes bytes;
  if (!levels.empty()) {
    PutLE32(static_cast<uint32_t>(levels.size()), &bytes);
    bytes.insert(bytes.end(), levels.begin(), levels.end());
  }
  bytes.insert(bytes.end(), values.begin(), values.end());
  return std::make_shared<parquet::DataPageV1>(ToBuffer(bytes), rows, encoding,
                                               parquet::Encoding::RLE, parquet::Encoding::RLE,
                                               static_cast<int64_t>(bytes.size()));
}

std::shared_ptr<parquet::Page> V2(const Bytes& levels, const Bytes& values, int32_t rows,
                                  int32_t nulls, parquet::Encoding::type encoding) {
  Bytes bytes = levels;
  bytes.insert(bytes.end(), values.begin(), values.end());
  return std::make_shared<parquet::DataPageV2>(ToBuffer(bytes), rows, nulls, rows, encoding,
                                               static_cast<int32_t>(levels.size()), 0,
                                               static_cast<int64_t>(bytes.size()));
}

// Dictionary indices as a page's values: the bit width byte, then the hybrid runs.
Bytes Indices(const std::vector<uint32_t>& indices, int bit_width, int rle, int groups) {
  Bytes out{static_cast<uint8_t>(bit_width)};
  Bytes runs = Hybrid(indices, bit_width, rle, groups);
  out.insert(out.end(), runs.begin(), runs.end());
  return out;
}

Result<std::shared_ptr<arrow::Array>> Gather(const Column& column,
                                             std::deque<std::shared_ptr<parquet::Page>> pages,
                                             const std::vector<RowRange>& kept,
                                             const std::vector<RowRange>& wanted,
                                             const std::shared_ptr<arrow::DataType>& type) {
  PageListReader reader(std::move(pages));
  return GatherSparsePages(&reader, *column.descr(), kept, wanted, type,
                           arrow::default_memory_pool());
}

std::shared_ptr<arrow::Array> Expected(const std::vector<std::optional<int64_t>>& rows,
                                       const std::vector<RowRange>& wanted) {
  arrow::Int64Builder b;
  for (const auto& r : wanted) {
    for (int64_t i = r.from; i <= r.to; ++i) {
      const auto& v = rows[static_cast<size_t>(i)];
      EXPECT_TRUE((v ? b.Append(*v) : b.AppendNull()).ok());
    }
  }
  return b.Finish().ValueOrDie();
}

TEST(SparsePagesTest, DictionaryIndicesAndNullsAcrossRunsAndPages) {
  std::mt19937_64 rng(7);
  auto column = MakeColumn(parquet::Type::INT64, /*optional=*/true);
  // 3,000 dictionary entries: 12-bit indices.
  std::vector<int64_t> dict;
  for (int i = 0; i < 3000; ++i) dict.push_back(i * 1000 + 17);
  std::deque<std::shared_ptr<parquet::Page>> pages{Dictionary(dict)};
  std::vector<std::optional<int64_t>> rows;
  const int kPages = 4;
  const int kRows = 700;
  for (int p = 0; p < kPages; ++p) {
    std::vector<uint32_t> levels;
    std::vector<uint32_t> indices;
    for (int i = 0; i < kRows; ++i) {
      // Long stretches of values, then stretches with nulls mixed in.
      const bool valid = (i / 50) % 2 == 0 || rng() % 3 != 0;
      levels.push_back(valid ? 1 : 0);
      if (!valid) {
        rows.emplace_back(std::nullopt);
        continue;
      }
      // Runs of repeated indices, then random ones.
      const uint32_t index = (i / 40) % 3 == 0 ? 5u : static_cast<uint32_t>(rng() % 3000);
      indices.push_back(index);
      rows.emplace_back(dict[index]);
    }
    Bytes level_bytes = Hybrid(levels, 1, 50, 3);
    Bytes value_bytes = Indices(indices, 12, 40, 2 + p);
    if (p % 2 == 0) {
      pages.push_back(V1(level_bytes, value_bytes, kRows, parquet::Encoding::RLE_DICTIONARY));
    } else {
      int32_t nulls = 0;
      for (uint32_t l : levels) nulls += l == 0;
      pages.push_back(
          V2(level_bytes, value_bytes, kRows, nulls, parquet::Encoding::RLE_DICTIONARY));
    }
  }
  const int64_t total = kPages * kRows;
  const std::vector<RowRange> all{{0, total - 1}};
  for (int round = 0; round < 20; ++round) {
    std::vector<RowRange> wanted;
    for (int64_t r = static_cast<int64_t>(rng() % 30); r < total;
         r += 1 + static_cast<int64_t>(rng() % 90)) {
      const int64_t to = std::min(total - 1, r + static_cast<int64_t>(rng() % (round % 4 + 1)));
      wanted.push_back({r, to});
      r = to;
    }
    auto got = Gather(*column, pages, all, wanted, arrow::int64());
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE((*got)->Equals(*Expected(rows, wanted))) << "round " << round;
  }
}

TEST(SparsePagesTest, KeptRowsPlacePagesAndPlainStrings) {
  // Two kept pages of a required string column: rows [100, 104] and [300, 302].
  auto column =
      MakeColumn(parquet::Type::BYTE_ARRAY, /*optional=*/false, parquet::LogicalType::String());
  auto plain = [](const std::vector<std::string>& values) {
    Bytes out;
    for (const auto& v : values) {
      PutLE32(static_cast<uint32_t>(v.size()), &out);
      out.insert(out.end(), v.begin(), v.end());
    }
    return out;
  };
  std::deque<std::shared_ptr<parquet::Page>> pages{
      V1({}, plain({"a", "", "ccc", "dd", "e"}), 5, parquet::Encoding::PLAIN),
      V1({}, plain({"x", "yy", "zzz"}), 3, parquet::Encoding::PLAIN)};
  auto got =
      Gather(*column, pages, {{100, 104}, {300, 302}}, {{101, 103}, {302, 302}}, arrow::utf8());
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  arrow::StringBuilder b;
  ASSERT_TRUE(b.AppendValues({"", "ccc", "dd", "zzz"}).ok());
  EXPECT_TRUE((*got)->Equals(*b.Finish().ValueOrDie())) << (*got)->ToString();
}

TEST(SparsePagesTest, ADictionaryPageOfItsOwnIsReadInPlace) {
  // 20,000 distinct strings (~300 KB of dictionary), two pages of indices into them.
  auto column =
      MakeColumn(parquet::Type::BYTE_ARRAY, /*optional=*/false, parquet::LogicalType::String());
  std::vector<std::string> dict;
  Bytes dict_bytes;
  for (int i = 0; i < 20000; ++i) {
    dict.push_back("value-" + std::to_string(i * 7919));
    PutLE32(static_cast<uint32_t>(dict.back().size()), &dict_bytes);
    dict_bytes.insert(dict_bytes.end(), dict.back().begin(), dict.back().end());
  }
  auto dictionary_page = std::make_shared<parquet::DictionaryPage>(
      ToBuffer(dict_bytes), static_cast<int32_t>(dict.size()), parquet::Encoding::PLAIN);
  std::mt19937_64 rng(3);
  std::vector<uint32_t> indices;
  for (int i = 0; i < 2000; ++i) indices.push_back(static_cast<uint32_t>(rng() % dict.size()));
  auto data_page = [&](int p) {
    std::vector<uint32_t> part(indices.begin() + p * 1000, indices.begin() + (p + 1) * 1000);
    return V1({}, Indices(part, 15, 4, 6), 1000, parquet::Encoding::RLE_DICTIONARY);
  };
  const std::vector<RowRange> kept{{0, 1999}};
  const std::vector<RowRange> wanted{{3, 3}, {500, 510}, {1999, 1999}};
  arrow::StringBuilder b;
  for (const auto& r : wanted) {
    for (int64_t i = r.from; i <= r.to; ++i) {
      ASSERT_TRUE(b.Append(dict[indices[static_cast<size_t>(i)]]).ok());
    }
  }
  auto expected = b.Finish().ValueOrDie();

  // One reader for every page: the dictionary is copied out of it (into the pool).
  arrow::ProxyMemoryPool copied(arrow::default_memory_pool());
  PageListReader all({dictionary_page, data_page(0), data_page(1)});
  auto one = GatherSparsePages(&all, *column->descr(), kept, wanted, arrow::utf8(), &copied);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_TRUE((*one)->Equals(*expected));
  EXPECT_GE(copied.max_memory(), static_cast<int64_t>(dict_bytes.size()));

  // A reader of its own for the dictionary: read where it is, nothing of its size allocated.
  arrow::ProxyMemoryPool in_place(arrow::default_memory_pool());
  PageListReader dictionary_only({dictionary_page});
  PageListReader data_only({data_page(0), data_page(1)});
  auto two = GatherSparsePages(&data_only, *column->descr(), kept, wanted, arrow::utf8(), &in_place,
                               &dictionary_only);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_TRUE((*two)->Equals(*expected));
  EXPECT_LT(in_place.max_memory(), static_cast<int64_t>(dict_bytes.size()) / 10);

  // A dictionary reader that yields no dictionary page: the chunk's metadata lied.
  PageListReader not_a_dictionary({data_page(0)});
  PageListReader rest({data_page(1)});
  auto bad = GatherSparsePages(&rest, *column->descr(), kept, wanted, arrow::utf8(),
                               arrow::default_memory_pool(), &not_a_dictionary);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsIOError()) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("no dictionary page"), std::string::npos);
}

TEST(SparsePagesTest, MalformedPagesAreIOErrors) {
  auto column = MakeColumn(parquet::Type::INT64, /*optional=*/true);
  const std::vector<RowRange> all{{0, 7}};
  const Bytes all_valid = Hybrid(std::vector<uint32_t>(8, 1), 1, 8, 1);
  auto expect_io_error = [&](std::deque<std::shared_ptr<parquet::Page>> pages,
                             std::vector<RowRange> wanted, const std::string& text) {
    auto got = Gather(*column, std::move(pages), all, wanted, arrow::int64());
    ASSERT_FALSE(got.ok());
    EXPECT_TRUE(got.status().IsIOError()) << got.status().ToString();
    EXPECT_NE(got.status().message().find(text), std::string::npos) << got.status().ToString();
  };
  // A dictionary index beyond the dictionary.
  expect_io_error({Dictionary({1, 2}), V1(all_valid, Indices(std::vector<uint32_t>(8, 3), 2, 8, 1),
                                          8, parquet::Encoding::RLE_DICTIONARY)},
                  {{0, 0}}, "out of a dictionary of 2");
  // Dictionary-encoded values without a dictionary page.
  expect_io_error({V1(all_valid, Indices(std::vector<uint32_t>(8, 0), 1, 8, 1), 8,
                      parquet::Encoding::RLE_DICTIONARY)},
                  {{0, 0}}, "without a dictionary page");
  // PLAIN values shorter than the page's rows.
  expect_io_error({V1(all_valid, Bytes(5 * 8, 0), 8, parquet::Encoding::PLAIN)}, {{6, 6}},
                  "end early");
  // A definition level that is neither 0 nor 1.
  expect_io_error(
      {V1(Hybrid(std::vector<uint32_t>(8, 2), 1, 8, 1), Bytes(64, 0), 8, parquet::Encoding::PLAIN)},
      {{0, 0}}, "malformed definition levels");
  // Values of an encoding the decoder does not handle.
  expect_io_error({V1(all_valid, Bytes(64, 0), 8, parquet::Encoding::DELTA_BINARY_PACKED)},
                  {{0, 0}}, "unsupported encoding");
  // The pages end before a wanted row.
  expect_io_error({V1(all_valid, Bytes(64, 0), 8, parquet::Encoding::PLAIN)}, {{0, 0}, {9, 9}},
                  "end before row 9");
  // A PLAIN string whose length runs past its page.
  auto strings =
      MakeColumn(parquet::Type::BYTE_ARRAY, /*optional=*/false, parquet::LogicalType::String());
  Bytes bad;
  PutLE32(1000, &bad);
  bad.push_back('x');
  auto got = Gather(*strings, {V1({}, bad, 1, parquet::Encoding::PLAIN)}, {{0, 0}}, {{0, 0}},
                    arrow::utf8());
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(got.status().IsIOError());
  EXPECT_NE(got.status().message().find("overruns"), std::string::npos);

  // A string dictionary whose second value's length prefix, or its bytes, run past the page.
  auto string_dictionary = [](const Bytes& bytes, int32_t count) {
    return std::make_shared<parquet::DictionaryPage>(ToBuffer(bytes), count,
                                                     parquet::Encoding::PLAIN);
  };
  const Bytes zeros = Indices(std::vector<uint32_t>(1, 0), 1, 1, 1);
  Bytes cut_prefix;
  PutLE32(1, &cut_prefix);
  cut_prefix.push_back('a');
  cut_prefix.push_back(2);  // one byte of the next value's 4-byte length
  Bytes cut_value;
  PutLE32(1, &cut_value);
  cut_value.push_back('a');
  PutLE32(3, &cut_value);
  cut_value.push_back('b');
  for (const auto& [bytes, text] :
       {std::pair{cut_prefix, std::string("value 1 of 2: its length prefix overruns the page of "
                                          "6 bytes")},
        std::pair{cut_value, std::string("value 1 of 2 (3 bytes at offset 9) overruns the page "
                                         "of 10 bytes")}}) {
    auto dict =
        Gather(*strings,
               {string_dictionary(bytes, 2), V1({}, zeros, 1, parquet::Encoding::RLE_DICTIONARY)},
               {{0, 0}}, {{0, 0}}, arrow::utf8());
    ASSERT_FALSE(dict.ok());
    EXPECT_TRUE(dict.status().IsIOError()) << dict.status().ToString();
    EXPECT_NE(dict.status().message().find(text), std::string::npos) << dict.status().ToString();
  }
}

}  // namespace
}  // namespace paimon_rowid::format_internal
