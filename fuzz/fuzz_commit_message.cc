// Serialized commit messages (meta/commit_message.h), shipped from writers to the committer
// (pickled in Python, sent between Ray workers): a JSON header and an Avro manifest. Round
// trip: a parsed message serializes and parses back equal.
#include "fuzz_util.h"
#include "paimon_rowid/meta/commit_message.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paimon_rowid;
  using namespace paimon_rowid::fuzz;
  auto message = CommitMessage::Deserialize(AsView(data, size));
  if (!message.ok()) return 0;
  auto bytes = message->Serialize();
  FUZZ_CHECK(bytes.ok(), bytes.status());
  auto again = CommitMessage::Deserialize(*bytes);
  FUZZ_CHECK(again.ok(), again.status());
  FUZZ_CHECK(again->partition == message->partition && again->bucket == message->bucket &&
             again->total_buckets == message->total_buckets &&
             again->check_from_snapshot == message->check_from_snapshot &&
             again->new_files == message->new_files);
  return 0;
}
