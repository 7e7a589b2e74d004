// DECIMAL bytes as Java's BigInteger.toByteArray writes them (codec/decimal_bytes.h), used by
// BinaryRow and by MAP<DECIMAL, BLOB> keys. Round trip: the canonical bytes of a decoded value
// decode to the same value and are never longer than the input.
#include "fuzz_util.h"
#include "paimon_rowid/codec/decimal_bytes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paimon_rowid;
  using namespace paimon_rowid::fuzz;
  auto value = DecimalFromBigEndian(AsView(data, size));
  if (!value.ok()) return 0;
  std::string bytes = DecimalToBigEndian(*value);
  FUZZ_CHECK(!bytes.empty() && bytes.size() <= size);
  auto again = DecimalFromBigEndian(bytes);
  FUZZ_CHECK(again.ok(), again.status());
  FUZZ_CHECK(*again == *value);
  return 0;
}
