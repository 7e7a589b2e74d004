#include <algorithm>

#include "arrow/api.h"
#include "arrow/compute/api.h"
#include "arrow/util/byte_size.h"
#include "paimon_rowid/catalog/table_options.h"
#include "paimon_rowid/fs/file_io.h"
#include "paimon_rowid/rowid/blob_update_internal.h"
#include "paimon_rowid/write/append_writer.h"
#include "paimon_rowid/write/blob_writer.h"

namespace paimon_rowid::rowid_internal {
namespace cp = arrow::compute;

namespace {

constexpr int64_t kMaxSliceRows = int64_t{64} << 10;

// Rows per slice: `slice_bytes` over the larger of the column's average stored payload in
// the group and the average new value.
Result<int64_t> SliceRows(const FileGroup& files, const BlobColumnUpdate& column,
                          int64_t slice_bytes) {
  int64_t bytes = 0, rows = 0;
  for (const auto& f : files) {
    if (!f.is_blob_file() || !f.write_cols || f.write_cols->size() != 1 ||
        f.write_cols->front() != column.field->name) {
      continue;
    }
    bytes += f.file_size;
    rows += f.row_count;
  }
  double per_row = rows > 0 ? static_cast<double>(bytes) / static_cast<double>(rows) : 0.0;
  if (column.new_values->length() > 0) {
    ARROW_ASSIGN_OR_RAISE(int64_t new_bytes,
                          arrow::util::ReferencedBufferSize(*column.new_values->data()));
    per_row = std::max(
        per_row, static_cast<double>(new_bytes) / static_cast<double>(column.new_values->length()));
  }
  const double limit = static_cast<double>(slice_bytes) / std::max(1.0, per_row);
  return std::clamp<int64_t>(static_cast<int64_t>(limit), 1, kMaxSliceRows);
}

// The values of one slice [from, to) of the group (offsets from its start): the new values of
// the updated rows (positions[k_from, k_to)) and, read for the others only, current payloads.
Result<std::shared_ptr<arrow::Array>> SliceValues(const RowIdIndex& index, size_t g, int64_t from,
                                                  int64_t to, const std::vector<int64_t>& positions,
                                                  size_t k_from, size_t k_to,
                                                  const BlobColumnUpdate& column,
                                                  arrow::MemoryPool* pool) {
  const int64_t updated = static_cast<int64_t>(k_to - k_from);
  auto fresh = column.new_values->Slice(static_cast<int64_t>(k_from), updated);
  const int64_t carried = (to - from) - updated;
  if (carried == 0) return fresh;
  const RowIdIndex::Group& group = index.groups()[g];
  const int64_t start = group.range.from;
  // Row ranges of the untouched rows: the gaps between updated positions.
  std::vector<RowRange> ranges;
  int64_t next = from;
  for (size_t k = k_from; k <= k_to; ++k) {
    const int64_t stop = k < k_to ? positions[k] : to;
    if (stop > next) ranges.push_back({start + next, start + stop - 1});
    next = stop + 1;
  }
  DataSplit split = index.SplitOf(g, ranges);
  // Deleted rows are carried too (they stay deleted; positions must not move).
  split.deletion_files.clear();
  ARROW_ASSIGN_OR_RAISE(auto current, column.current->ReadGroup(split, group.files));
  if (!current || current->num_rows() != carried) {
    return Status::IOError("could not read the current values of column '", column.field->name,
                           "' for rows [", start + from, ", ", start + to - 1, "]");
  }
  std::shared_ptr<arrow::Array> kept = current->column(0);
  if (!kept->type()->Equals(*fresh->type())) {
    ARROW_ASSIGN_OR_RAISE(auto cast,
                          cp::Cast(*kept, fresh->type(), cp::CastOptions::Safe(), nullptr));
    kept = cast;
  }
  // Take indices over concat(kept, fresh): untouched rows in order, updated rows past them.
  arrow::Int64Builder idx(pool);
  ARROW_RETURN_NOT_OK(idx.Reserve(to - from));
  int64_t c = 0;
  size_t k = k_from;
  for (int64_t pos = from; pos < to; ++pos) {
    if (k < k_to && positions[k] == pos) {
      idx.UnsafeAppend(carried + static_cast<int64_t>(k - k_from));
      ++k;
    } else {
      idx.UnsafeAppend(c++);
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto indices, idx.Finish());
  ARROW_ASSIGN_OR_RAISE(auto both, arrow::Concatenate({kept, fresh}, pool));
  cp::ExecContext ctx(pool);
  ARROW_ASSIGN_OR_RAISE(auto merged, cp::Take(both, indices, cp::TakeOptions::Defaults(), &ctx));
  return merged.make_array();
}

}  // namespace

bool IsBlobFileColumn(const Table& table, const DataField& field) {
  if (!field.type->holds_blob()) return false;
  for (const char* key : {options::kBlobDescriptorField, "blob.stored-descriptor-fields"}) {
    for (const auto& f : SplitOptionList(table.options().GetOr(key, ""))) {
      if (f == field.name) return false;
    }
  }
  return true;
}

std::string BlobUpdateFileName(const Table& table, const std::string& stem, int64_t first_row_id,
                               int32_t field_id, int64_t k) {
  return table.options().GetOr(options::kDataFilePrefix, "data-") +
         AppendWriter::RowIdFileStem(stem, first_row_id) + "-b" + std::to_string(field_id) + "-" +
         std::to_string(k) + ".blob";
}

Result<std::vector<DataFileMeta>> WriteBlobColumns(const std::shared_ptr<const Table>& table,
                                                   const RowIdIndex& index, size_t g,
                                                   const std::vector<int64_t>& positions,
                                                   const std::vector<BlobColumnUpdate>& columns,
                                                   const std::string& stem, int64_t slice_bytes,
                                                   arrow::MemoryPool* pool,
                                                   std::vector<std::string>* written) {
  const RowIdIndex::Group& group = index.groups()[g];
  const int64_t start = group.range.from;
  const int64_t n = group.range.count();
  ARROW_ASSIGN_OR_RAISE(const FileWriteSettings settings, ParseFileWriteSettings(table->options()));
  const int64_t blob_target = settings.blob_target_file_size;
  const int64_t created_at = FileCreationMillis();
  std::vector<DataFileMeta> out;
  for (const auto& column : columns) {
    if (column.new_values->length() != static_cast<int64_t>(positions.size())) {
      return Status::Invalid("internal: ", column.new_values->length(), " new values for ",
                             positions.size(), " updated rows");
    }
    const int32_t field_id = column.field->id;
    int64_t k = 0;
    BlobFieldWriter writer(
        table->file_io(), group.bucket_dir, column.field->name, column.field->type,
        table->schema().id, blob_target,
        [&] { return BlobUpdateFileName(*table, stem, start, field_id, k++); }, written,
        /*job_owned_names=*/table->options().Contains(AppendWriter::kFileStemOption));
    ARROW_ASSIGN_OR_RAISE(int64_t slice_rows, SliceRows(group.files, column, slice_bytes));
    Status st;
    size_t k_from = 0;
    for (int64_t from = 0; from < n && st.ok(); from += slice_rows) {
      const int64_t to = std::min(n, from + slice_rows);
      size_t k_to = k_from;
      while (k_to < positions.size() && positions[k_to] < to) ++k_to;
      auto values = SliceValues(index, g, from, to, positions, k_from, k_to, column, pool);
      st = values.ok() ? writer.Append(**values) : values.status();
      k_from = k_to;
    }
    std::vector<DataFileMeta> metas;
    if (st.ok()) st = writer.Flush(&metas);
    if (!st.ok()) {
      writer.Discard();
      return st;
    }
    int64_t first = start;
    for (auto& meta : metas) {
      meta.first_row_id = first;
      meta.creation_time_millis = created_at;
      first += meta.row_count;
      out.push_back(std::move(meta));
    }
    if (first != start + n) {
      return Status::Invalid("internal: the .blob files of column '", column.field->name, "' hold ",
                             first - start, " rows for a group of ", n);
    }
  }
  return out;
}

Result<std::vector<std::string>> ExistingBlobUpdatePaths(const Table& table,
                                                         const RowIdIndex::Group& group,
                                                         const std::string& stem,
                                                         int32_t field_id) {
  std::vector<std::string> paths;
  for (int64_t k = 0;; ++k) {
    std::string path =
        JoinPath(group.bucket_dir, BlobUpdateFileName(table, stem, group.range.from, field_id, k));
    ARROW_ASSIGN_OR_RAISE(bool exists, table.file_io()->Exists(path));
    if (!exists) return paths;
    paths.push_back(std::move(path));
  }
}

}  // namespace paimon_rowid::rowid_internal
