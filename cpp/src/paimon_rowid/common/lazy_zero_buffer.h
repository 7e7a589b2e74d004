// Buffers of zeros that take memory only where they are written.
//
// An array whose values are mostly placeholders, such as the 64 floats under each NULL row of
// a VECTOR column, needs a buffer the size of every row although few rows hold data. A pool
// allocation is zero-filled by writing it, so all of it becomes resident: 256 MB per million
// NULL rows of a 64-float VECTOR. A private anonymous mapping reads as zeros and gets memory
// page by page on first write, so the placeholder rows cost nothing.
#pragma once

#include <cstdint>
#include <memory>

#include "arrow/buffer.h"
#include "arrow/memory_pool.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

/// Below this size a lazily zeroed buffer is an ordinary zero-filled pool allocation: a
/// mapping of its own costs two system calls, worth it only for buffers this large.
constexpr int64_t kLazyZeroMinBytes = int64_t{1} << 20;

/// A mutable buffer of `size` zero bytes. From kLazyZeroMinBytes up, on Linux, it is a
/// private anonymous mapping of its own, unmapped when the buffer is destroyed: pages never
/// written take no resident memory. Smaller buffers, and all buffers elsewhere, come from
/// `pool`, zero-filled. A mapping is outside `pool`'s accounting.
Result<std::shared_ptr<arrow::Buffer>> AllocateLazyZeroBuffer(int64_t size,
                                                              arrow::MemoryPool* pool);

}  // namespace paimon_rowid
