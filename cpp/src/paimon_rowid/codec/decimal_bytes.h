// DECIMAL values as Paimon (and Java) serialize them: a DECIMAL(p, s) with p <= 18 is
// "compact" (its unscaled value as an int64); wider ones are the unscaled value as Java's
// BigInteger.toByteArray() writes it (shortest big-endian two's complement).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "arrow/type.h"
#include "arrow/util/decimal.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

inline constexpr int32_t kCompactDecimalPrecision = 18;

inline bool IsCompactDecimalPrecision(int32_t precision) {
  return precision <= kCompactDecimalPrecision;
}

/// The same for an Arrow decimal type. REQUIRES: `type` is a decimal type.
inline bool IsCompactDecimal(const arrow::DataType& type) {
  return IsCompactDecimalPrecision(static_cast<const arrow::DecimalType&>(type).precision());
}

/// The shortest big-endian two's complement bytes of the unscaled value (at least one).
std::string DecimalToBigEndian(const arrow::Decimal128& value);

/// The inverse: 1 to 16 big-endian two's complement bytes, sign-extended. Invalid otherwise.
Result<arrow::Decimal128> DecimalFromBigEndian(std::string_view bytes);

}  // namespace paimon_rowid
