#include "paimon_rowid/read/vector_column.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

constexpr int32_t kDim = 64;

// Resident pages of a buffer (Linux mincore).
int64_t ResidentPages(const arrow::Buffer& buffer) {
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(buffer.data()) & ~(page - 1);
  const auto end =
      reinterpret_cast<uintptr_t>(buffer.data()) + static_cast<uintptr_t>(buffer.size());
  std::vector<unsigned char> bits((end - begin + page - 1) / page);
  EXPECT_EQ(mincore(reinterpret_cast<void*>(begin), end - begin, bits.data()), 0);
  int64_t n = 0;
  for (unsigned char b : bits) n += b & 1;
  return n;
}

// Rows of kDim floats: row i holds i*100 + k, NULL where `null(i)`.
template <typename Builder>
std::shared_ptr<arrow::Array> Lists(int64_t rows, bool (*null)(int64_t),
                                    std::shared_ptr<arrow::DataType> type) {
  Builder builder(arrow::default_memory_pool(), std::make_shared<arrow::FloatBuilder>(), type);
  auto* values = static_cast<arrow::FloatBuilder*>(builder.value_builder());
  for (int64_t i = 0; i < rows; ++i) {
    if (null(i)) {
      EXPECT_TRUE(builder.AppendNull().ok());
      continue;
    }
    EXPECT_TRUE(builder.Append().ok());
    for (int32_t k = 0; k < kDim; ++k) {
      EXPECT_TRUE(values->Append(static_cast<float>(i * 100 + k)).ok());
    }
  }
  return builder.Finish().ValueOrDie();
}

const arrow::FixedSizeListType& VectorType() {
  static auto type = arrow::fixed_size_list(arrow::float32(), kDim);
  return static_cast<const arrow::FixedSizeListType&>(*type);
}

void ExpectRows(const arrow::FixedSizeListArray& got, int64_t rows, bool (*null)(int64_t)) {
  ASSERT_EQ(got.length(), rows);
  const auto& flat = static_cast<const arrow::FloatArray&>(*got.values());
  for (int64_t i = 0; i < rows; ++i) {
    ASSERT_EQ(got.IsNull(i), null(i)) << i;
    for (int32_t k = 0; k < kDim; ++k) {
      const int64_t at = i * kDim + k;
      if (null(i)) {
        ASSERT_TRUE(flat.IsNull(at)) << i;
        ASSERT_EQ(flat.Value(at), 0.0f) << i;  // placeholders are zeros
      } else {
        ASSERT_TRUE(flat.IsValid(at)) << i;
        ASSERT_EQ(flat.Value(at), static_cast<float>(i * 100 + k)) << i;
      }
    }
  }
}

TEST(VectorColumnTest, NullRowsOfALargeColumnTakeNoMemory) {
  const int64_t rows = 100000;  // 25.6 MB of placeholder floats
  auto all_null = [](int64_t) { return true; };
  auto lists = Lists<arrow::ListBuilder>(rows, all_null, arrow::list(arrow::float32()));
  arrow::compute::ExecContext ctx;
  ASSERT_OK_AND_ASSIGN(auto out, ListToFixedSize(lists, VectorType(), "v", &ctx));
  const auto& vectors = static_cast<const arrow::FixedSizeListArray&>(*out);
  const auto& data = *vectors.values()->data()->buffers[1];
  EXPECT_EQ(ResidentPages(data), 0);  // (the 800 KB bitmap is below kLazyZeroMinBytes)
  EXPECT_EQ(vectors.null_count(), rows);
  EXPECT_EQ(vectors.values()->null_count(), rows * kDim);
  ExpectRows(vectors, rows, all_null);
}

TEST(VectorColumnTest, MixedRowsKeepTheirValuesAndOnlyWrittenPagesAreResident) {
  const int64_t rows = 60000;
  // Non-NULL rows only in the first tenth: the rest of the buffer stays unwritten.
  auto null = [](int64_t i) { return i >= 6000 || i % 3 == 0; };
  auto lists = Lists<arrow::LargeListBuilder>(rows, null, arrow::large_list(arrow::float32()));
  arrow::compute::ExecContext ctx;
  ASSERT_OK_AND_ASSIGN(auto out, ListToFixedSize(lists->Slice(0), VectorType(), "v", &ctx));
  const auto& vectors = static_cast<const arrow::FixedSizeListArray&>(*out);
  const auto& data = *vectors.values()->data()->buffers[1];
  const int64_t page = sysconf(_SC_PAGESIZE);
  EXPECT_LE(ResidentPages(data), (6000 * kDim * 4) / page + 2);
  ExpectRows(vectors, rows, null);
}

