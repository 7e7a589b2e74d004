// Fixed-width integers in little-endian byte order, independent of the host's order: the
// byte layouts we read and write (.blob files, BlobDescriptor bytes, wire envelopes) are
// little-endian by definition, so they must not depend on where the code runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace paimon_rowid {

/// The integer stored in the sizeof(T) bytes at `p`, least significant byte first.
/// REQUIRES: `p` points to at least sizeof(T) readable bytes.
template <typename T>
T LoadLE(const char* p) {
  static_assert(std::is_integral_v<T>, "LoadLE reads integers");
  using U = std::make_unsigned_t<T>;
  U value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) {
    value |= static_cast<U>(static_cast<U>(static_cast<unsigned char>(p[i])) << (8 * i));
  }
  return static_cast<T>(value);
}

/// Appends `value` to `out` as sizeof(T) bytes, least significant byte first.
template <typename T>
void AppendLE(std::string* out, T value) {
  static_assert(std::is_integral_v<T>, "AppendLE writes integers");
  using U = std::make_unsigned_t<T>;
  const U bits = static_cast<U>(value);
  for (size_t i = 0; i < sizeof(T); ++i) {
    out->push_back(static_cast<char>(static_cast<unsigned char>(bits >> (8 * i))));
  }
}

}  // namespace paimon_rowid
