#include "paimon_rowid/codec/decimal_bytes.h"

namespace paimon_rowid {

std::string DecimalToBigEndian(const arrow::Decimal128& value) {
  uint8_t be[16];
  const auto high = static_cast<uint64_t>(value.high_bits());
  const uint64_t low = value.low_bits();
  for (int i = 0; i < 8; ++i) {
    be[i] = static_cast<uint8_t>(high >> (56 - 8 * i));
    be[8 + i] = static_cast<uint8_t>(low >> (56 - 8 * i));
  }
  // Drop leading bytes that only repeat the sign of the next one.
  int start = 0;
  while (start < 15 && ((be[start] == 0x00 && (be[start + 1] & 0x80) == 0) ||
                        (be[start] == 0xFF && (be[start + 1] & 0x80) != 0))) {
    ++start;
  }
  return std::string(reinterpret_cast<const char*>(be + start), 16 - start);
}

Result<arrow::Decimal128> DecimalFromBigEndian(std::string_view bytes) {
  if (bytes.empty() || bytes.size() > 16) {
    return Status::Invalid("a decimal's unscaled bytes must be 1 to 16 long, got ", bytes.size());
  }
  uint64_t high = (static_cast<uint8_t>(bytes[0]) & 0x80) ? ~uint64_t{0} : 0;
  uint64_t low = high;
  for (char c : bytes) {
    high = (high << 8) | (low >> 56);
    low = (low << 8) | static_cast<uint8_t>(c);
  }
  return arrow::Decimal128(static_cast<int64_t>(high), low);
}

}  // namespace paimon_rowid
