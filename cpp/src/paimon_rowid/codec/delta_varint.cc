#include "paimon_rowid/codec/delta_varint.h"

namespace paimon_rowid {

std::string EncodeDeltaVarint(const std::vector<int64_t>& values) {
  std::string out;
  uint64_t previous = 0;
  for (int64_t value : values) {
    // Differences are taken modulo 2^64 so that extreme values cannot overflow; decoding
    // wraps the same way and restores them exactly.
    uint64_t delta = static_cast<uint64_t>(value) - previous;
    previous = static_cast<uint64_t>(value);
    uint64_t zigzag = (delta << 1) ^ static_cast<uint64_t>(static_cast<int64_t>(delta) >> 63);
    while (zigzag >= 0x80) {
      out.push_back(static_cast<char>((zigzag & 0x7F) | 0x80));
      zigzag >>= 7;
    }
    out.push_back(static_cast<char>(zigzag));
  }
  return out;
}

Result<std::vector<int64_t>> DecodeDeltaVarint(std::string_view bytes) {
  std::vector<int64_t> values;
  values.reserve(bytes.size());  // at most one value per byte
  uint64_t previous = 0;
  size_t pos = 0;
  while (pos < bytes.size()) {
    uint64_t zigzag = 0;
    for (int shift = 0;; shift += 7) {
      if (pos == bytes.size()) return Status::Invalid("DeltaVarint: truncated varint");
      auto byte = static_cast<uint8_t>(bytes[pos++]);
      // The 10th byte may only contribute the top bit of a 64-bit value.
      if (shift == 63 && byte > 1) return Status::Invalid("DeltaVarint: varint too long");
      zigzag |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) break;
    }
    uint64_t delta = (zigzag >> 1) ^ (~(zigzag & 1) + 1);
    previous += delta;
    values.push_back(static_cast<int64_t>(previous));
  }
  return values;
}

}  // namespace paimon_rowid
