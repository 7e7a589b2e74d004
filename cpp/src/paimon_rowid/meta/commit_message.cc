#include "paimon_rowid/meta/commit_message.h"

#include <nlohmann/json.hpp>

#include "paimon_rowid/codec/envelope.h"
#include "paimon_rowid/common/checked_json.h"

namespace paimon_rowid {
namespace {

// Payload version 2: the first version in the common envelope (1 had its own framing).
constexpr EnvelopeKind kCommitMessageKind{{'P', 'R', 'C', 'M'}, 2, "commit message"};

}  // namespace

Result<std::string> CommitMessage::Serialize() const {
  nlohmann::json header;
  header["partition"] = ToHex(partition);
  header["bucket"] = bucket;
  header["total_buckets"] = total_buckets;
  if (check_from_snapshot) header["check_from_snapshot"] = *check_from_snapshot;
  if (!table_path.empty()) header["table"] = table_path;
  if (!new_index_files.empty() || !deleted_index_files.empty()) {
    // The index files as an (uncompressed) index manifest, in hex inside the header.
    std::vector<IndexManifestEntry> index = new_index_files;
    for (auto e : deleted_index_files) {
      e.kind = FileKind::kDelete;
      index.push_back(std::move(e));
    }
    for (auto& e : index) {
      e.partition = partition;
      e.bucket = bucket;
    }
    ARROW_ASSIGN_OR_RAISE(auto encoded, EncodeIndexManifest(index, "null"));
    header["index_files"] = ToHex(encoded->ToString());
  }
  std::vector<ManifestEntry> entries;
  entries.reserve(new_files.size() + deleted_files.size());
  auto add = [&](const DataFileMeta& f, FileKind kind) {
    ManifestEntry e;
    e.kind = kind;
    e.partition = partition;
    e.bucket = bucket;
    e.total_buckets = total_buckets;
    e.file = f;
    entries.push_back(std::move(e));
  };
  for (const auto& f : new_files) add(f, FileKind::kAdd);
  for (const auto& f : deleted_files) add(f, FileKind::kDelete);
  ARROW_ASSIGN_OR_RAISE(auto manifest, EncodeManifest(entries, "null"));
  return SealEnvelope(
      kCommitMessageKind, header.dump(),
      std::string_view(reinterpret_cast<const char*>(manifest->data()), manifest->size()));
}

Result<CommitMessage> CommitMessage::Deserialize(std::string_view bytes) {
  ARROW_ASSIGN_OR_RAISE(auto parts, OpenEnvelope(kCommitMessageKind, bytes));
  CommitMessage msg;
  ARROW_RETURN_NOT_OK(CatchJsonErrors("serialized commit message is malformed: ", [&]() -> Status {
    auto header = nlohmann::json::parse(parts.header);
    ARROW_ASSIGN_OR_RAISE(msg.partition, FromHex(header.at("partition").get<std::string>()));
    msg.bucket = JsonInteger<int32_t>(header.at("bucket"));
    msg.total_buckets = JsonInteger<int32_t>(header.at("total_buckets"));
    if (header.contains("check_from_snapshot")) {
      msg.check_from_snapshot = JsonInteger<int64_t>(header["check_from_snapshot"]);
    }
    if (header.contains("table")) msg.table_path = header["table"].get<std::string>();
    if (header.contains("index_files")) {
      ARROW_ASSIGN_OR_RAISE(std::string bytes, FromHex(header["index_files"].get<std::string>()));
      ARROW_ASSIGN_OR_RAISE(auto index,
                            DecodeIndexManifest(arrow::Buffer::FromString(std::move(bytes))));
      for (auto& e : index) {
        const bool added = e.kind == FileKind::kAdd;
        e.kind = FileKind::kAdd;
        (added ? msg.new_index_files : msg.deleted_index_files).push_back(std::move(e));
      }
    }
    return Status::OK();
  }));
  ARROW_ASSIGN_OR_RAISE(auto entries,
                        DecodeManifest(arrow::Buffer::FromString(std::string(parts.body))));
  for (auto& e : entries) {
    (e.kind == FileKind::kAdd ? msg.new_files : msg.deleted_files).push_back(std::move(e.file));
  }
  return msg;
}

}  // namespace paimon_rowid
