// The wall clock, in the unit Paimon's metadata uses.
#pragma once

#include <chrono>
#include <cstdint>

namespace paimon_rowid {

/// Milliseconds since the Unix epoch (system clock; not monotonic).
inline int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace paimon_rowid
