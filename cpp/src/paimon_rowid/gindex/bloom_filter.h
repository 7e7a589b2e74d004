// The bloom filter of a btree global-index file (Java Paimon's SST BloomFilter, as pypaimon
// 2.1.0 writes it; docs/global-index.md §"Bloom filter").
//
//   hash   Paimon's MurmurHashUtils.hashBytes, seed 42: 4-byte little-endian words mixed as
//          Murmur3 does, then every tail byte mixed as a word of its own (sign-extended), not
//          Murmur3's tail; the final mix takes the length.
//   size   n distinct keys, fpp 0.05: bits = int(-n ln 0.05 / ln^2 2), bytes = ceil(bits / 8),
//          k = max(1, round(bytes * 8 / n * ln 2)).
//   probe  h2 = (uint32)h >> 16; for i in 1..k: c = int32(h + i * h2), c = ~c if negative,
//          bit c % (bytes * 8), bit (pos & 7) of byte (pos >> 3).
//
// Not thread-safe for Add; MightContain is const and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

/// Paimon's MurmurHashUtils.hashBytes(bytes) (seed 42), as a Java int.
int32_t PaimonHashBytes(std::string_view bytes);

class BloomFilter {
 public:
  /// A filter of `bytes` for `hashes` (one per distinct key), or an empty filter (no bytes)
  /// when there are none: the file then has no bloom filter.
  static BloomFilter Build(const std::vector<int32_t>& hashes, double fpp = 0.05);
  /// A filter read from a file. Invalid when the size or expected entries are not positive.
  static Result<BloomFilter> FromBytes(std::string bytes, int64_t expected_entries);

  bool MightContain(int32_t hash) const;
  const std::string& bytes() const { return bits_; }
  int64_t expected_entries() const { return expected_entries_; }

 private:
  BloomFilter(std::string bits, int64_t expected_entries);
  void Add(int32_t hash);

  std::string bits_;
  int64_t expected_entries_ = 0;
  int num_hashes_ = 1;
};

}  // namespace paimon_rowid
