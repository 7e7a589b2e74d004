#include "paimon_rowid/scan/deletion_files.h"

#include <limits>
#include <tuple>

#include "paimon_rowid/common/identifier.h"

namespace paimon_rowid {
namespace {

// Vectors this close to the start of their index file are read together with the version
// byte in one request.
constexpr int64_t kReadHeadWithin = 64 << 10;

}  // namespace

Result<std::vector<IndexManifestEntry>> ReadLiveIndexEntries(const Table& table,
                                                             const Snapshot& snapshot) {
  std::vector<IndexManifestEntry> live;
  if (!snapshot.index_manifest || snapshot.index_manifest->empty()) return live;
  ARROW_ASSIGN_OR_RAISE(auto data,
                        table.file_io()->ReadFile(table.ManifestPath(*snapshot.index_manifest)));
  ARROW_ASSIGN_OR_RAISE(auto entries, DecodeIndexManifest(std::move(data)));
  // Java and pypaimon write the whole live set as ADD entries; net out DELETE entries all
  // the same, matching by (partition, bucket, file name).
  for (auto& e : entries) {
    auto same = [&](const IndexManifestEntry& x) {
      return std::tie(x.partition, x.bucket, x.file_name) ==
             std::tie(e.partition, e.bucket, e.file_name);
    };
    if (e.kind == FileKind::kDelete) {
      for (auto it = live.begin(); it != live.end(); ++it) {
        if (same(*it)) {
          live.erase(it);
          break;
        }
      }
      continue;
    }
    live.push_back(std::move(e));
  }
  return live;
}

std::string IndexEntryPath(const Table& table, const IndexManifestEntry& entry) {
  if (entry.external_path) return *entry.external_path;
  return table.IndexFilePath(entry.file_name);
}

Result<DeletionFileMap> DeletionFilesOf(const Table& table,
                                        const std::vector<IndexManifestEntry>& entries) {
  DeletionFileMap out;
  for (const auto& e : entries) {
    if (e.index_type != kDeletionVectorsIndex || !e.dv_ranges) continue;
    auto& bucket = out[{e.partition, e.bucket}];
    for (const auto& r : *e.dv_ranges) {
      DeletionFile f;
      f.data_file = r.data_file;
      f.path = IndexEntryPath(table, e);
      f.file_size = e.file_size;
      f.offset = r.offset;
      f.length = r.length;
      f.cardinality = r.cardinality;
      if (!bucket.emplace(r.data_file, std::move(f)).second) {
        return Status::Invalid("data file '", r.data_file,
                               "' has two deletion vectors in the index manifest");
      }
    }
  }
  return out;
}

Result<DeletionFileMap> LoadDeletionFiles(const Table& table, const Snapshot& snapshot) {
  ARROW_ASSIGN_OR_RAISE(auto entries, ReadLiveIndexEntries(table, snapshot));
  return DeletionFilesOf(table, entries);
}

const DataFileMeta* DeletionAnchor(const FileGroup& group) {
  const DataFileMeta* anchor = nullptr;
  for (const auto& f : group) {
    if (!f.is_normal_file()) continue;
    if (anchor == nullptr || std::tie(f.max_sequence_number, f.file_name) <
                                 std::tie(anchor->max_sequence_number, anchor->file_name)) {
      anchor = &f;
    }
  }
  return anchor;
}

Result<DeletionVector> ReadDeletionVector(const FileIO& io, const DeletionFile& file) {
  if (file.offset < 1 || file.length < 0 || file.length > std::numeric_limits<int32_t>::max() ||
      (file.file_size > 0 && file.offset > file.file_size - 8 - file.length)) {
    return Status::Invalid("deletion vector range (offset ", file.offset, ", length ", file.length,
                           ") lies outside index file '", file.path, "' of ", file.file_size,
                           " bytes");
  }
  ARROW_ASSIGN_OR_RAISE(auto input, file.file_size > 0
                                        ? io.OpenInputWithSize(file.path, file.file_size)
                                        : io.OpenInput(file.path));
  const bool with_head = file.offset <= kReadHeadWithin;
  const int64_t start = with_head ? 0 : file.offset;
  const int64_t end = file.offset + 8 + file.length;
  ARROW_ASSIGN_OR_RAISE(auto data, input->ReadAt(start, end - start));
  if (data->size() != end - start) {
    return Status::IOError("index file '", file.path, "' ends before its deletion vector (",
                           data->size(), " of ", end - start, " bytes read)");
  }
  std::string_view bytes(reinterpret_cast<const char*>(data->data()), data->size());
  if (with_head) ARROW_RETURN_NOT_OK(CheckDeletionVectorFileVersion(bytes, file.path));
  DeletionVectorRange range{file.data_file, file.offset, file.length, file.cardinality};
  return DecodeDeletionVectorAt(bytes.substr(file.offset - start), range, file.path);
}

Result<std::map<std::string, DeletionVector>> ReadBucketVectors(
    const Table& table, const std::vector<const IndexManifestEntry*>& files,
    const std::set<std::string>& live_data_files) {
  std::map<std::string, DeletionVector> vectors;
  for (const IndexManifestEntry* e : files) {
    const std::string path = IndexEntryPath(table, *e);
    ARROW_ASSIGN_OR_RAISE(auto data, table.file_io()->ReadFile(path));
    std::string_view bytes(reinterpret_cast<const char*>(data->data()), data->size());
    ARROW_RETURN_NOT_OK(CheckDeletionVectorFileVersion(bytes, path));
    for (const auto& r : e->dv_ranges.value_or(std::vector<DeletionVectorRange>{})) {
      if (!live_data_files.count(r.data_file)) continue;
      if (r.offset < 1 || static_cast<uint64_t>(r.offset) > bytes.size()) {
        return Status::Invalid("deletion vector of '", r.data_file, "' lies outside index file '",
                               path, "'");
      }
      ARROW_ASSIGN_OR_RAISE(auto dv, DecodeDeletionVectorAt(bytes.substr(r.offset), r, path));
      vectors[r.data_file].AddAll(dv.positions());
    }
  }
  return vectors;
}

Result<IndexManifestEntry> WriteBucketVectors(const Table& table, const std::string& partition,
                                              int32_t bucket,
                                              const std::map<std::string, DeletionVector>& vectors,
                                              std::vector<std::string>* written) {
  ARROW_ASSIGN_OR_RAISE(auto encoded, EncodeDeletionVectorFile(vectors));
  const std::string name = "index-" + RandomUuid() + "-1";
  const std::string path = table.IndexFilePath(name);
  ARROW_RETURN_NOT_OK(table.file_io()->MakeDirs(path.substr(0, path.rfind('/'))));
  // Listed for cleanup once created: a name that is taken is someone else's file.
  ARROW_RETURN_NOT_OK(table.file_io()->WriteNewFile(path, encoded.bytes));
  written->push_back(path);
  IndexManifestEntry entry;
  entry.partition = partition;
  entry.bucket = bucket;
  entry.index_type = kDeletionVectorsIndex;
  entry.file_name = name;
  entry.file_size = static_cast<int64_t>(encoded.bytes.size());
  entry.row_count = static_cast<int64_t>(encoded.ranges.size());
  entry.dv_ranges = std::move(encoded.ranges);
  return entry;
}

}  // namespace paimon_rowid
