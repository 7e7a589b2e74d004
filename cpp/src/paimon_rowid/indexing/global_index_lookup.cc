// Key lookups through a btree global index (docs/global-index.md §"Reading").
#include <algorithm>

#include "paimon_rowid/gindex/btree_file.h"
#include "paimon_rowid/indexing/global_index.h"
#include "paimon_rowid/scan/deletion_files.h"

namespace paimon_rowid {

Result<GlobalIndexLookup> LookupGlobalIndex(const Table& table, const Snapshot& snapshot,
                                            const std::string& column, const arrow::Array& keys) {
  const DataField* field = table.schema().FieldByName(column);
  if (field == nullptr) {
    return Status::Invalid("Column '", column, "' does not exist in table '",
                           table.identifier().FullName(), "'.");
  }
  ARROW_ASSIGN_OR_RAISE(KeyCodec codec, KeyCodec::Make(*field->type));
  ARROW_ASSIGN_OR_RAISE(auto files,
                        LiveGlobalIndexFiles(table, snapshot, field->id, kBTreeIndexType));
  if (files.empty()) {
    return Status::KeyError("column '", column, "' has no btree global index in snapshot ",
                            snapshot.id);
  }
  std::vector<std::string> wanted;
  for (int64_t i = 0; i < keys.length(); ++i) {
    if (keys.IsNull(i)) continue;
    std::string key;
    ARROW_RETURN_NOT_OK(codec.Append(keys, i, &key));
    wanted.push_back(std::move(key));
  }
  std::sort(wanted.begin(), wanted.end(),
            [&](const std::string& a, const std::string& b) { return codec.Compare(a, b) < 0; });
  wanted.erase(std::unique(wanted.begin(), wanted.end(),
                           [&](const std::string& a, const std::string& b) {
                             return codec.Compare(a, b) == 0;
                           }),
               wanted.end());

  GlobalIndexLookup out;
  std::vector<RowRange> covered;
  for (const IndexManifestEntry& e : files) {
    const GlobalIndexMeta& g = *e.global_index;
    covered.push_back({g.row_range_start, g.row_range_end});
    // The first and last keys of the file rule it out without reading it.
    std::vector<const std::string*> candidates;
    std::optional<SortedIndexFileMeta> meta;
    if (g.index_meta) {
      ARROW_ASSIGN_OR_RAISE(meta, SortedIndexFileMeta::Deserialize(*g.index_meta));
    }
    for (const std::string& key : wanted) {
      if (meta &&
          (!meta->first_key || !meta->last_key || codec.Compare(key, *meta->first_key) < 0 ||
           codec.Compare(key, *meta->last_key) > 0)) {
        continue;
      }
      candidates.push_back(&key);
    }
    if (candidates.empty()) continue;
    ARROW_ASSIGN_OR_RAISE(auto bytes, table.file_io()->ReadFile(IndexEntryPath(table, e)));
    ARROW_ASSIGN_OR_RAISE(auto reader, BTreeFileReader::Open(std::move(bytes), codec, e.file_name));
    ++out.files_read;
    for (const std::string* key : candidates) {
      ARROW_ASSIGN_OR_RAISE(auto ids, reader->Lookup(*key));
      for (int64_t id : ids) {
        if (id > g.row_range_end - g.row_range_start) {
          return Status::Invalid("global index file '", e.file_name, "' holds row id ", id,
                                 " beyond its range [", g.row_range_start, ", ", g.row_range_end,
                                 "]");
        }
        out.row_ids.push_back(g.row_range_start + id);
      }
    }
  }
  std::sort(out.row_ids.begin(), out.row_ids.end());
  out.row_ids.erase(std::unique(out.row_ids.begin(), out.row_ids.end()), out.row_ids.end());
  out.covered = SortAndMerge(std::move(covered));
  return out;
}

}  // namespace paimon_rowid