TEST(VectorColumnTest, SlicedInputAndNoNullRows) {
  auto none = [](int64_t) { return false; };
  auto lists = Lists<arrow::ListBuilder>(500, none, arrow::list(arrow::float32()));
  arrow::compute::ExecContext ctx;
  ASSERT_OK_AND_ASSIGN(auto out, ListToFixedSize(lists->Slice(100, 300), VectorType(), "v", &ctx));
  const auto& vectors = static_cast<const arrow::FixedSizeListArray&>(*out);
  ASSERT_EQ(vectors.length(), 300);
  EXPECT_EQ(vectors.null_count(), 0);
  const auto& flat = static_cast<const arrow::FloatArray&>(*vectors.values());
  EXPECT_EQ(flat.Value(0), 100.0f * 100);
  EXPECT_EQ(flat.Value(299 * kDim + kDim - 1), 399.0f * 100 + kDim - 1);
}

// The values' address of row 0 of a FixedSizeListArray.
const uint8_t* FirstValue(const arrow::FixedSizeListArray& vectors) {
  const auto& flat = *vectors.values();
  return flat.data()->buffers[1]->data() + flat.offset() * sizeof(float);
}

TEST(VectorColumnTest, BackToBackRowsAreSlicedNotCopied) {
  auto none = [](int64_t) { return false; };
  auto lists = Lists<arrow::ListBuilder>(500, none, arrow::list(arrow::float32()));
  const uint8_t* source =
      static_cast<const arrow::ListArray&>(*lists).values()->data()->buffers[1]->data();
  arrow::compute::ExecContext ctx;
  // all rows, and 300 of 500 (more than half of the values): the values themselves
  for (auto [offset, length] : {std::pair<int64_t, int64_t>{0, 500}, {100, 300}}) {
    ASSERT_OK_AND_ASSIGN(auto out,
                         ListToFixedSize(lists->Slice(offset, length), VectorType(), "v", &ctx));
    const auto& vectors = static_cast<const arrow::FixedSizeListArray&>(*out);
    EXPECT_EQ(FirstValue(vectors), source + offset * kDim * sizeof(float)) << offset;
    ASSERT_OK(vectors.ValidateFull());
    const auto& flat = static_cast<const arrow::FloatArray&>(*vectors.values());
    ASSERT_EQ(flat.length(), length * kDim);
    EXPECT_EQ(flat.Value(0), static_cast<float>(offset * 100));
    EXPECT_EQ(flat.Value(length * kDim - 1),
              static_cast<float>((offset + length - 1) * 100 + kDim - 1));
  }
  // 10 rows of 500 would keep 50 times their bytes alive: copied out
  ASSERT_OK_AND_ASSIGN(auto few, ListToFixedSize(lists->Slice(20, 10), VectorType(), "v", &ctx));
  const auto& vectors = static_cast<const arrow::FixedSizeListArray&>(*few);
  EXPECT_NE(FirstValue(vectors), source + 20 * kDim * sizeof(float));
  EXPECT_EQ(static_cast<const arrow::FloatArray&>(*vectors.values()).Value(0), 2000.0f);
  // a row of another length among them: still refused (the copying route names it)
  arrow::ListBuilder builder(arrow::default_memory_pool(), std::make_shared<arrow::FloatBuilder>());
  auto* values = static_cast<arrow::FloatBuilder*>(builder.value_builder());
  for (int32_t length : {kDim, kDim + 1, kDim}) {
    ASSERT_OK(builder.Append());
    ASSERT_OK(values->AppendValues(std::vector<float>(length, 1.0f)));
  }
  ASSERT_OK_AND_ASSIGN(auto uneven, builder.Finish());
  auto wrong = ListToFixedSize(uneven, VectorType(), "v", &ctx);
  EXPECT_TRUE(wrong.status().IsInvalid()) << wrong.status();
}

TEST(VectorColumnTest, RowOfAnotherLengthIsInvalid) {
  arrow::ListBuilder builder(arrow::default_memory_pool(), std::make_shared<arrow::FloatBuilder>());
  auto* values = static_cast<arrow::FloatBuilder*>(builder.value_builder());
  ASSERT_OK(builder.AppendNull());
  ASSERT_OK(builder.Append());
  ASSERT_OK(values->AppendValues(std::vector<float>(kDim - 1, 1.0f)));
  ASSERT_OK_AND_ASSIGN(auto lists, builder.Finish());
  arrow::compute::ExecContext ctx;
  auto out = ListToFixedSize(lists, VectorType(), "emb", &ctx);
  ASSERT_TRUE(out.status().IsInvalid()) << out.status();
  EXPECT_NE(out.status().message().find("VECTOR column 'emb' holds a value of length 63"),
            std::string::npos)
      << out.status();
  auto not_a_list = ListToFixedSize(arrow::MakeArrayOfNull(arrow::int32(), 3).ValueOrDie(),
                                    VectorType(), "emb", &ctx);
  EXPECT_TRUE(not_a_list.status().IsTypeError()) << not_a_list.status();
}

}  // namespace
}  // namespace paimon_rowid
