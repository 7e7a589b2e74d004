#include "paimon_rowid/scan/global_index_scan.h"

#include <arrow/compute/cast.h>

#include <algorithm>

#include "paimon_rowid/gindex/bitmap_file.h"
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
  std::vector<int64_t> row_ids;
  ARROW_ASSIGN_OR_RAISE(GlobalIndexLookup out,
                        MatchSortedKeys(table, codec, files, wanted,
                                        [&](size_t, int64_t id) { row_ids.push_back(id); }));
  std::sort(row_ids.begin(), row_ids.end());
  row_ids.erase(std::unique(row_ids.begin(), row_ids.end()), row_ids.end());
  out.row_ids = std::move(row_ids);
  return out;
}

}  // namespace

Result<GlobalIndexLookup> MatchSortedKeys(const Table& table, const KeyCodec& codec,
                                          const std::vector<IndexManifestEntry>& files,
                                          const std::vector<std::string>& keys,
                                          const std::function<void(size_t, int64_t)>& found) {
  GlobalIndexLookup out;
  std::vector<RowRange> covered, unreadable;
  for (const IndexManifestEntry& e : files) {
    const GlobalIndexMeta& g = *e.global_index;
    covered.push_back({g.row_range_start, g.row_range_end});
    // The first and last keys of the file rule it out without reading it.
    std::optional<SortedIndexFileMeta> meta;
    if (g.index_meta) {
      ARROW_ASSIGN_OR_RAISE(meta, SortedIndexFileMeta::Deserialize(*g.index_meta));
    }
    std::vector<std::string_view> candidates;
    std::vector<size_t> positions;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (meta &&
          (!meta->first_key || !meta->last_key || codec.Compare(keys[i], *meta->first_key) < 0 ||
           codec.Compare(keys[i], *meta->last_key) > 0)) {
        continue;
      }
      candidates.push_back(keys[i]);
      positions.push_back(i);
    }
    if (candidates.empty()) continue;
    ARROW_ASSIGN_OR_RAISE(
        auto file, table.file_io()->OpenInputWithSize(IndexEntryPath(table, e), e.file_size));
    auto opened =
        OpenSortedIndexReader(e.index_type, std::move(file), e.file_size, codec, e.file_name);
    if (opened.status().IsNotImplemented()) {
      // A layout this engine does not read (Java 1.4's bitmap files): its rows count as
      // unindexed, so callers scan them.
      unreadable.push_back({g.row_range_start, g.row_range_end});
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto reader, std::move(opened));
    ++out.files_read;
    ARROW_RETURN_NOT_OK(
        reader->LookupSorted(candidates, [&](size_t k, std::vector<int64_t> ids) -> Status {
          for (int64_t id : ids) {
            if (id > g.row_range_end - g.row_range_start) {
              return Status::Invalid("global index file '", e.file_name, "' holds row id ", id,
                                     " beyond its range [", g.row_range_start, ", ",
                                     g.row_range_end, "]");
            }
            found(positions[k], g.row_range_start + id);
          }
          return Status::OK();
        }));
    out.bytes_read += reader->bytes_read();
  }
  out.covered = SortAndMerge(std::move(covered));
  for (const RowRange& u : SortAndMerge(std::move(unreadable))) {
    std::vector<RowRange> kept;
    for (const RowRange& c : out.covered) {
      if (!c.Overlaps(u.from, u.to)) {
        kept.push_back(c);
        continue;
      }
      if (c.from < u.from) kept.push_back({c.from, u.from - 1});
      if (c.to > u.to) kept.push_back({u.to + 1, c.to});
    }
    out.covered = std::move(kept);
  }
  return out;
}

Result<bool> GlobalIndexesTrusted(const Table& table) {
  ARROW_ASSIGN_OR_RAISE(bool enabled, table.options().GetBool("global-index.enabled", true));
  if (!enabled) return false;
  std::string action = table.options().GetOr("global-index.column-update-action", "THROW_ERROR");
  std::transform(action.begin(), action.end(), action.begin(), ::toupper);
  return action != "IGNORE";
}

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

Result<std::vector<IndexManifestEntry>> LiveSortedIndexFiles(const Table& table,
                                                             const Snapshot& snapshot,
                                                             int32_t field_id) {
  ARROW_ASSIGN_OR_RAISE(auto files,
                        LiveGlobalIndexFiles(table, snapshot, field_id, kBTreeIndexType));
  if (!files.empty()) return files;
  return LiveGlobalIndexFiles(table, snapshot, field_id, kBitmapIndexType);
}

