// Deletion vector bytes (codec/deletion_vector.h): magic + portable Roaring bitmap, and the
// framed form inside an index file. Round trip: a parsed vector serializes and parses back
// equal, and a file holding it decodes to it through its recorded range.
#include "fuzz_util.h"
#include "paimon_rowid/codec/deletion_vector.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paimon_rowid;
  using namespace paimon_rowid::fuzz;
  std::string_view bytes = AsView(data, size);
  // The framed form at an arbitrary range of the input.
  if (size >= 2) {
    DeletionVectorRange range{"f", 0, static_cast<int64_t>(size) - 8, std::nullopt};
    (void)DecodeDeletionVectorAt(bytes, range, "fuzz");
  }
  auto dv = DeletionVector::Deserialize(bytes);
  if (!dv.ok()) return 0;
  const auto& positions = dv->positions();
  for (size_t i = 1; i < positions.size(); ++i) FUZZ_CHECK(positions[i - 1] < positions[i]);
  auto serialized = dv->Serialize();
  FUZZ_CHECK(serialized.ok(), serialized.status());
  auto again = DeletionVector::Deserialize(*serialized);
  FUZZ_CHECK(again.ok(), again.status());
  FUZZ_CHECK(*again == *dv);
  auto file = EncodeDeletionVectorFile({{"data.parquet", *dv}});
  FUZZ_CHECK(file.ok(), file.status());
  for (const auto& r : file->ranges) {
    auto back =
        DecodeDeletionVectorAt(std::string_view(file->bytes).substr(r.offset), r, "encoded");
    FUZZ_CHECK(back.ok(), back.status());
    FUZZ_CHECK(*back == *dv);
  }
  return 0;
}
