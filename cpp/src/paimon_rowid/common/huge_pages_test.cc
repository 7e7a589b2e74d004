#include "paimon_rowid/common/huge_pages.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace paimon_rowid {
namespace {

std::string ThpMode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  return line;  // e.g. "always [madvise] never"
}

// AnonHugePages (kB) of the mapping that contains `addr`, from /proc/self/smaps.
int64_t AnonHugeKb(const void* addr) {
  std::ifstream in("/proc/self/smaps");
  const auto target = reinterpret_cast<uintptr_t>(addr);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find('-') < 17) {
      inside = lo <= target && target < hi;
    } else if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      std::istringstream fields(line.substr(14));
      int64_t kb = 0;
      fields >> kb;
      return kb;
    }
  }
  return -1;
}

TEST(HugePagesTest, RefusesSmallAndNullBuffers) {
  char small[4096];
  EXPECT_FALSE(AdviseHugePages(small, sizeof(small)));
  EXPECT_FALSE(AdviseHugePages(nullptr, int64_t{64} << 20));
}

TEST(HugePagesTest, AdvisedBufferIsBackedByHugePagesOnFirstTouch) {
  const std::string mode = ThpMode();
  if (mode.empty() || mode.find("[never]") != std::string::npos) {
    GTEST_SKIP() << "transparent huge pages are off here: '" << mode << "'";
  }
  const size_t size = size_t{32} << 20;
  void* map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  // An unaligned start, as an allocator's header would leave it.
  auto* data = static_cast<char*>(map) + 4096;
  const int64_t length = static_cast<int64_t>(size) - 8192;
  ASSERT_TRUE(AdviseHugePages(data, length));
  std::memset(data, 0x5a, static_cast<size_t>(length));
  // At least one of the 14 whole 2 MiB pages inside came from the huge-page path (the kernel
  // may fall back to small pages for some when memory is fragmented).
  EXPECT_GE(AnonHugeKb(data + length / 2), 2048) << mode;
  EXPECT_EQ(static_cast<unsigned char>(data[length - 1]), 0x5a);
  munmap(map, size);
}

}  // namespace
}  // namespace paimon_rowid
