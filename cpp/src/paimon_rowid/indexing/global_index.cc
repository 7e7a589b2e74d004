#include "paimon_rowid/indexing/global_index.h"

#include <arrow/array/concatenate.h>
#include <arrow/compute/api_scalar.h>
#include <arrow/compute/api_vector.h>
#include <arrow/table.h>

#include <algorithm>
#include <cmath>

#include "paimon_rowid/commit/committer.h"
#include "paimon_rowid/common/identifier.h"
#include "paimon_rowid/gindex/bitmap_file.h"
#include "paimon_rowid/read/table_read.h"
#include "paimon_rowid/scan/deletion_files.h"
#include "paimon_rowid/scan/partition_filter.h"
#include "paimon_rowid/scan/plan.h"

namespace paimon_rowid {
namespace {

constexpr int64_t kDefaultRecordsPerFile = 25'000'000;
constexpr double kRecordsPerFileFloating = 1.2;  // pypaimon's and Java's slack

struct BuildRange {
  std::string partition;
  RowRange range;
};

// [lo, hi] minus sorted, merged `covered`.
std::vector<RowRange> Subtract(int64_t lo, int64_t hi, const std::vector<RowRange>& covered) {
  std::vector<RowRange> out;
  int64_t next = lo;
  for (const auto& c : covered) {
    if (c.to < next) continue;
    if (c.from > hi) break;
    if (c.from > next) out.push_back({next, c.from - 1});
    next = std::max(next, c.to + 1);
    if (next > hi) break;
  }
  if (next <= hi) out.push_back({next, hi});
  return out;
}

Result<const DataField*> IndexField(const Table& table, const std::string& column) {
  const DataField* field = table.schema().FieldByName(column);
  if (field == nullptr) {
    return Status::Invalid("Column '", column, "' does not exist in table '",
                           table.identifier().FullName(), "'.");
  }
  return field;
}

Status CheckIndexType(const std::string& index_type) {
  if (index_type == kBTreeIndexType || index_type == kBitmapIndexType) return Status::OK();
  return Status::Invalid("global index type '", index_type,
                         "' is not supported; paimon-rowid builds btree and bitmap indexes");
}

// Partitions `filter` selects, decided once each; every partition when there is no filter.
class PartitionSelector {
 public:
  static Result<PartitionSelector> Make(const Table& table, const Predicate* filter) {
    PartitionSelector s;
    if (filter != nullptr) {
      ARROW_ASSIGN_OR_RAISE(s.filter_, PartitionFilter::Make(table.schema(), filter));
    }
    return s;
  }
  Result<bool> Selects(const std::string& partition) {
    if (!filter_) return true;
    return filter_->Matches(partition);
  }

