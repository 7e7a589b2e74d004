// DeltaVarint integer lists (codec/delta_varint.h), the .blob file indexes. Round trip:
// decoded values re-encode (canonically, so never longer) and decode back equal.
#include "fuzz_util.h"
#include "paimon_rowid/codec/delta_varint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paimon_rowid;
  using namespace paimon_rowid::fuzz;
  auto values = DecodeDeltaVarint(AsView(data, size));
  if (!values.ok()) return 0;
  std::string bytes = EncodeDeltaVarint(*values);
  FUZZ_CHECK(bytes.size() <= size);
  auto again = DecodeDeltaVarint(bytes);
  FUZZ_CHECK(again.ok(), again.status());
  FUZZ_CHECK(*again == *values);
  return 0;
}
