// BlobDescriptor bytes (codec/blob_file.h), the values of BLOB columns stored by reference.
// Round trip: a parsed descriptor serializes (as version 2) and parses back equal; the
// detection rule and the uri resolution run on what was parsed.
#include "fuzz_util.h"
#include "paimon_rowid/codec/blob_file.h"
#include "paimon_rowid/fs/file_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paimon_rowid;
  using namespace paimon_rowid::fuzz;
  std::string_view bytes = AsView(data, size);
  (void)BlobDescriptor::LooksLikeDescriptor(bytes);
  auto descriptor = BlobDescriptor::Deserialize(bytes);
  if (!descriptor.ok()) return 0;
  FUZZ_CHECK(descriptor->offset >= 0 && descriptor->length >= 0);
  (void)UriScheme(descriptor->uri);
  (void)FileIO::Local()->CheckUri(descriptor->uri);
  BlobDescriptor v2 = *descriptor;
  v2.version = 2;
  std::string serialized = v2.Serialize();
  FUZZ_CHECK(BlobDescriptor::LooksLikeDescriptor(serialized));
  auto again = BlobDescriptor::Deserialize(serialized);
  FUZZ_CHECK(again.ok(), again.status());
  FUZZ_CHECK(again->uri == descriptor->uri && again->offset == descriptor->offset &&
             again->length == descriptor->length && again->version == 2);
  return 0;
}
