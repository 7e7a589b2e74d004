// Manifest files, manifest lists and index manifests (meta/manifest.h): every input goes to
// all three decoders. Round trip: decoded entries and metas re-encode and decode back equal;
// the row-id arithmetic the planner does on decoded files (last_row_id) must be defined.
#include "fuzz_util.h"
#include "paimon_rowid/meta/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paimon_rowid;
  using namespace paimon_rowid::fuzz;
  auto buffer = AsBuffer(data, size);

  if (auto entries = DecodeManifest(buffer); entries.ok()) {
    int64_t sum = 0;
    for (const auto& e : *entries) {
      sum += static_cast<int64_t>(FileIdentifier(e).size());
      if (e.file.first_row_id) sum ^= e.file.last_row_id();
    }
    (void)sum;
    auto encoded = EncodeManifest(*entries, "null");
    FUZZ_CHECK(encoded.ok(), encoded.status());
    auto decoded = DecodeManifest(*encoded);
    FUZZ_CHECK(decoded.ok(), decoded.status());
    FUZZ_CHECK(*decoded == *entries);
  }

  if (auto metas = DecodeManifestList(buffer); metas.ok()) {
    auto encoded = EncodeManifestList(*metas, "null");
    FUZZ_CHECK(encoded.ok(), encoded.status());
    auto decoded = DecodeManifestList(*encoded);
    FUZZ_CHECK(decoded.ok(), decoded.status());
    FUZZ_CHECK(*decoded == *metas);
  }

  (void)DecodeIndexManifest(buffer);
  return 0;
}
