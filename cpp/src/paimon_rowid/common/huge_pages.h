// Transparent huge pages for large buffers about to be filled.
//
// A buffer freshly mapped by the allocator costs one page fault (and a zeroed page) per 4 KiB
// on first write. For a buffer filled at memory speed, such as a batch's BLOB payloads, the
// faults cost more than the copy: a 400 MB payload column was written at ~1.2 GB/s, a third of
// it in the kernel's fault path. Backed by 2 MiB pages the same writes fault 512x less often.
#pragma once

#include <cstdint>

namespace paimon_rowid {

/// Buffers at least this large are worth advising (smaller ones are rarely freshly mapped).
constexpr int64_t kHugePageAdviceMinBytes = int64_t{8} << 20;

/// Asks the kernel to back the whole 2 MiB pages inside [data, data + size) with transparent
/// huge pages when they are first touched (Linux `madvise(MADV_HUGEPAGE)`; a no-op elsewhere,
/// for buffers below kHugePageAdviceMinBytes, and where THP is off). Call it before writing
/// the buffer; pages already touched stay as they are. Only advice: the contents and the
/// buffer's ownership are unaffected, and failures are ignored. Returns whether advice was
/// given.
bool AdviseHugePages(void* data, int64_t size);

}  // namespace paimon_rowid