Result<GlobalIndexLookup> LookupGlobalIndex(const Table& table, const Snapshot& snapshot,
                                            const std::string& column, const arrow::Array& keys) {
  const DataField* field = table.schema().FieldByName(column);
  if (field == nullptr) {
    return Status::Invalid("Column '", column, "' does not exist in table '",
                           table.identifier().FullName(), "'.");
  }
  ARROW_ASSIGN_OR_RAISE(KeyCodec codec, KeyCodec::Make(*field->type));
  ARROW_ASSIGN_OR_RAISE(auto files, LiveSortedIndexFiles(table, snapshot, field->id));
  if (files.empty()) {
    return Status::KeyError("column '", column,
                            "' has no btree or bitmap global index in snapshot ", snapshot.id);
  }
  return LookupInFiles(table, codec, files, keys);
}

namespace {

// Evaluates a predicate tree against the btree indexes of one snapshot (pypaimon's
// GlobalIndexEvaluator, in FULL mode): every answer is a superset of the row ids that can
// match, each leaf's answer including every row its column's index does not cover.
class IndexEvaluator {
 public:
  IndexEvaluator(const Table& table, const Snapshot& snapshot,
                 std::vector<IndexManifestEntry> live_index, int64_t btree_fallback_max_size,
                 int64_t bitmap_fallback_max_size, GlobalIndexPlanStats* stats)
      : table_(table),
        last_(*snapshot.next_row_id - 1),
        live_index_(std::move(live_index)),
        btree_fallback_max_size_(btree_fallback_max_size),
        bitmap_fallback_max_size_(bitmap_fallback_max_size),
        stats_(stats) {}

  // nullopt: the index cannot answer (scan as before).
  Result<std::optional<std::vector<RowRange>>> Eval(const Predicate& p) {
    using Op = Predicate::Op;
    switch (p.op()) {
      case Op::kAnd: {
        std::optional<std::vector<RowRange>> out;
        for (const auto& child : p.children()) {
          ARROW_ASSIGN_OR_RAISE(auto mine, Eval(*child));
          if (!mine) continue;  // an unanswered conjunct only widens the result
          out = out ? Intersect(*out, *mine) : std::move(mine);
        }
        return out;
      }
      case Op::kOr: {
        std::vector<RowRange> all;
        for (const auto& child : p.children()) {
          ARROW_ASSIGN_OR_RAISE(auto mine, Eval(*child));
          if (!mine) return std::nullopt;  // one unanswered branch can match anything
          all.insert(all.end(), mine->begin(), mine->end());
        }
        return SortAndMerge(std::move(all));
      }
      case Op::kEqual:
      case Op::kIn:
      case Op::kLessThan:
      case Op::kLessOrEqual:
      case Op::kGreaterThan:
      case Op::kGreaterOrEqual:
      case Op::kBetween:
      case Op::kIsNull:
      case Op::kNotEqual:
      case Op::kNotIn:
      case Op::kNotBetween:
      case Op::kIsNotNull:
        return Leaf(p);
      default:
        return std::nullopt;
    }
  }

 private:
  static std::vector<RowRange> Intersect(const std::vector<RowRange>& a,
                                         const std::vector<RowRange>& b) {
    std::vector<RowRange> both;
    for (const auto& r : a) {
      for (const auto& p : IntersectRanges(b, r.from, r.to)) both.push_back(p);
    }
    return SortAndMerge(std::move(both));
  }

