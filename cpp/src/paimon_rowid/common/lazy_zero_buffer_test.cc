#include "paimon_rowid/common/lazy_zero_buffer.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

namespace paimon_rowid {
namespace {

// Which pages of [data, data + size) are resident (Linux mincore).
std::vector<bool> Resident(const uint8_t* data, int64_t size) {
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(data) & ~(page - 1);
  const auto end = reinterpret_cast<uintptr_t>(data) + static_cast<uintptr_t>(size);
  std::vector<unsigned char> bits((end - begin + page - 1) / page);
  EXPECT_EQ(mincore(reinterpret_cast<void*>(begin), end - begin, bits.data()), 0);
  std::vector<bool> out;
  for (unsigned char b : bits) out.push_back((b & 1) != 0);
  return out;
}

TEST(LazyZeroBufferTest, SmallBufferIsAZeroFilledPoolAllocation) {
  auto* pool = arrow::default_memory_pool();
  const int64_t before = pool->bytes_allocated();
  auto buffer = AllocateLazyZeroBuffer(4096, pool).ValueOrDie();
  ASSERT_EQ(buffer->size(), 4096);
  EXPECT_TRUE(buffer->is_mutable());
  EXPECT_GE(pool->bytes_allocated(), before + 4096);
  for (int64_t i = 0; i < buffer->size(); ++i) ASSERT_EQ(buffer->data()[i], 0) << i;
  auto empty = AllocateLazyZeroBuffer(0, pool).ValueOrDie();
  EXPECT_EQ(empty->size(), 0);
  EXPECT_FALSE(AllocateLazyZeroBuffer(-1, pool).ok());
}

TEST(LazyZeroBufferTest, LargeBufferTakesMemoryOnlyWhereWritten) {
  auto* pool = arrow::default_memory_pool();
  const int64_t before = pool->bytes_allocated();
  const int64_t size = int64_t{64} << 20;
  auto buffer = AllocateLazyZeroBuffer(size, pool).ValueOrDie();
  ASSERT_EQ(buffer->size(), size);
  EXPECT_EQ(pool->bytes_allocated(), before);  // a mapping of its own, not the pool's
  uint8_t* data = buffer->mutable_data();
  auto resident = Resident(data, size);
  int64_t touched = 0;
  for (bool r : resident) touched += r ? 1 : 0;
  EXPECT_EQ(touched, 0);

  const int64_t page = sysconf(_SC_PAGESIZE);
  data[5 * page + 3] = 7;
  resident = Resident(data, size);
  touched = 0;
  for (bool r : resident) touched += r ? 1 : 0;
  EXPECT_EQ(touched, 1);
  EXPECT_TRUE(resident[5]);

  // Unwritten bytes read as zero, the written one as written.
  EXPECT_EQ(data[0], 0);
  EXPECT_EQ(data[5 * page + 3], 7);
  EXPECT_EQ(data[5 * page + 4], 0);
  EXPECT_EQ(data[size - 1], 0);
}

}  // namespace
}  // namespace paimon_rowid
