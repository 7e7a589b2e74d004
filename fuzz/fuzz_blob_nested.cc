// ARRAY<BLOB> and MAP<K, BLOB> payload framing inside .blob entries (codec/blob_file_nested.h),
// and the map-key decoding. The first byte chooses ARRAY or MAP and the key type; the rest is
// the payload. Every slot must lie inside the payload; the keys decode or are refused; the
// payload rebuilt from the parsed lengths parses to the same layout.
#include <vector>

#include "arrow/builder.h"
#include "arrow/type.h"
#include "fuzz_util.h"
#include "paimon_rowid/codec/blob_file_nested.h"

namespace {

using paimon_rowid::BlobNestedLayout;

const std::vector<std::shared_ptr<arrow::DataType>>& KeyTypes() {
  static const auto* types =
      new std::vector<std::shared_ptr<arrow::DataType>>{arrow::int8(),
                                                        arrow::int16(),
                                                        arrow::int32(),
                                                        arrow::int64(),
                                                        arrow::boolean(),
                                                        arrow::decimal128(10, 2),
                                                        arrow::decimal128(38, 4),
                                                        arrow::date32(),
                                                        arrow::time32(arrow::TimeUnit::MILLI),
                                                        arrow::binary(),
                                                        arrow::utf8()};
  return *types;
}

std::vector<int64_t> Lengths(const std::vector<BlobNestedLayout::Slot>& slots) {
  std::vector<int64_t> out;
  for (const auto& s : slots) out.push_back(s.length);
  return out;
}

void CheckSlots(const std::vector<BlobNestedLayout::Slot>& slots, int64_t size) {
  for (const auto& s : slots) {
    if (s.is_null()) continue;
    FUZZ_CHECK(s.offset >= paimon_rowid::kBlobNestedHeaderSize && s.length >= 0 &&
               s.offset + s.length <= size);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paimon_rowid;
  using namespace paimon_rowid::fuzz;
  Input in(data, size);
  const uint8_t mode = in.Byte();
  std::string_view payload = in.Rest();
  const auto length = static_cast<int64_t>(payload.size());
  auto reader = InMemoryPayloadReader(payload);

  if (mode % 2 == 0) {
    auto layout = ParseBlobArrayPayload(length, reader, "fuzz");
    if (!layout.ok()) return 0;
    CheckSlots(layout->values, length);
    std::string rebuilt = EncodeBlobArrayHeader(static_cast<int32_t>(layout->values.size()));
    for (const auto& s : layout->values) {
      if (!s.is_null()) rebuilt += payload.substr(s.offset, s.length);
    }
    rebuilt += EncodeBlobArrayTrailer(Lengths(layout->values));
    auto again = ParseBlobArrayPayload(static_cast<int64_t>(rebuilt.size()),
                                       InMemoryPayloadReader(rebuilt), "again");
    FUZZ_CHECK(again.ok(), again.status());
    FUZZ_CHECK(Lengths(again->values) == Lengths(layout->values));
    return 0;
  }

  const auto& key_type = KeyTypes()[(mode / 2) % KeyTypes().size()];
  auto layout = ParseBlobMapPayload(length, reader, MapBlobKeyFixedWidth(*key_type), "fuzz");
  if (!layout.ok()) return 0;
  CheckSlots(layout->keys, length);
  CheckSlots(layout->values, length);
  FUZZ_CHECK(layout->keys.size() == layout->values.size());
  std::unique_ptr<arrow::ArrayBuilder> builder;
  FUZZ_CHECK(arrow::MakeBuilder(arrow::default_memory_pool(), key_type, &builder).ok());
  std::string rebuilt = EncodeBlobMapHeader(static_cast<int32_t>(layout->keys.size()));
  for (const auto& s : layout->keys) {
    if (s.is_null()) continue;
    const int64_t at = s.offset - layout->key_data_offset;
    FUZZ_CHECK(at >= 0 && at + s.length <= static_cast<int64_t>(layout->key_data.size()));
    std::string_view key = std::string_view(layout->key_data).substr(at, s.length);
    (void)AppendMapBlobKey(key, builder.get());
    rebuilt += key;
  }
  for (const auto& s : layout->values) {
    if (!s.is_null()) rebuilt += payload.substr(s.offset, s.length);
  }
  rebuilt += EncodeBlobMapTrailer(Lengths(layout->keys), Lengths(layout->values));
  auto again =
      ParseBlobMapPayload(static_cast<int64_t>(rebuilt.size()), InMemoryPayloadReader(rebuilt),
                          MapBlobKeyFixedWidth(*key_type), "again");
  FUZZ_CHECK(again.ok(), again.status());
  FUZZ_CHECK(Lengths(again->keys) == Lengths(layout->keys));
  FUZZ_CHECK(Lengths(again->values) == Lengths(layout->values));
  return 0;
}
