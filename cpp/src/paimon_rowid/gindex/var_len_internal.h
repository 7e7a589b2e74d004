// Paimon's VarLenInt / VarLenLong (unsigned LEB128: 7 bits a byte, low first, high bit = more),
// the integers of global-index blocks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "paimon_rowid/common/status.h"

namespace paimon_rowid::gindex_internal {

/// REQUIRES: value >= 0.
inline void AppendVarLen(std::string* out, uint64_t value) {
  while (value & ~uint64_t{0x7F}) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

/// Reads one integer of at most `max_bytes` bytes (5 for an int, 10 for a long) at `*pos`.
inline Result<int64_t> ReadVarLen(std::string_view bytes, size_t* pos, int max_bytes,
                                  const char* what) {
  uint64_t value = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (*pos >= bytes.size()) return Status::Invalid(what, ": truncated variable-length integer");
    const auto b = static_cast<unsigned char>(bytes[(*pos)++]);
    value |= uint64_t{b & 0x7Fu} << (7 * i);
    if ((b & 0x80) == 0) {
      if (static_cast<int64_t>(value) < 0 || (max_bytes == 5 && value > 0x7FFFFFFF)) {
        return Status::Invalid(what, ": variable-length integer out of range");
      }
      return static_cast<int64_t>(value);
    }
  }
  return Status::Invalid(what, ": malformed variable-length integer");
}

}  // namespace paimon_rowid::gindex_internal