  Result<std::optional<std::vector<RowRange>>> Leaf(const Predicate& p) {
    using Op = Predicate::Op;
    const DataField* field = table_.schema().FieldByName(p.field());
    if (field == nullptr) return std::nullopt;
    auto codec = KeyCodec::Make(*field->type);
    if (!codec.ok()) return std::nullopt;  // a key type we cannot read yet: scanned
    // The column's btree index answers; without one, its bitmap index.
    std::vector<IndexManifestEntry> files;
    for (const char* type : {kBTreeIndexType, kBitmapIndexType}) {
      for (const auto& e : live_index_) {
        if (IsIndexOf(e, field->id, type)) files.push_back(e);
      }
      if (!files.empty()) break;
    }
    if (files.empty()) return std::nullopt;
    const int64_t fallback_max_size = files.front().index_type == kBTreeIndexType
                                          ? btree_fallback_max_size_
                                          : bitmap_fallback_max_size_;
    // The literals as keys of the column; literals it cannot hold leave the leaf to the scan.
    std::vector<std::string> keys;
    if (p.op() != Op::kIsNull && p.op() != Op::kIsNotNull) {
      std::shared_ptr<arrow::Array> literals = p.literals();
      if (!literals || literals->length() == 0) return std::nullopt;
      const auto arrow_type = field->type->ToArrow();
      if (!literals->type()->Equals(*arrow_type)) {
        auto cast = arrow::compute::Cast(*literals, arrow_type);
        if (!cast.ok()) return std::nullopt;
        literals = *cast;
      }
      for (int64_t i = 0; i < literals->length(); ++i) {
        if (literals->IsNull(i)) {
          if (p.op() == Op::kIn) continue;                           // matches nothing
          if (p.op() == Op::kNotIn) return std::vector<RowRange>{};  // never true: no row
          return std::nullopt;
        }
        std::string key;
        ARROW_RETURN_NOT_OK(codec->Append(*literals, i, &key));
        keys.push_back(std::move(key));
      }
    }
    std::vector<RowRange> found;
    std::vector<RowRange> covered;
    if (p.op() == Op::kEqual || p.op() == Op::kIn) {
      std::sort(keys.begin(), keys.end(), [&](const std::string& a, const std::string& b) {
        return codec->Compare(a, b) < 0;
      });
      keys.erase(std::unique(keys.begin(), keys.end(),
                             [&](const std::string& a, const std::string& b) {
                               return codec->Compare(a, b) == 0;
                             }),
                 keys.end());
      ARROW_ASSIGN_OR_RAISE(GlobalIndexLookup lookup,
                            MatchSortedKeys(table_, *codec, files, keys, [&](size_t, int64_t id) {
                              found.push_back({id, id});
                            }));
      stats_->files_read += lookup.files_read;
      covered = std::move(lookup.covered);
    } else {
      // A range, a negation or IS [NOT] NULL: the files whose key span meets it, read whole
      // (between the bounds, where there are bounds), and the entries `keep` accepts.
      std::optional<std::string> lower, upper;
      bool lower_inclusive = true, upper_inclusive = true;
      std::function<bool(std::string_view)> keep = [](std::string_view) { return true; };
      const KeyCodec& kc = *codec;
      // A lossy key (TIMESTAMP(7..9)) may stand for values on both sides of a literal: no
      // negation trusts it, and bounds become inclusive (a superset).
      if (kc.lossy() &&
          (p.op() == Op::kNotEqual || p.op() == Op::kNotIn || p.op() == Op::kNotBetween)) {
        return std::nullopt;
      }
      switch (p.op()) {
        case Op::kLessThan:
          upper = keys[0];
          upper_inclusive = false;
          break;
        case Op::kLessOrEqual:
          upper = keys[0];
          break;
        case Op::kGreaterThan:
          lower = keys[0];
          lower_inclusive = false;
          break;
        case Op::kGreaterOrEqual:
          lower = keys[0];
          break;
        case Op::kBetween:
          if (keys.size() != 2) return std::nullopt;
          lower = keys[0];
          upper = keys[1];
          break;
        case Op::kNotEqual:
        case Op::kNotIn:
          keep = [&kc, &keys](std::string_view key) {
            for (const auto& k : keys) {
              if (kc.Compare(key, k) == 0) return false;
            }
            return true;
          };
          break;
        case Op::kNotBetween:
          if (keys.size() != 2) return std::nullopt;
          keep = [&kc, &keys](std::string_view key) {
            return kc.Compare(key, keys[0]) < 0 || kc.Compare(key, keys[1]) > 0;
          };
          break;
        default:
          break;
      }
      if (kc.lossy()) lower_inclusive = upper_inclusive = true;
      std::vector<const IndexManifestEntry*> selected;
      int64_t selected_size = 0;
      for (const auto& e : files) {
        const GlobalIndexMeta& g = *e.global_index;
        covered.push_back({g.row_range_start, g.row_range_end});
        if (g.index_meta) {
          ARROW_ASSIGN_OR_RAISE(auto meta, SortedIndexFileMeta::Deserialize(*g.index_meta));
          if (p.op() == Op::kIsNull) {
            if (!meta.has_nulls) continue;
          } else {
            if (!meta.first_key || !meta.last_key) continue;  // only nulls
            if (lower) {
              const int c = codec->Compare(*meta.last_key, *lower);
              if (c < 0 || (c == 0 && !lower_inclusive)) continue;
            }
            if (upper) {
              const int c = codec->Compare(*meta.first_key, *upper);
              if (c > 0 || (c == 0 && !upper_inclusive)) continue;
            }
          }
        }
        selected.push_back(&e);
        selected_size += e.file_size;
      }
      // pypaimon's gate: an index that would read more than this answers nothing.
      if (p.op() != Op::kIsNull && selected_size > fallback_max_size) return std::nullopt;
      for (const IndexManifestEntry* e : selected) {
        const GlobalIndexMeta& g = *e->global_index;
        ARROW_ASSIGN_OR_RAISE(auto file, table_.file_io()->OpenInputWithSize(
                                             IndexEntryPath(table_, *e), e->file_size));
        auto opened = OpenSortedIndexReader(e->index_type, std::move(file), e->file_size, *codec,
                                            e->file_name);
        // A layout this engine does not read (Java 1.4's bitmap files): no answer, a scan.
        if (opened.status().IsNotImplemented()) return std::nullopt;
        ARROW_ASSIGN_OR_RAISE(auto reader, std::move(opened));
        ++stats_->files_read;
        const int64_t span = g.row_range_end - g.row_range_start;
        auto add = [&](int64_t id) -> Status {
          if (id > span) {
            return Status::Invalid("global index file '", e->file_name, "' holds row id ", id,
                                   " beyond its range [", g.row_range_start, ", ", g.row_range_end,
                                   "]");
          }
          found.push_back({g.row_range_start + id, g.row_range_start + id});
          return Status::OK();
        };
        if (p.op() == Op::kIsNull) {
          ARROW_ASSIGN_OR_RAISE(auto nulls, reader->NullRows());
          for (int64_t id : nulls) ARROW_RETURN_NOT_OK(add(id));
          continue;
        }
        ARROW_ASSIGN_OR_RAISE(auto entries,
                              reader->Range(lower, lower_inclusive, upper, upper_inclusive));
        for (const BTreeEntry& entry : entries) {
          if (!keep(entry.key)) continue;
          for (int64_t id : entry.row_ids) ARROW_RETURN_NOT_OK(add(id));
        }
      }
      covered = SortAndMerge(std::move(covered));
    }
    if (std::find(stats_->columns.begin(), stats_->columns.end(), field->name) ==
        stats_->columns.end()) {
      stats_->columns.push_back(field->name);
    }
    // Matches, plus every row id the index does not cover.
    int64_t next = 0;
    for (const RowRange& r : covered) {
      if (r.from > next) found.push_back({next, std::min(r.from - 1, last_)});
      next = std::max(next, r.to + 1);
    }
    if (next <= last_) found.push_back({next, last_});
    return SortAndMerge(std::move(found));
  }

