#include "paimon_rowid/commit/stamping.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "paimon_rowid/types/data_type.h"

namespace paimon_rowid {
namespace {

bool ContainsRowId(const std::optional<std::vector<std::string>>& cols) {
  return cols && std::find(cols->begin(), cols->end(), system_fields::kRowId) != cols->end();
}

}  // namespace

void StampSequenceNumbers(std::vector<ManifestEntry>* entries, int64_t snapshot_id) {
  for (auto& e : *entries) {
    if (e.kind == FileKind::kDelete) continue;  // a live file, named as it is listed
    if (e.file.min_sequence_number == 0) {
      e.file.min_sequence_number = snapshot_id;
      e.file.max_sequence_number = snapshot_id;
    } else if (e.file.max_sequence_number == 0) {
      e.file.max_sequence_number = snapshot_id;
    }
  }
}

std::vector<ManifestEntry> GroupByPartition(std::vector<ManifestEntry> entries) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<ManifestEntry>> by_partition;
  for (auto& e : entries) {
    auto it = by_partition.find(e.partition);
    if (it == by_partition.end()) {
      order.push_back(e.partition);
      it = by_partition.emplace(e.partition, std::vector<ManifestEntry>{}).first;
    }
    it->second.push_back(std::move(e));
  }
  std::vector<ManifestEntry> out;
  for (const auto& p : order) {
    for (auto& e : by_partition[p]) out.push_back(std::move(e));
  }
  return out;
}

Result<int64_t> AssignRowIds(std::vector<ManifestEntry>* entries, int64_t start) {
  int64_t blob_start_default = start;
  std::map<std::string, int64_t> blob_starts;
  int64_t vector_start = start;
  for (auto& e : *entries) {
    if (e.kind == FileKind::kDelete) continue;
    DataFileMeta& f = e.file;
    if (!f.file_source) {
      return Status::Invalid("file source field for row-tracking table must present (file '",
                             f.file_name, "')");
    }
    if (*f.file_source != static_cast<int32_t>(FileSource::kAppend) || f.first_row_id ||
        ContainsRowId(f.write_cols)) {
      continue;
    }
    if (f.is_blob_file()) {
      if (!f.write_cols || f.write_cols->empty()) {
        return Status::Invalid("blob file '", f.file_name, "' has no write columns");
      }
      const std::string& field = f.write_cols->front();
      auto it = blob_starts.find(field);
      int64_t first = it == blob_starts.end() ? blob_start_default : it->second;
      if (first >= start) {
        return Status::Invalid("blob file '", f.file_name,
                               "' does not follow a normal file covering its rows");
      }
      f.first_row_id = first;
      blob_starts[field] = first + f.row_count;
    } else if (f.is_vector_file()) {
      if (vector_start >= start) {
        return Status::Invalid("vector file '", f.file_name,
                               "' does not follow a normal file covering its rows");
      }
      f.first_row_id = vector_start;
      vector_start += f.row_count;
    } else {
      f.first_row_id = start;
      blob_start_default = start;
      blob_starts.clear();
      start += f.row_count;
    }
  }
  return start;
}

}  // namespace paimon_rowid
