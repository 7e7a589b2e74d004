#include "paimon_rowid/common/huge_pages.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace paimon_rowid {

bool AdviseHugePages(void* data, int64_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (data == nullptr || size < kHugePageAdviceMinBytes) return false;
  constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<uintptr_t>(data);
  // Only whole huge pages inside the buffer: the advice must not reach a neighbour's memory.
  const uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t last = (begin + static_cast<uintptr_t>(size)) & ~(kHugePage - 1);
  if (last <= first) return false;
  return madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) == 0;
#else
  (void)data;
  (void)size;
  return false;
#endif
}

}  // namespace paimon_rowid