  const Table& table_;
  const int64_t last_;
  std::vector<IndexManifestEntry> live_index_;
  const int64_t btree_fallback_max_size_;
  const int64_t bitmap_fallback_max_size_;
  GlobalIndexPlanStats* stats_;
};

}  // namespace

Result<std::optional<GlobalIndexRanges>> RangesFromGlobalIndexes(const Table& table,
                                                                 const Snapshot& snapshot,
                                                                 const Predicate& predicate) {
  if (!snapshot.index_manifest || !snapshot.next_row_id || *snapshot.next_row_id <= 0) {
    return std::nullopt;
  }
  ARROW_ASSIGN_OR_RAISE(bool trusted, GlobalIndexesTrusted(table));
  if (!trusted) return std::nullopt;
  ARROW_ASSIGN_OR_RAISE(
      int64_t btree_fallback,
      table.options().GetMemorySize("btree-index.fallback-scan-max-size", int64_t{256} << 20));
  ARROW_ASSIGN_OR_RAISE(
      int64_t bitmap_fallback,
      table.options().GetMemorySize("bitmap-index.fallback-scan-max-size", int64_t{256} << 20));
  ARROW_ASSIGN_OR_RAISE(auto live_index, ReadLiveIndexEntries(table, snapshot));
  bool any = false;
  for (const auto& e : live_index) {
    any = any ||
          (e.global_index && (e.index_type == kBTreeIndexType || e.index_type == kBitmapIndexType));
  }
  if (!any) return std::nullopt;
  GlobalIndexRanges out;
  out.stats.rows_total = *snapshot.next_row_id;
  IndexEvaluator evaluator(table, snapshot, std::move(live_index), btree_fallback, bitmap_fallback,
                           &out.stats);
  ARROW_ASSIGN_OR_RAISE(auto ranges, evaluator.Eval(predicate));
  if (!ranges) return std::nullopt;
  out.ranges = std::move(*ranges);
  for (const auto& r : out.ranges) out.stats.rows_selected += r.count();
  return out;
}

}  // namespace paimon_rowid
