#include "paimon_rowid/commit/manifest_writer.h"

#include <algorithm>
#include <unordered_map>

#include "paimon_rowid/catalog/table_options.h"
#include "paimon_rowid/common/identifier.h"
#include "paimon_rowid/scan/manifest_cache.h"
#include "paimon_rowid/scan/partition.h"
#include "paimon_rowid/write/stats.h"

namespace paimon_rowid {
namespace {

Result<SimpleStats> PartitionStats(const std::vector<ManifestEntry>& entries, size_t begin,
                                   size_t end, const std::vector<DataField>& fields) {
  if (fields.empty()) return SimpleStats::Empty();
  std::vector<std::shared_ptr<arrow::DataType>> types;
  for (const auto& f : fields) types.push_back(f.type->ToArrow());
  StatsCollector collector(types);
  const std::string* last = nullptr;
  for (size_t i = begin; i < end; ++i) {
    const ManifestEntry& e = entries[i];
    if (last != nullptr && e.partition == *last) continue;  // runs of one partition
    last = &e.partition;
    ARROW_ASSIGN_OR_RAISE(auto values, DecodePartition(e.partition, fields));
    ARROW_RETURN_NOT_OK(collector.UpdateScalars(values));
  }
  return collector.Finish();
}

// The manifest-list record of entries[begin, end) (everything but the file name and size).
Result<ManifestFileMeta> DescribeManifest(const std::vector<ManifestEntry>& entries, size_t begin,
                                          size_t end, const std::vector<DataField>& fields) {
  ManifestFileMeta meta;
  ARROW_ASSIGN_OR_RAISE(meta.partition_stats, PartitionStats(entries, begin, end, fields));
  bool all_row_ids = true;
  for (size_t i = begin; i < end; ++i) {
    const ManifestEntry& e = entries[i];
    (e.kind == FileKind::kAdd ? meta.num_added_files : meta.num_deleted_files) += 1;
    meta.schema_id = std::max(meta.schema_id, e.file.schema_id);
    meta.min_bucket = meta.min_bucket ? std::min(*meta.min_bucket, e.bucket) : e.bucket;
    meta.max_bucket = meta.max_bucket ? std::max(*meta.max_bucket, e.bucket) : e.bucket;
    meta.min_level = meta.min_level ? std::min(*meta.min_level, e.file.level) : e.file.level;
    meta.max_level = meta.max_level ? std::max(*meta.max_level, e.file.level) : e.file.level;
    if (e.file.first_row_id) {
      int64_t lo = *e.file.first_row_id, hi = e.file.last_row_id();
      meta.min_row_id = meta.min_row_id ? std::min(*meta.min_row_id, lo) : lo;
      meta.max_row_id = meta.max_row_id ? std::max(*meta.max_row_id, hi) : hi;
    } else {
      all_row_ids = false;
    }
  }
  if (!all_row_ids) meta.min_row_id = meta.max_row_id = std::nullopt;
  return meta;
}

Result<ManifestFileMeta> WriteOne(const Table& table, const std::vector<ManifestEntry>& entries,
                                  size_t begin, size_t end, const std::vector<DataField>& fields,
                                  const ManifestWriteOptions& options,
                                  std::vector<std::string>* written) {
  ARROW_ASSIGN_OR_RAISE(auto meta, DescribeManifest(entries, begin, end, fields));
  std::vector<ManifestEntry> slice(entries.begin() + static_cast<std::ptrdiff_t>(begin),
                                   entries.begin() + static_cast<std::ptrdiff_t>(end));
  ARROW_ASSIGN_OR_RAISE(auto bytes, EncodeManifest(slice, options.codec, options.zstd_level));
  meta.file_name = "manifest-" + RandomUuid() + "-0";
  meta.file_size = bytes->size();
  const std::string path = table.ManifestPath(meta.file_name);
  ARROW_RETURN_NOT_OK(table.file_io()->WriteFileUnsynced(path, bytes->ToString()));
  written->push_back(path);  // ours once created: a taken name is someone else's
  return meta;
}

}  // namespace

Result<ManifestWriteOptions> ManifestWriteOptions::FromTable(const Table& table) {
  ARROW_ASSIGN_OR_RAISE(const ManifestSettings s, ParseManifestSettings(table.options()));
  ManifestWriteOptions out;
  out.codec = s.avro_codec;
  out.zstd_level = s.zstd_level;
  out.target_file_size = s.target_file_size;
  out.merge_min_count = static_cast<int>(s.merge_min_count);
  return out;
}

Result<std::vector<ManifestFileMeta>> WriteManifests(const Table& table,
                                                     const std::vector<ManifestEntry>& entries,
                                                     const ManifestWriteOptions& options,
                                                     std::vector<std::string>* written) {
  ARROW_ASSIGN_OR_RAISE(auto fields, PartitionFields(table.schema()));
  std::vector<ManifestFileMeta> out;
  if (entries.empty()) return out;
  ARROW_ASSIGN_OR_RAISE(auto whole,
                        WriteOne(table, entries, 0, entries.size(), fields, options, written));
  if (whole.file_size <= options.target_file_size) {
    out.push_back(std::move(whole));
    return out;
  }
  // Too big for one file: split by entry count so each piece is about the target size (the
  // encoded size per entry is roughly uniform). The oversized file is not listed anywhere.
  ARROW_RETURN_NOT_OK(table.file_io()->DeleteFile(written->back()));
  written->pop_back();
  const size_t pieces = static_cast<size_t>((whole.file_size + options.target_file_size - 1) /
                                            options.target_file_size);
  const size_t per_piece = (entries.size() + pieces - 1) / pieces;
  for (size_t begin = 0; begin < entries.size(); begin += per_piece) {
    const size_t end = std::min(entries.size(), begin + per_piece);
    ARROW_ASSIGN_OR_RAISE(auto meta,
                          WriteOne(table, entries, begin, end, fields, options, written));
    out.push_back(std::move(meta));
  }
  return out;
}

Result<std::vector<ManifestFileMeta>> MergeSmallManifests(const Table& table,
                                                          std::vector<ManifestFileMeta> metas,
                                                          const ManifestWriteOptions& options,
                                                          std::vector<std::string>* written) {
  size_t run_start = metas.size();
  while (run_start > 0 && metas[run_start - 1].file_size < options.target_file_size) --run_start;
  if (metas.size() - run_start < static_cast<size_t>(options.merge_min_count)) return metas;

  // Fold the run in order: a DELETE cancels an ADD of the same file inside the run; a DELETE
  // whose ADD is in an earlier manifest is kept (it still has to cancel that ADD).
  std::vector<std::optional<ManifestEntry>> folded;
  std::unordered_map<std::string, size_t> added_at;
  for (size_t m = run_start; m < metas.size(); ++m) {
    ARROW_ASSIGN_OR_RAISE(auto entries,
                          ReadManifestEntries(table, metas[m].file_name, metas[m].file_size));
    for (const auto& e : *entries) {
      std::string key = FileIdentifier(e);
      if (e.kind == FileKind::kDelete) {
        auto it = added_at.find(key);
        if (it != added_at.end()) {
          folded[it->second].reset();
          added_at.erase(it);
          continue;
        }
      } else {
        added_at[key] = folded.size();
      }
      folded.push_back(e);
    }
  }
  std::vector<ManifestEntry> kept;
  kept.reserve(folded.size());
  for (auto& e : folded) {
    if (e) kept.push_back(std::move(*e));
  }
  ARROW_ASSIGN_OR_RAISE(auto merged, WriteManifests(table, kept, options, written));
  metas.resize(run_start);
  for (auto& meta : merged) metas.push_back(std::move(meta));
  return metas;
}

}  // namespace paimon_rowid
