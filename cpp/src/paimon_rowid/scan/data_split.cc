// DataSplit: one bucket's file groups with its row count, file paths and its wire form
// (Serialize/Deserialize: a JSON header and the files as an Avro manifest, in an envelope).
// The planning that produces splits is in plan.cc.
#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "paimon_rowid/codec/envelope.h"
#include "paimon_rowid/common/checked_json.h"
#include "paimon_rowid/scan/plan.h"

namespace paimon_rowid {
namespace {

constexpr EnvelopeKind kSplitKind{{'P', 'R', 'S', 'P'}, 1, "split"};

}  // namespace

// ------------------------------------------------------------------------ DataSplit

int64_t GroupRowCount(const FileGroup& group) { return GroupRange(group).count(); }

RowRange GroupRange(const FileGroup& group) {
  RowRange r{0, -1};
  bool any = false;
  for (const auto& f : group) {
    if (!f.is_normal_file() || !f.first_row_id) continue;
    if (!any) {
      r = {*f.first_row_id, f.last_row_id()};
      any = true;
    } else {
      r.from = std::min(r.from, *f.first_row_id);
      r.to = std::max(r.to, f.last_row_id());
    }
  }
  if (!any) {
    // No normal file with row ids: a legacy file without row ids, or an orphan blob group.
    for (const auto& f : group) {
      if (f.first_row_id) {
        r = any ? RowRange{std::min(r.from, *f.first_row_id), std::max(r.to, f.last_row_id())}
                : RowRange{*f.first_row_id, f.last_row_id()};
        any = true;
      }
    }
    if (!any && !group.empty()) r = {0, group.front().row_count - 1};
  }
  return r;
}

int64_t DataSplit::RowCount() const {
  // Saturating: the counts come from manifests (or a shipped split) and may be hostile.
  int64_t n = 0;
  auto add = [&n](int64_t count) {
    if (__builtin_add_overflow(n, count, &n)) n = std::numeric_limits<int64_t>::max();
  };
  for (const auto& g : groups) {
    RowRange r = GroupRange(g);
    if (!row_ranges) {
      add(r.count());
    } else {
      for (const auto& piece : IntersectRanges(*row_ranges, r.from, r.to)) add(piece.count());
    }
  }
  return n;
}

std::string DataSplit::FilePath(const DataFileMeta& file) const {
  if (file.external_path) return *file.external_path;
  return JoinPath(bucket_dir, file.file_name);
}

std::vector<std::string> DataSplit::FilePaths() const {
  std::vector<std::string> out;
  for (const auto& g : groups) {
    for (const auto& f : g) out.push_back(FilePath(f));
  }
  return out;
}

Result<std::string> DataSplit::Serialize() const {
  // Header JSON + the files as a manifest (Avro, uncompressed): one self-describing blob.
  nlohmann::json header;
  header["snapshot_id"] = snapshot_id;
  header["bucket"] = bucket;
  header["bucket_dir"] = bucket_dir;
  std::vector<size_t> sizes;
  std::vector<ManifestEntry> entries;
  for (const auto& g : groups) {
    sizes.push_back(g.size());
    for (const auto& f : g) {
      ManifestEntry e;
      e.partition = partition;
      e.bucket = bucket;
      e.file = f;
      entries.push_back(std::move(e));
    }
  }
  header["group_sizes"] = sizes;
  if (row_ranges) {
    nlohmann::json rr = nlohmann::json::array();
    for (const auto& r : *row_ranges) rr.push_back({r.from, r.to});
    header["row_ranges"] = rr;
  }
  if (!deletion_files.empty()) {
    nlohmann::json dv = nlohmann::json::object();
    for (const auto& [name, f] : deletion_files) {
      nlohmann::json item = {
          {"path", f.path}, {"file_size", f.file_size}, {"offset", f.offset}, {"length", f.length}};
      if (f.cardinality) item["cardinality"] = *f.cardinality;
      dv[name] = std::move(item);
    }
    header["deletion_files"] = std::move(dv);
  }
  // The partition bytes travel in the entries; keep them also for splits without files.
  header["partition"] = ToHex(partition);
  ARROW_ASSIGN_OR_RAISE(auto manifest, EncodeManifest(entries, "null"));
  return SealEnvelope(
      kSplitKind, header.dump(),
      std::string_view(reinterpret_cast<const char*>(manifest->data()), manifest->size()));
}

Result<DataSplit> DataSplit::Deserialize(std::string_view bytes) {
  ARROW_ASSIGN_OR_RAISE(auto parts, OpenEnvelope(kSplitKind, bytes));
  DataSplit split;
  ARROW_RETURN_NOT_OK(CatchJsonErrors("serialized split is malformed: ", [&]() -> Status {
    auto header = nlohmann::json::parse(parts.header);
    split.snapshot_id = JsonInteger<int64_t>(header.at("snapshot_id"));
    split.bucket = JsonInteger<int32_t>(header.at("bucket"));
    split.bucket_dir = header.at("bucket_dir").get<std::string>();
    ARROW_ASSIGN_OR_RAISE(split.partition, FromHex(header.at("partition").get<std::string>()));
    if (header.contains("row_ranges")) {
      std::vector<RowRange> rr;
      for (const auto& r : header["row_ranges"]) {
        RowRange range{JsonInteger<int64_t>(r.at(0)), JsonInteger<int64_t>(r.at(1))};
        // Serialize writes them sorted and merged; RowCount and the readers rely on it.
        if (range.from > range.to || (!rr.empty() && range.from <= rr.back().to)) {
          return Status::Invalid("serialized split has unsorted or invalid row ranges");
        }
        rr.push_back(range);
      }
      split.row_ranges = std::move(rr);
    }
    if (header.contains("deletion_files")) {
      for (const auto& [name, item] : header["deletion_files"].items()) {
        DeletionFile f;
        f.data_file = name;
        f.path = item.at("path").get<std::string>();
        f.file_size = JsonInteger<int64_t>(item.at("file_size"));
        f.offset = JsonInteger<int64_t>(item.at("offset"));
        f.length = JsonInteger<int64_t>(item.at("length"));
        if (item.contains("cardinality")) {
          f.cardinality = JsonInteger<int64_t>(item["cardinality"]);
        }
        split.deletion_files.emplace(name, std::move(f));
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto entries,
                          DecodeManifest(arrow::Buffer::FromString(std::string(parts.body))));
    size_t next = 0;
    for (const auto& size_json : header.at("group_sizes")) {
      size_t size = JsonInteger<size_t>(size_json);
      // `size > left`, not `next + size > entries.size()`: a huge size must not wrap around.
      if (size > entries.size() - next) return Status::Invalid("serialized split is inconsistent");
      FileGroup g;
      for (size_t i = 0; i < size; ++i) g.push_back(entries[next + i].file);
      next += size;
      split.groups.push_back(std::move(g));
    }
    return Status::OK();
  }));
  return split;
}

}  // namespace paimon_rowid
