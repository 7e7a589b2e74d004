// Snapshot JSON and tag JSON (meta/snapshot.h). Round trip: ToJson of a parsed snapshot (tag)
// parses again to the same ToJson.
#include "fuzz_util.h"
#include "paimon_rowid/meta/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paimon_rowid;
  using namespace paimon_rowid::fuzz;
  std::string_view json = AsView(data, size);

  if (auto snapshot = Snapshot::FromJson(json); snapshot.ok()) {
    std::string text = snapshot->ToJson();
    auto again = Snapshot::FromJson(text);
    FUZZ_CHECK(again.ok(), again.status());
    FUZZ_CHECK(again->ToJson() == text, text);
  }
  if (auto tag = Tag::FromJson(json); tag.ok()) {
    std::string text = tag->ToJson();
    auto again = Tag::FromJson(text);
    FUZZ_CHECK(again.ok(), again.status());
    FUZZ_CHECK(again->ToJson() == text, text);
  }
  return 0;
}
