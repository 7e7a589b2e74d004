// Roaring bitmaps in their portable serialization (github.com/RoaringBitmap/RoaringFormatSpec),
// the set encoding Paimon files share: deletion vectors hold a 32-bit bitmap, global-index files
// (btree null rows, bitmap index values) a 64-bit one.
//
//   32-bit  cookie (12346 + u32 container count, or 12347 | (count - 1) << 16 + run flags),
//           per container u16 key + u16 (cardinality - 1), u32 offsets (when the format has
//           them), then the containers: array (u16 values), bitmap (1024 u64 words) or run
//           (u16 count, u16 start / u16 length - 1 pairs).
//   64-bit  u64 LE bucket count, then per bucket (ascending high 32 bits): u32 LE high 32 bits
//           and a 32-bit bitmap of the low 32 bits. This is Java's
//           Roaring64NavigableMap.serializePortable and pyroaring's BitMap64.serialize.
//
// Decoding reads all three container kinds with or without the run header; encoding writes
// array and bitmap containers under cookie 12346, which every implementation reads (and which
// is what pyroaring writes unless a bitmap was run-optimized). Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

/// The values of the 32-bit bitmap at the start of `bytes`, ascending. `*consumed` (when not
/// null) receives the bitmap's length in bytes. `what` names the bitmap in errors ("deletion
/// vector is truncated (...)"). Invalid for malformed or truncated input.
Result<std::vector<uint32_t>> DecodeRoaring32(std::string_view bytes, const char* what,
                                              size_t* consumed = nullptr);
/// REQUIRES: `values` ascending and distinct.
std::string EncodeRoaring32(const std::vector<uint32_t>& values);

/// The values of a 64-bit portable bitmap, ascending; Invalid when negative (a high word of
/// 2^31 or more: Paimon's row ids are Java longs), malformed, or followed by extra bytes.
Result<std::vector<int64_t>> DecodeRoaring64(std::string_view bytes, const char* what);
/// REQUIRES: `values` ascending, distinct and non-negative.
std::string EncodeRoaring64(const std::vector<int64_t>& values);

}  // namespace paimon_rowid
