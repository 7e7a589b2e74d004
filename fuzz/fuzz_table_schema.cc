// Table schema JSON, schema/schema-N (types/table_schema.h), with the data types it holds.
// Round trip: ToJson of a parsed schema parses again to the same ToJson; the Arrow schemas
// the read and write paths derive from it are built.
#include "fuzz_util.h"
#include "paimon_rowid/types/table_schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paimon_rowid;
  using namespace paimon_rowid::fuzz;
  auto schema = TableSchema::FromJson(AsView(data, size));
  if (!schema.ok()) return 0;
  std::string text = schema->ToJson();
  auto again = TableSchema::FromJson(text);
  FUZZ_CHECK(again.ok(), again.status());
  FUZZ_CHECK(again->ToJson() == text, text);
  (void)schema->ArrowSchema();
  (void)schema->ArrowSchemaWithFieldIds();
  (void)schema->Project(schema->field_names());
  return 0;
}