 private:
  std::unique_ptr<PartitionFilter> filter_;
};

bool IsIndexOf(const IndexManifestEntry& e, int32_t field_id, const std::string& type) {
  return e.kind == FileKind::kAdd && e.global_index && e.index_type == type &&
         e.global_index->index_field_id == field_id &&
         (!e.global_index->extra_field_ids || e.global_index->extra_field_ids->empty());
}

// The row ranges to index: each selected partition's contiguous row-id segments of live data
// files, minus what the index covers (pypaimon's build plan, without its split packing).
Result<std::vector<BuildRange>> PlanRanges(const Table& table, const Snapshot& snapshot,
                                           int32_t field_id, const std::string& index_type,
                                           PartitionSelector* partitions) {
  std::vector<BuildRange> out;
  if (!snapshot.next_row_id || *snapshot.next_row_id <= 0) return out;
  ARROW_ASSIGN_OR_RAISE(auto live_index, ReadLiveIndexEntries(table, snapshot));
  std::vector<RowRange> covered;
  for (const auto& e : live_index) {
    if (!IsIndexOf(e, field_id, index_type)) continue;
    ARROW_ASSIGN_OR_RAISE(bool selected, partitions->Selects(e.partition));
    if (selected)
      covered.push_back({e.global_index->row_range_start, e.global_index->row_range_end});
  }
  covered = SortAndMerge(std::move(covered));
  const std::vector<RowRange> unindexed = Subtract(0, *snapshot.next_row_id - 1, covered);
  if (unindexed.empty()) return out;

  ARROW_ASSIGN_OR_RAISE(auto live, ReadLiveEntries(table, snapshot, nullptr));
  std::map<std::string, std::vector<RowRange>> by_partition;
  for (const auto& e : live) {
    if (!e.file.first_row_id) {
      return Status::Invalid("Cannot build global index because file '", e.file.file_name,
                             "' has no row id range.");
    }
    if (e.file.row_count <= 0) continue;
    ARROW_ASSIGN_OR_RAISE(bool selected, partitions->Selects(e.partition));
    if (!selected) continue;
    by_partition[e.partition].push_back(
        {*e.file.first_row_id, *e.file.first_row_id + e.file.row_count - 1});
  }
  for (auto& [partition, ranges] : by_partition) {
    for (const RowRange& segment : SortAndMerge(std::move(ranges), /*merge_adjacent=*/true)) {
      for (const RowRange& r : IntersectRanges(unindexed, segment.from, segment.to)) {
        out.push_back({partition, r});
      }
    }
  }
  std::sort(out.begin(), out.end(),
            [](const BuildRange& a, const BuildRange& b) { return a.range.from < b.range.from; });
  return out;
}

// The column and _ROW_ID of the rows in `range`, sorted by (key, row id) with nulls first.
Result<std::shared_ptr<arrow::Table>> ReadSorted(const std::shared_ptr<const Table>& pinned,
                                                 const std::string& column, const RowRange& range) {
  ARROW_ASSIGN_OR_RAISE(ScanPlan plan, ScanPlanner(pinned).WithRowRanges({range}).Plan());
  ReadOptions read_options;
  read_options.fields = {column, "_ROW_ID"};
  read_options.threads = 0;
  ARROW_ASSIGN_OR_RAISE(auto reader, TableRead::Make(pinned, read_options));
  ARROW_ASSIGN_OR_RAISE(auto batches, reader->Read(std::move(plan.splits)));
  ARROW_ASSIGN_OR_RAISE(auto table, batches->ToTable());
  ARROW_ASSIGN_OR_RAISE(table, table->CombineChunks());
  if (table->column(1)->null_count() > 0) {
    return Status::Invalid("Cannot build global index because _ROW_ID is null.");
  }
  // TIMESTAMP(7..9) keys keep microseconds (pypaimon's): sort by the key, not the nanoseconds,
  // so the row ids of one key ascend.
  const auto& key_type = table->column(0)->type();
  if (key_type->id() == arrow::Type::TIMESTAMP &&
      static_cast<const arrow::TimestampType&>(*key_type).unit() == arrow::TimeUnit::NANO) {
    ARROW_ASSIGN_OR_RAISE(arrow::Datum floored,
                          arrow::compute::FloorTemporal(
                              table->column(0), arrow::compute::RoundTemporalOptions(
                                                    1, arrow::compute::CalendarUnit::MICROSECOND)));
    ARROW_ASSIGN_OR_RAISE(table,
                          table->SetColumn(0, table->schema()->field(0), floored.chunked_array()));
  }
  // Arrow places NaN with the nulls: at the end, values < NaN < null. The index wants nulls
  // first and NaN above every number, so the null tail moves to the front.
  arrow::compute::SortOptions sort(
      {arrow::compute::SortKey(column), arrow::compute::SortKey("_ROW_ID")},
      arrow::compute::NullPlacement::AtEnd);
  ARROW_ASSIGN_OR_RAISE(auto indices, arrow::compute::SortIndices(arrow::Datum(table), sort));
  const int64_t nulls = table->column(0)->null_count();
  if (nulls > 0) {
    const int64_t n = indices->length();
    ARROW_ASSIGN_OR_RAISE(
        indices, arrow::Concatenate({indices->Slice(n - nulls), indices->Slice(0, n - nulls)}));
  }
  ARROW_ASSIGN_OR_RAISE(arrow::Datum sorted, arrow::compute::Take(table, indices));
  ARROW_ASSIGN_OR_RAISE(auto out, sorted.table()->CombineChunks());
  return out;
}

struct WrittenFile {
  std::string path;
  IndexManifestEntry entry;
};

// How the files of one index are written: its type and its writer's options.
struct SortedWriteOptions {
  std::string type;
  BTreeWriteOptions btree;
  BitmapWriteOptions bitmap;
};

template <typename Writer>
Result<BTreeFile> WriteChunk(Writer writer, const arrow::Array& keys,
                             const arrow::Int64Array& row_ids, int64_t begin, int64_t end,
                             int64_t range_start, const KeyCodec& codec) {
  std::string key;
  for (int64_t i = begin; i < end; ++i) {
    const int64_t relative = row_ids.Value(i) - range_start;
    if (keys.IsNull(i)) {
      ARROW_RETURN_NOT_OK(writer.AddNull(relative));
      continue;
    }
    key.clear();
    ARROW_RETURN_NOT_OK(codec.Append(keys, i, &key));
    ARROW_RETURN_NOT_OK(writer.Add(key, relative));
  }
  return writer.Finish();
}

// Writes the sorted rows of one range as index files of at most `per_file` rows each.
Status WriteRange(const Table& table, const KeyCodec& codec, const SortedWriteOptions& options,
                  int64_t per_file, int32_t field_id, const BuildRange& build,
                  const arrow::Table& rows, std::vector<WrittenFile>* written) {
  const auto keys = rows.column(0)->chunk(0);
  const auto& row_ids = static_cast<const arrow::Int64Array&>(*rows.column(1)->chunk(0));
  const int64_t n = rows.num_rows();
  for (int64_t begin = 0; begin < n; begin += per_file) {
    const int64_t end = std::min(n, begin + per_file);
    BTreeFile file;
    if (options.type == kBitmapIndexType) {
      ARROW_ASSIGN_OR_RAISE(file, WriteChunk(BitmapFileWriter(codec, options.bitmap), *keys,
                                             row_ids, begin, end, build.range.from, codec));
    } else {
      ARROW_ASSIGN_OR_RAISE(file, WriteChunk(BTreeFileWriter(codec, options.btree), *keys, row_ids,
                                             begin, end, build.range.from, codec));
    }
    WrittenFile out;
    out.entry.kind = FileKind::kAdd;
    out.entry.partition = build.partition;
    out.entry.bucket = 0;
    out.entry.index_type = options.type;
    out.entry.file_name = options.type + "-global-index-" + RandomUuid() + ".index";
    out.entry.file_size = static_cast<int64_t>(file.bytes.size());
    out.entry.row_count = file.row_count;
    out.entry.global_index = GlobalIndexMeta{build.range.from, build.range.to,        field_id,
                                             std::nullopt,     file.meta.Serialize(), std::nullopt};
    out.path = table.IndexFilePath(out.entry.file_name);
    ARROW_RETURN_NOT_OK(table.file_io()->WriteFileNoReplace(out.path, file.bytes));
    written->push_back(std::move(out));
  }
  return Status::OK();
}

Result<SortedWriteOptions> WriteOptionsOf(const std::string& type, const Options& options,
                                          int64_t* per_file) {
  SortedWriteOptions sorted;
  sorted.type = type;
  BTreeWriteOptions& out = sorted.btree;
  ARROW_ASSIGN_OR_RAISE(out.block_size, options.GetMemorySize("btree-index.block-size", 64 << 10));
  ARROW_ASSIGN_OR_RAISE(out.bloom_filter,
                        options.GetBool("btree-index.bloom-filter.enabled", false));
  ARROW_ASSIGN_OR_RAISE(out.compression,
                        ParseBlockCompression(options.GetOr("btree-index.compression", "none")));
  ARROW_ASSIGN_OR_RAISE(int64_t level, options.GetInt("btree-index.compression-level", 1));
  out.compression_level = static_cast<int>(level);
  ARROW_ASSIGN_OR_RAISE(
      sorted.bitmap.dictionary_block_size,
      options.GetMemorySize("bitmap-index.dictionary-block-size", int64_t{16} << 10));
  if (sorted.bitmap.dictionary_block_size <= 0) {
    return Status::Invalid("bitmap-index.dictionary-block-size must be positive.");
  }
  std::string bitmap_compression = options.GetOr("bitmap-index.compression", "none");
  std::transform(bitmap_compression.begin(), bitmap_compression.end(), bitmap_compression.begin(),
                 ::tolower);
  if (type == kBitmapIndexType && bitmap_compression != "none") {
    // pypaimon writes uncompressed bitmap files only; so do we (compressed ones are read).
    return Status::Invalid("bitmap-index.compression must be 'none' for a build, got '",
                           bitmap_compression, "'");
  }
  if (out.block_size <= 0) return Status::Invalid("btree-index.block-size must be positive");
  // pypaimon's lookup order; its declared 10M default of btree-index.records-per-range is
  // never used.
  int64_t records = kDefaultRecordsPerFile;
  for (const char* key : {"sorted-index.records-per-file", "sorted-index.records-per-range",
                          "btree-index.records-per-range"}) {
    if (options.Contains(key)) {
      ARROW_ASSIGN_OR_RAISE(records, options.GetInt(key, records));
      break;
    }
  }
  if (records <= 0) return Status::Invalid("sorted-index.records-per-file must be positive.");
  *per_file = std::max<int64_t>(
      1, static_cast<int64_t>(static_cast<double>(records) * kRecordsPerFileFloating));
  return sorted;
}

void DeleteQuietly(const Table& table, const std::vector<WrittenFile>& written) {
  for (const auto& f : written) (void)table.file_io()->DeleteFile(f.path);
}

}  // namespace

Result<int64_t> CreateGlobalIndex(std::shared_ptr<const Table> table,
                                  const GlobalIndexBuildOptions& options) {
  ARROW_RETURN_NOT_OK(CheckIndexType(options.index_type));
  if (!table->row_tracking_enabled()) {
    return Status::Invalid("Table '", table->identifier().FullName(),
                           "' must enable 'row-tracking.enabled=true' before creating global "
                           "index.");
  }
  ARROW_ASSIGN_OR_RAISE(const DataField* field, IndexField(*table, options.column));
  ARROW_ASSIGN_OR_RAISE(KeyCodec codec, KeyCodec::Make(*field->type));
  int64_t per_file = 0;
  ARROW_ASSIGN_OR_RAISE(
      SortedWriteOptions write_options,
      WriteOptionsOf(options.index_type, table->options().With(options.options), &per_file));
  ARROW_ASSIGN_OR_RAISE(auto partitions,
                        PartitionSelector::Make(*table, options.partition_filter.get()));

  ARROW_ASSIGN_OR_RAISE(std::optional<Snapshot> snapshot, table->LatestSnapshot());
  if (!snapshot) return 0;
  ARROW_ASSIGN_OR_RAISE(std::vector<BuildRange> ranges,
                        PlanRanges(*table, *snapshot, field->id, options.index_type, &partitions));
  if (ranges.empty()) return 0;
  ARROW_ASSIGN_OR_RAISE(
      std::shared_ptr<const Table> pinned,
      table->Copy({{"scan.snapshot-id", std::to_string(snapshot->id)},
                   {Table::kReadSchemaIdOption, std::to_string(table->schema().id)},
                   {"scan.tag-name", std::nullopt},
                   {"scan.timestamp-millis", std::nullopt}}));

  int64_t row_ids = 0;
  for (const BuildRange& build : ranges) row_ids += build.range.count();
  ProgressTotal(options.progress, row_ids);
  std::vector<WrittenFile> written;
  std::vector<CommitMessage> messages;
  Status status = [&]() -> Status {
    for (const BuildRange& build : ranges) {
      ARROW_RETURN_NOT_OK(ProgressCheck(options.progress, "create_global_index"));
      ARROW_ASSIGN_OR_RAISE(auto rows, ReadSorted(pinned, field->name, build.range));
      if (rows->num_rows() == 0) {
        ProgressDone(options.progress, build.range.count());
        continue;
      }
      const size_t before = written.size();
      ARROW_RETURN_NOT_OK(
          WriteRange(*table, codec, write_options, per_file, field->id, build, *rows, &written));
      CommitMessage msg;
      msg.partition = build.partition;
      msg.bucket = 0;
      msg.table_path = table->path();
      for (size_t i = before; i < written.size(); ++i) {
        msg.new_index_files.push_back(written[i].entry);
      }
      messages.push_back(std::move(msg));
      ProgressDone(options.progress, build.range.count());
    }
    if (messages.empty()) return Status::OK();
    ARROW_RETURN_NOT_OK(ProgressCheck(options.progress, "create_global_index"));
    ARROW_ASSIGN_OR_RAISE(auto committer, Committer::Make(table));
    return committer->Commit(messages).status();
  }();
  if (!status.ok()) {
    DeleteQuietly(*table, written);
    return status;
  }
  return static_cast<int64_t>(written.size());
}

Result<int64_t> DropGlobalIndex(std::shared_ptr<const Table> table, const std::string& column,
                                const std::string& index_type,
                                std::shared_ptr<Predicate> partition_filter, bool dry_run) {
  ARROW_ASSIGN_OR_RAISE(const DataField* field, IndexField(*table, column));
  ARROW_ASSIGN_OR_RAISE(auto partitions, PartitionSelector::Make(*table, partition_filter.get()));
  ARROW_ASSIGN_OR_RAISE(std::optional<Snapshot> snapshot, table->LatestSnapshot());
  if (!snapshot) return 0;
  ARROW_ASSIGN_OR_RAISE(auto files, LiveGlobalIndexFiles(*table, *snapshot, field->id, index_type));
  std::map<std::string, CommitMessage> by_partition;
  int64_t count = 0;
  for (auto& e : files) {
    ARROW_ASSIGN_OR_RAISE(bool selected, partitions.Selects(e.partition));
    if (!selected) continue;
    CommitMessage& msg = by_partition[e.partition];
    msg.partition = e.partition;
    msg.bucket = e.bucket;
    msg.table_path = table->path();
    msg.deleted_index_files.push_back(std::move(e));
    ++count;
  }
  if (dry_run || count == 0) return count;
  std::vector<CommitMessage> messages;
  for (auto& [partition, msg] : by_partition) messages.push_back(std::move(msg));
  ARROW_ASSIGN_OR_RAISE(auto committer, Committer::Make(table));
  ARROW_RETURN_NOT_OK(committer->Commit(messages).status());
  return count;
}

Result<ExternalIndexPlan> PlanExternalIndexBuild(std::shared_ptr<const Table> table,
                                                 const std::string& column,
                                                 const std::string& index_type,
                                                 std::shared_ptr<Predicate> partition_filter) {
  if (!table->row_tracking_enabled()) {
    return Status::Invalid("Table '", table->identifier().FullName(),
                           "' must enable 'row-tracking.enabled=true' before creating global "
                           "index.");
  }
  ARROW_ASSIGN_OR_RAISE(const DataField* field, IndexField(*table, column));
  ARROW_ASSIGN_OR_RAISE(auto partitions, PartitionSelector::Make(*table, partition_filter.get()));
  ExternalIndexPlan plan;
  plan.field_id = field->id;
  ARROW_ASSIGN_OR_RAISE(std::optional<Snapshot> snapshot, table->LatestSnapshot());
  if (!snapshot) return plan;
  plan.snapshot_id = snapshot->id;
  ARROW_ASSIGN_OR_RAISE(std::vector<BuildRange> ranges,
                        PlanRanges(*table, *snapshot, field->id, index_type, &partitions));
  for (auto& r : ranges) plan.ranges.push_back({std::move(r.partition), r.range});
  return plan;
}

Result<std::vector<IndexManifestEntry>> WriteSortedIndexRange(
    std::shared_ptr<const Table> pinned, const GlobalIndexBuildOptions& options,
    const std::string& partition, RowRange range) {
  ARROW_RETURN_NOT_OK(CheckIndexType(options.index_type));
  ARROW_ASSIGN_OR_RAISE(const DataField* field, IndexField(*pinned, options.column));
  ARROW_ASSIGN_OR_RAISE(KeyCodec codec, KeyCodec::Make(*field->type));
  int64_t per_file = 0;
  ARROW_ASSIGN_OR_RAISE(
      SortedWriteOptions write_options,
      WriteOptionsOf(options.index_type, pinned->options().With(options.options), &per_file));
  std::vector<WrittenFile> written;
  Status status = [&]() -> Status {
    ARROW_ASSIGN_OR_RAISE(auto rows, ReadSorted(pinned, field->name, range));
    if (rows->num_rows() == 0) return Status::OK();
    return WriteRange(*pinned, codec, write_options, per_file, field->id,
                      BuildRange{partition, range}, *rows, &written);
  }();
  if (!status.ok()) {
    DeleteQuietly(*pinned, written);
    return status;
  }
  std::vector<IndexManifestEntry> out;
  for (auto& f : written) out.push_back(std::move(f.entry));
  return out;
}

Result<int64_t> CommitExternalIndexFiles(std::shared_ptr<const Table> table,
                                         std::vector<IndexManifestEntry> entries) {
  std::vector<std::string> paths;
  for (const auto& e : entries) paths.push_back(IndexEntryPath(*table, e));
  Result<int64_t> committed = [&]() -> Result<int64_t> {
    std::map<std::string, CommitMessage> by_partition;
    for (auto& e : entries) {
      if (!e.global_index || e.kind != FileKind::kAdd || e.index_type.empty()) {
        return Status::Invalid("an external index file needs an ADD entry with global index meta");
      }
      CommitMessage& msg = by_partition[e.partition];
      msg.partition = e.partition;
      msg.bucket = 0;
      msg.table_path = table->path();
      e.bucket = 0;
      msg.new_index_files.push_back(std::move(e));
    }
    if (by_partition.empty()) return 0;
    std::vector<CommitMessage> messages;
    for (auto& [partition, msg] : by_partition) messages.push_back(std::move(msg));
    ARROW_ASSIGN_OR_RAISE(auto committer, Committer::Make(table));
    ARROW_ASSIGN_OR_RAISE(std::optional<int64_t> id, committer->Commit(messages));
    return id.value_or(0);
  }();
  if (!committed.ok()) {
    for (const auto& path : paths) (void)table->file_io()->DeleteFile(path);
  }
  return committed;
}

Result<std::vector<int64_t>> DeletedRowIds(const Table& table, const Snapshot& snapshot) {
  std::vector<int64_t> out;
  ARROW_ASSIGN_OR_RAISE(DeletionFileMap dvs, LoadDeletionFiles(table, snapshot));
  if (dvs.empty()) return out;
  ARROW_ASSIGN_OR_RAISE(auto live, ReadLiveEntries(table, snapshot, nullptr));
  std::map<std::string, int64_t> first_row_ids;
  for (const auto& e : live) {
    if (e.file.first_row_id) first_row_ids[e.file.file_name] = *e.file.first_row_id;
  }
  for (const auto& [key, files] : dvs) {
    for (const auto& [data_file, file] : files) {
      auto anchor = first_row_ids.find(data_file);
      if (anchor == first_row_ids.end()) continue;  // a vector of a file no longer live
      ARROW_ASSIGN_OR_RAISE(DeletionVector dv, ReadDeletionVector(*table.file_io(), file));
      for (int64_t position : dv.positions()) out.push_back(anchor->second + position);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace paimon_rowid
