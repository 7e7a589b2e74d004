#include "paimon_rowid/scan/global_index_scan.h"

#include <arrow/compute/cast.h>

#include <algorithm>

#include "paimon_rowid/gindex/btree_file.h"
#include "paimon_rowid/scan/deletion_files.h"

namespace paimon_rowid {
namespace {

bool IsIndexOf(const IndexManifestEntry& e, int32_t field_id, const std::string& type) {
  return e.kind == FileKind::kAdd && e.global_index && e.index_type == type &&
         e.global_index->index_field_id == field_id &&
         (!e.global_index->extra_field_ids || e.global_index->extra_field_ids->empty());
}

// `keys` looked up in `files` (the live btree files of one column, not empty).
Result<GlobalIndexLookup> LookupInFiles(const Table& table, const KeyCodec& codec,
                                        const std::vector<IndexManifestEntry>& files,
                                        const arrow::Array& keys) {
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

}  // namespace

Result<std::vector<IndexManifestEntry>> LiveGlobalIndexFiles(const Table& table,
                                                             const Snapshot& snapshot,
                                                             int32_t field_id,
                                                             const std::string& index_type) {
  ARROW_ASSIGN_OR_RAISE(auto live_index, ReadLiveIndexEntries(table, snapshot));
  std::vector<IndexManifestEntry> out;
  for (auto& e : live_index) {
    if (IsIndexOf(e, field_id, index_type)) out.push_back(std::move(e));
  }
  return out;
}

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
  return LookupInFiles(table, codec, files, keys);
}

Result<std::optional<GlobalIndexRanges>> RangesFromGlobalIndexes(const Table& table,
                                                                 const Snapshot& snapshot,
                                                                 const Predicate& predicate) {
  if (!snapshot.index_manifest || !snapshot.next_row_id || *snapshot.next_row_id <= 0) {
    return std::nullopt;
  }
  ARROW_ASSIGN_OR_RAISE(bool enabled, table.options().GetBool("global-index.enabled", true));
  if (!enabled) return std::nullopt;
  std::vector<const Predicate*> conjuncts;
  if (predicate.op() == Predicate::Op::kAnd) {
    for (const auto& c : predicate.children()) conjuncts.push_back(c.get());
  } else {
    conjuncts.push_back(&predicate);
  }
  std::vector<const Predicate*> usable;
  for (const Predicate* c : conjuncts) {
    if ((c->op() == Predicate::Op::kEqual || c->op() == Predicate::Op::kIn) && c->literals() &&
        table.schema().FieldByName(c->field()) != nullptr) {
      usable.push_back(c);
    }
  }
  if (usable.empty()) return std::nullopt;
  ARROW_ASSIGN_OR_RAISE(auto live_index, ReadLiveIndexEntries(table, snapshot));
  const int64_t last = *snapshot.next_row_id - 1;
  std::optional<std::vector<RowRange>> ranges;
  GlobalIndexRanges out;
  out.stats.rows_total = *snapshot.next_row_id;
  for (const Predicate* c : usable) {
    const DataField* field = table.schema().FieldByName(c->field());
    auto codec = KeyCodec::Make(*field->type);
    if (!codec.ok()) continue;  // a key type we cannot read yet: the conjunct is scanned
    std::vector<IndexManifestEntry> files;
    for (const auto& e : live_index) {
      if (IsIndexOf(e, field->id, kBTreeIndexType)) files.push_back(e);
    }
    if (files.empty()) continue;
    std::shared_ptr<arrow::Array> keys = c->literals();
    const auto arrow_type = field->type->ToArrow();
    if (!keys->type()->Equals(*arrow_type)) {
      auto cast = arrow::compute::Cast(*keys, arrow_type);
      if (!cast.ok()) continue;  // literals the column's keys cannot hold: scanned
      keys = *cast;
    }
    ARROW_ASSIGN_OR_RAISE(GlobalIndexLookup found, LookupInFiles(table, *codec, files, *keys));
    out.stats.files_read += found.files_read;
    out.stats.columns.push_back(field->name);
    // Matches, plus every row id the index does not cover.
    std::vector<RowRange> mine;
    for (int64_t id : found.row_ids) mine.push_back({id, id});
    int64_t next = 0;
    for (const RowRange& r : found.covered) {
      if (r.from > next) mine.push_back({next, std::min(r.from - 1, last)});
      next = std::max(next, r.to + 1);
    }
    if (next <= last) mine.push_back({next, last});
    mine = SortAndMerge(std::move(mine));
    if (!ranges) {
      ranges = std::move(mine);
    } else {
      std::vector<RowRange> both;
      for (const auto& r : *ranges) {
        for (const auto& p : IntersectRanges(mine, r.from, r.to)) both.push_back(p);
      }
      ranges = SortAndMerge(std::move(both));
    }
  }
  if (!ranges) return std::nullopt;
  out.ranges = std::move(*ranges);
  for (const auto& r : out.ranges) out.stats.rows_selected += r.count();
  return out;
}

}  // namespace paimon_rowid
