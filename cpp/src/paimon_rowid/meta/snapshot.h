// Snapshot JSON (docs/format.md §2) and tag files (§7, a snapshot plus tag fields).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

struct Snapshot {
  static constexpr int64_t kBatchCommitIdentifier = 9223372036854775807LL;

  int32_t version = 3;
  std::optional<std::string> uuid;
  int64_t id = 0;
  int64_t schema_id = 0;
  std::string base_manifest_list;
  std::optional<int64_t> base_manifest_list_size;
  std::string delta_manifest_list;
  std::optional<int64_t> delta_manifest_list_size;
  std::optional<std::string> changelog_manifest_list;
  std::optional<int64_t> changelog_manifest_list_size;
  std::optional<std::string> index_manifest;
  std::string commit_user;
  std::optional<std::string> writer_version;
  int64_t commit_identifier = kBatchCommitIdentifier;
  std::string commit_kind = "APPEND";  // APPEND, COMPACT, OVERWRITE, ANALYZE
  int64_t time_millis = 0;
  std::optional<int64_t> total_record_count;
  std::optional<int64_t> delta_record_count;
  std::optional<int64_t> changelog_record_count;
  std::optional<int64_t> watermark;
  std::optional<std::string> statistics;
  std::map<std::string, std::string> properties;  // empty => omitted
  std::optional<int64_t> next_row_id;
  std::optional<std::string> operation;

  /// Parses snapshot (or tag) JSON; unknown keys are ignored, missing optional keys are
  /// null. Malformed JSON or a missing/ill-typed required key is Invalid.
  static Result<Snapshot> FromJson(std::string_view json);
  /// Java's key order, pretty-printed; null optionals omitted.
  std::string ToJson() const;
};

/// A tag: the tagged snapshot plus optional creation time and retention, kept as raw JSON.
struct Tag {
  Snapshot snapshot;
  std::optional<std::string> tag_create_time_json;  // Java LocalDateTime array, verbatim
  std::optional<std::string> tag_time_retained;     // Duration as decimal seconds

  static Result<Tag> FromJson(std::string_view json);
  std::string ToJson() const;
};

}  // namespace paimon_rowid
