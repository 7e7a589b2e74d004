// Paimon data types in their SQL string form, as schema files carry them (types/data_type.h).
// Round trip: ToString of a parsed type parses to the same type string and the same JSON.
#include <nlohmann/json.hpp>

#include "fuzz_util.h"
#include "paimon_rowid/types/data_type.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paimon_rowid;
  using namespace paimon_rowid::fuzz;
  auto type = DataType::Parse(AsView(data, size));
  if (!type.ok()) return 0;
  std::string text = (*type)->ToString();
  auto again = DataType::Parse(text);
  FUZZ_CHECK(again.ok(), again.status());
  FUZZ_CHECK((*again)->ToString() == text, text);
  auto from_json = DataType::FromJson((*type)->ToJson());
  FUZZ_CHECK(from_json.ok(), from_json.status());
  FUZZ_CHECK((*from_json)->ToString() == text, text);
  (void)(*type)->ToArrow();
  return 0;
}
