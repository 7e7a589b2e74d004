#include "paimon_rowid/codec/crc32.h"

#include "arrow/util/crc32.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PAIMON_ROWID_CRC32_PCLMUL 1
#endif

namespace paimon_rowid {

uint32_t Crc32Portable(uint32_t crc, const void* data, size_t size) {
  return arrow::internal::crc32(crc, data, size);
}

#ifdef PAIMON_ROWID_CRC32_PCLMUL
namespace {

// Folding constants for the reflected polynomial 0xEDB88320: x^(k) mod P(x) for the folding
// distances 512+64 / 512 (R2, R1), 128+64 / 128 (R4, R3), 64 (R5), and the Barrett pair
// (u' = floor(x^64 / P(x)), P'(x)), as in the Intel paper and the Linux kernel.
constexpr int64_t kR1 = 0x154442bd4, kR2 = 0x1c6e41596;
constexpr int64_t kR3 = 0x1751997d0, kR4 = 0x0ccaa009e;
constexpr int64_t kR5 = 0x163cd6124;
constexpr int64_t kPoly = 0x1db710641, kMu = 0x1f7011641;

// Folds `x` forward over 128 bits (`k` holds the two distance constants) and adds `next`.
__attribute__((target("pclmul,sse4.1"))) inline __m128i Fold(__m128i x, __m128i k, __m128i next) {
  const __m128i lo = _mm_clmulepi64_si128(x, k, 0x00);
  const __m128i hi = _mm_clmulepi64_si128(x, k, 0x11);
  return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

// The raw (not inverted) CRC state after `size` bytes; REQUIRES size >= 64, size % 16 == 0.
__attribute__((target("pclmul,sse4.1"))) uint32_t FoldCrc(uint32_t state, const uint8_t* p,
                                                          size_t size) {
  auto load = [](const uint8_t* at) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
  };
  __m128i x1 = _mm_xor_si128(load(p), _mm_cvtsi32_si128(static_cast<int>(state)));
  __m128i x2 = load(p + 16), x3 = load(p + 32), x4 = load(p + 48);
  p += 64;
  size -= 64;
  const __m128i k12 = _mm_set_epi64x(kR2, kR1);
  while (size >= 64) {
    x1 = Fold(x1, k12, load(p));
    x2 = Fold(x2, k12, load(p + 16));
    x3 = Fold(x3, k12, load(p + 32));
    x4 = Fold(x4, k12, load(p + 48));
    p += 64;
    size -= 64;
  }
  const __m128i k34 = _mm_set_epi64x(kR4, kR3);
  x1 = Fold(x1, k34, x2);
  x1 = Fold(x1, k34, x3);
  x1 = Fold(x1, k34, x4);
  while (size >= 16) {
    x1 = Fold(x1, k34, load(p));
    p += 16;
    size -= 16;
  }
  // 128 -> 64 bits.
  const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
  x1 = _mm_xor_si128(_mm_clmulepi64_si128(x1, k34, 0x10), _mm_srli_si128(x1, 8));
  // 96 -> 64 bits.
  x1 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, mask32), _mm_set_epi64x(0, kR5), 0x00),
                     _mm_srli_si128(x1, 4));
  // Barrett reduction to 32 bits.
  const __m128i pu = _mm_set_epi64x(kMu, kPoly);
  __m128i t = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), pu, 0x10);
  t = _mm_clmulepi64_si128(_mm_and_si128(t, mask32), pu, 0x00);
  return static_cast<uint32_t>(_mm_extract_epi32(_mm_xor_si128(t, x1), 1));
}

bool HasPclmul() {
  static const bool has = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return has;
}

}  // namespace

uint32_t Crc32(uint32_t crc, const void* data, size_t size) {
  if (size < 64 || !HasPclmul()) return Crc32Portable(crc, data, size);
  const size_t folded = size & ~size_t{15};
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~FoldCrc(~crc, p, folded);
  return folded == size ? crc : Crc32Portable(crc, p + folded, size - folded);
}
#else
uint32_t Crc32(uint32_t crc, const void* data, size_t size) {
  return Crc32Portable(crc, data, size);
}
#endif

}  // namespace paimon_rowid
