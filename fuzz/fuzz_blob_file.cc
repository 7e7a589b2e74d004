// `.blob` files (codec/blob_file.h): trailer, DeltaVarint index and entry layout, through both
// the in-memory parser and the ranged tail reader. Every value entry must lie inside the file
// before the index; the two readers must agree; the payloads rewritten with BlobFileWriter
// give a file whose index has the same rows.
#include "arrow/io/memory.h"
#include "fuzz_util.h"
#include "paimon_rowid/codec/blob_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paimon_rowid;
  using namespace paimon_rowid::fuzz;
  std::string_view file = AsView(data, size);
  auto parsed = BlobFileIndex::Parse(file, "fuzz.blob");

  arrow::io::BufferReader source(AsBuffer(data, size));
  auto read = BlobFileIndex::Read(&source, static_cast<int64_t>(size), "fuzz.blob");
  FUZZ_CHECK(parsed.ok() == read.ok(), parsed.ok() ? read.status() : parsed.status());
  if (!parsed.ok()) return 0;
  const BlobFileIndex& index = **parsed;
  FUZZ_CHECK(index.num_rows() == (*read)->num_rows());

  auto sink = arrow::io::BufferOutputStream::Create().ValueOrDie();
  BlobFileWriter writer(sink);
  for (int64_t row = 0; row < index.num_rows(); ++row) {
    BlobEntry e = index.entry(row);
    BlobEntry r = (*read)->entry(row);
    FUZZ_CHECK(e.kind == r.kind && e.payload_offset == r.payload_offset &&
               e.payload_length == r.payload_length);
    switch (e.kind) {
      case BlobEntry::Kind::kValue:
        FUZZ_CHECK(e.payload_offset >= 4 && e.payload_length >= 0 &&
                   e.payload_offset + e.payload_length <= static_cast<int64_t>(size));
        FUZZ_CHECK(writer.AddValue(file.substr(e.payload_offset, e.payload_length)).ok());
        break;
      case BlobEntry::Kind::kNull:
        writer.AddNull();
        break;
      case BlobEntry::Kind::kPlaceholder:
        writer.AddPlaceholder();
        break;
    }
  }
  FUZZ_CHECK(writer.Close().ok());
  auto rewritten = sink->Finish().ValueOrDie();
  auto again = BlobFileIndex::Parse(AsView(rewritten->data(), rewritten->size()), "again.blob");
  FUZZ_CHECK(again.ok(), again.status());
  FUZZ_CHECK((*again)->num_rows() == index.num_rows());
  for (int64_t row = 0; row < index.num_rows(); ++row) {
    FUZZ_CHECK((*again)->entry(row).kind == index.entry(row).kind);
    FUZZ_CHECK((*again)->entry(row).payload_length == index.entry(row).payload_length);
  }
  return 0;
}
