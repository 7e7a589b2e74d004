// Serialized row-id indexes (rowid/row_id_index.h), built by a driver and shipped to workers:
// a JSON header and one serialized single-group split per group. Routing a few ids and the
// summaries run on what was parsed. Round trip: a parsed index serializes and parses back to
// the same groups and valid ranges.
#include "arrow/array/builder_primitive.h"
#include "fuzz_util.h"
#include "paimon_rowid/rowid/row_id_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paimon_rowid;
  using namespace paimon_rowid::fuzz;
  auto index = RowIdIndex::Deserialize(AsView(data, size));
  if (!index.ok()) return 0;
  const RowIdIndex& idx = **index;
  (void)idx.total_rows();
  (void)idx.ValidRangesString();

  arrow::Int64Builder ids;
  FUZZ_CHECK(ids.Append(-1).ok() && ids.Append(0).ok());
  for (const auto& r : idx.valid_ranges())
    FUZZ_CHECK(ids.Append(r.from).ok() && ids.Append(r.to).ok());
  std::shared_ptr<arrow::Int64Array> array;
  FUZZ_CHECK(ids.Finish(&array).ok());
  if (auto routed = idx.Route(*array, "fuzz"); routed.ok()) {
    for (int32_t g : *routed) FUZZ_CHECK(g >= 0 && static_cast<size_t>(g) < idx.groups().size());
  }

  auto bytes = idx.Serialize();
  FUZZ_CHECK(bytes.ok(), bytes.status());
  auto again = RowIdIndex::Deserialize(*bytes);
  FUZZ_CHECK(again.ok(), again.status());
  FUZZ_CHECK((*again)->snapshot_id() == idx.snapshot_id());
  FUZZ_CHECK((*again)->valid_ranges() == idx.valid_ranges());
  FUZZ_CHECK((*again)->groups().size() == idx.groups().size());
  for (size_t g = 0; g < idx.groups().size(); ++g) {
    FUZZ_CHECK((*again)->groups()[g].files == idx.groups()[g].files);
    FUZZ_CHECK((*again)->groups()[g].range == idx.groups()[g].range);
  }
  return 0;
}
