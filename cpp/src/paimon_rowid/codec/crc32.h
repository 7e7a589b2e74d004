// CRC-32 (the zlib / java.util.zip.CRC32 polynomial, reflected 0xEDB88320), as the `.blob`
// entries, Avro blocks and deletion-vector files use it.
//
// On x86-64 CPUs with PCLMULQDQ, buffers of 64 bytes or more are folded 64 bytes at a time with
// carry-less multiplication (Gopal et al., "Fast CRC Computation for Generic Polynomials Using
// PCLMULQDQ Instruction", Intel, 2009), several times faster than table lookups; shorter
// buffers, the tail and other CPUs use Arrow's table-driven crc32. Results are identical.
#pragma once

#include <cstddef>
#include <cstdint>

namespace paimon_rowid {

/// zlib's crc32(crc, data, size): `crc` is the CRC of the bytes before (0 to start).
/// Thread-safe.
uint32_t Crc32(uint32_t crc, const void* data, size_t size);

/// The table-driven CRC-32 alone (tests compare the two paths).
uint32_t Crc32Portable(uint32_t crc, const void* data, size_t size);

}  // namespace paimon_rowid
