// Serialized splits (scan/plan.h DataSplit), the plan envelope shipped to workers: a JSON
// header (snapshot, bucket, group sizes, row ranges) and an Avro manifest of the files. The
// row counting and path building a worker does on a split run on what was parsed. Round
// trip: a parsed split serializes and parses back equal.
#include "fuzz_util.h"
#include "paimon_rowid/scan/plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paimon_rowid;
  using namespace paimon_rowid::fuzz;
  auto split = DataSplit::Deserialize(AsView(data, size));
  if (!split.ok()) return 0;
  (void)split->RowCount();
  (void)split->FilePaths();
  auto bytes = split->Serialize();
  FUZZ_CHECK(bytes.ok(), bytes.status());
  auto again = DataSplit::Deserialize(*bytes);
  FUZZ_CHECK(again.ok(), again.status());
  FUZZ_CHECK(again->snapshot_id == split->snapshot_id && again->partition == split->partition &&
             again->bucket == split->bucket && again->bucket_dir == split->bucket_dir &&
             again->groups == split->groups && again->row_ranges == split->row_ranges);
  return 0;
}
