// A memory pool for the tests that check a component allocates from the pool it is given
// (docs/cpp-api.md, "Memory pools").
//
//   testing::PoolProbe probe;          // declare first: it must outlive every buffer of it
//   options.pool = probe.pool();
//   ... run the component ...
//   EXPECT_GT(probe.pool()->num_allocations(), 0);
//   if (probe.default_is_separate()) EXPECT_EQ(probe.default_allocations(), 0);
//
// The pool is a proxy over the system allocator, so its counters see only the allocations
// made through it; the default pool (jemalloc or mimalloc in the pyarrow wheel) is another
// pool unless ARROW_DEFAULT_MEMORY_POOL=system, which default_is_separate() detects.
#pragma once

#include <cstdint>

#include "arrow/memory_pool.h"

namespace paimon_rowid::testing {

class PoolProbe {
 public:
  PoolProbe() : default_start_(arrow::default_memory_pool()->num_allocations()) {}

  arrow::MemoryPool* pool() { return &pool_; }

  /// True when the default pool is not the proxy's backend (its counters are independent).
  static bool default_is_separate() {
    return arrow::default_memory_pool() != arrow::system_memory_pool();
  }
  /// Restarts the count of the default pool's allocations.
  void ResetDefault() { default_start_ = arrow::default_memory_pool()->num_allocations(); }
  /// Allocations from the default pool since construction or the last ResetDefault.
  int64_t default_allocations() const {
    return arrow::default_memory_pool()->num_allocations() - default_start_;
  }

 private:
  arrow::ProxyMemoryPool pool_{arrow::system_memory_pool()};
  int64_t default_start_;
};

}  // namespace paimon_rowid::testing
