#include "paimon_rowid/read/table_read.h"

#include <algorithm>
#include <map>
#include <set>

#include "arrow/api.h"
#include "arrow/compute/api.h"
#include "paimon_rowid/exec/compute.h"
#include "paimon_rowid/exec/executor.h"
#include "paimon_rowid/format/parquet_io.h"
#include "paimon_rowid/read/blob_reader.h"
#include "paimon_rowid/read/group_plan.h"
#include "paimon_rowid/read/nested_align.h"
#include "paimon_rowid/read/vector_column.h"
#include "paimon_rowid/scan/partition.h"

namespace paimon_rowid {
namespace cp = arrow::compute;

namespace {

// Casts a column read from a file to the table's type. Files from other writers may use
// other physical representations (INT96 / NANOS timestamps, FLBA decimals, binary for
// large_binary): a safe cast first, then an unsafe one for lossy-but-intended conversions
// such as nanosecond timestamps read into microsecond columns; lists to VECTOR columns by
// ListToFixedSize (vector_column.h).
Result<std::shared_ptr<arrow::ChunkedArray>> CastColumn(
    const std::shared_ptr<arrow::ChunkedArray>& column,
    const std::shared_ptr<arrow::DataType>& type, const std::string& name, const std::string& path,
    cp::ExecContext* ctx) {
  if (column->type()->Equals(*type)) return column;
  if (type->id() == arrow::Type::FIXED_SIZE_LIST &&
      (column->type()->id() == arrow::Type::LIST ||
       column->type()->id() == arrow::Type::LARGE_LIST)) {
    // One conversion of the joined lists (cheap: null rows are offsets only) gives the group
    // one fixed-size array, written once, instead of one per row group that the batch's
    // assembly would then copy again into one.
    std::shared_ptr<arrow::Array> lists;
    if (column->num_chunks() == 1) {
      lists = column->chunk(0);
    } else {
      ARROW_ASSIGN_OR_RAISE(lists, arrow::Concatenate(column->chunks(), ctx->memory_pool()));
    }
    ARROW_ASSIGN_OR_RAISE(
        auto converted,
        ListToFixedSize(lists, static_cast<const arrow::FixedSizeListType&>(*type), name, ctx));
    return std::make_shared<arrow::ChunkedArray>(std::move(converted));
  }
  auto safe = cp::Cast(column, type, cp::CastOptions::Safe(), ctx);
  if (safe.ok()) return safe->chunked_array();
  auto unsafe = cp::Cast(column, type, cp::CastOptions::Unsafe(), ctx);
  if (unsafe.ok()) return unsafe->chunked_array();
  return Status::TypeError("column '", name, "' of '", path, "' has type ",
                           column->type()->ToString(), ", which cannot be read as ",
                           type->ToString(), ": ", safe.status().message());
}

Result<std::shared_ptr<arrow::Array>> ConstantArray(const std::shared_ptr<arrow::Scalar>& value,
                                                    const std::shared_ptr<arrow::DataType>& type,
                                                    int64_t length, arrow::MemoryPool* pool) {
  if (!value || !value->is_valid) return arrow::MakeArrayOfNull(type, length, pool);
  std::shared_ptr<arrow::Scalar> v = value;
  if (!v->type->Equals(*type)) {
    ARROW_ASSIGN_OR_RAISE(v, v->CastTo(type));
  }
  return arrow::MakeArrayFromScalar(*v, length, pool);
}

Result<std::shared_ptr<arrow::Array>> Int64Range(const std::vector<RowRange>& ranges,
                                                 int64_t offset, arrow::MemoryPool* pool) {
  arrow::Int64Builder builder(pool);
  int64_t n = 0;
  for (const auto& r : ranges) n += r.count();
  ARROW_RETURN_NOT_OK(builder.Reserve(n));
  for (const auto& r : ranges) {
    for (int64_t v = r.from; v <= r.to; ++v) builder.UnsafeAppend(v + offset);
  }
  return builder.Finish();
}

Result<std::shared_ptr<arrow::Array>> Int64Constant(int64_t value, int64_t length,
                                                    arrow::MemoryPool* pool) {
  return arrow::MakeArrayFromScalar(arrow::Int64Scalar(value), length, pool);
}

// Streams the groups of the splits in split order. Without a limit up to `threads` groups
// are read at once on the shared executor (exec/executor.h), at most 2 x `threads` ahead of
// the consumer, so at most that many group batches are buffered; with one thread, or a
// limit, every group is read on the consumer's thread, each read stopping at the rows still
// missing. A window of only `threads` left a core idle whenever the next group finished
// before the one the consumer waited on (a 10M-row scan on 2 cores ran 1.1x, not 1.9x,
// faster than on one).
class GroupStreamReader : public arrow::RecordBatchReader {
 public:
  GroupStreamReader(std::shared_ptr<const TableRead> read, std::vector<DataSplit> splits,
                    std::optional<int64_t> limit, int threads)
      : read_(std::move(read)),
        splits_(std::make_shared<const std::vector<DataSplit>>(std::move(splits))),
        remaining_(limit) {
    auto order = std::make_shared<std::vector<std::pair<size_t, size_t>>>();
    for (size_t s = 0; s < splits_->size(); ++s) {
      for (size_t g = 0; g < (*splits_)[s].groups.size(); ++g) order->emplace_back(s, g);
    }
    const int64_t n = static_cast<int64_t>(order->size());
    threads = static_cast<int>(std::min<int64_t>(Executor::ResolveThreads(threads), n));
    if (limit || threads <= 1) return;
    groups_.emplace(Executor::Default(), n, threads, 2 * int64_t{threads},
                    [read = read_, splits = splits_, order](int64_t i) {
                      const auto [s, g] = (*order)[static_cast<size_t>(i)];
                      const DataSplit& split = (*splits)[s];
                      return read->ReadGroup(split, split.groups[g], std::nullopt);
                    });
  }

  std::shared_ptr<arrow::Schema> schema() const override { return read_->output_schema(); }

  Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    if (groups_) {
      while (auto next = groups_->Next()) {
        // After an error the map returns nullopt: later calls end the stream cleanly.
        ARROW_ASSIGN_OR_RAISE(auto batch, std::move(*next));
        if (batch && batch->num_rows() > 0) {
          *out = std::move(batch);
          return Status::OK();
        }
      }
      return Status::OK();
    }
    while (split_ < splits_->size()) {
      if (remaining_ && *remaining_ <= 0) return Status::OK();
      const DataSplit& split = (*splits_)[split_];
      if (group_ >= split.groups.size()) {
        ++split_;
        group_ = 0;
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto batch, read_->ReadGroup(split, split.groups[group_], remaining_));
      ++group_;
      if (!batch || batch->num_rows() == 0) continue;
      if (remaining_) {
        if (batch->num_rows() > *remaining_) batch = batch->Slice(0, *remaining_);
        *remaining_ -= batch->num_rows();
      }
      *out = std::move(batch);
      return Status::OK();
    }
    return Status::OK();
  }

 private:
  std::shared_ptr<const TableRead> read_;
  std::shared_ptr<const std::vector<DataSplit>> splits_;
  std::optional<int64_t> remaining_;
  size_t split_ = 0;
  size_t group_ = 0;
  std::optional<OrderedMap<std::shared_ptr<arrow::RecordBatch>>> groups_;
};

}  // namespace

Result<std::shared_ptr<arrow::Schema>> TableRead::OutputSchema(
    const Table& table, const std::vector<std::string>& fields) {
  std::vector<std::shared_ptr<arrow::Field>> out;
  for (const auto& name : fields) {
    if (name == system_fields::kRowId || name == system_fields::kSequenceNumber) {
      if (!table.row_tracking_enabled()) {
        return Status::Invalid("'", name,
                               "' can only be read from tables with "
                               "'row-tracking.enabled'='true'");
      }
      out.push_back(arrow::field(name, arrow::int64(), /*nullable=*/false));
      continue;
    }
    const DataField* f = table.schema().FieldByName(name);
    if (f == nullptr) {
      return Status::Invalid("field '", name, "' is not in table '", table.identifier().FullName(),
                             "'");
    }
    out.push_back(f->ToArrow());
  }
  return arrow::schema(std::move(out));
}

Result<std::shared_ptr<TableRead>> TableRead::Make(std::shared_ptr<const Table> table,
                                                   ReadOptions options) {
  ARROW_RETURN_NOT_OK(EnsureComputeInitialized());
  std::shared_ptr<TableRead> read(new TableRead());
  ARROW_ASSIGN_OR_RAISE(read->output_schema_, OutputSchema(*table, options.fields));
  read->needed_fields_ = options.fields;
  if (options.predicate) {
    std::set<std::string> referenced;
    options.predicate->CollectFields(&referenced);
    for (const auto& name : referenced) {
      if (std::find(read->needed_fields_.begin(), read->needed_fields_.end(), name) ==
          read->needed_fields_.end()) {
        read->needed_fields_.push_back(name);
      }
    }
  }
  ARROW_ASSIGN_OR_RAISE(read->needed_schema_, OutputSchema(*table, read->needed_fields_));
  if (options.predicate) {
    options.predicate->CollectFields(&read->predicate_fields_);
    ARROW_ASSIGN_OR_RAISE(
        read->predicate_schema_,
        OutputSchema(*table, std::vector<std::string>(read->predicate_fields_.begin(),
                                                      read->predicate_fields_.end())));
    ARROW_ASSIGN_OR_RAISE(auto expr, options.predicate->ToExpression());
    ARROW_ASSIGN_OR_RAISE(read->predicate_expr_, expr.Bind(*read->predicate_schema_));
  }
  ARROW_ASSIGN_OR_RAISE(read->blob_as_descriptor_,
                        table->options().GetBool(options::kBlobAsDescriptor, false));
  if (options.predicate) {
    std::set<std::string> referenced;
    options.predicate->CollectFields(&referenced);
    for (const auto& name : referenced) {
      const DataField* f = table->schema().FieldByName(name);
      if (f != nullptr && f->type->holds_blob()) read->predicate_reads_blob_ = true;
    }
  }
  if (!read->blob_as_descriptor_) {
    std::set<std::string> descriptor_fields;
    for (const char* key : {options::kBlobDescriptorField, "blob.stored-descriptor-fields"}) {
      for (auto& f : SplitOptionList(table->options().GetOr(key, ""))) descriptor_fields.insert(f);
    }
    for (const auto& name : options.fields) {
      const DataField* f = table->schema().FieldByName(name);
      if (f != nullptr && f->type->is_blob() && descriptor_fields.count(name)) {
        read->dereference_fields_.push_back(name);
      }
    }
  }
  ARROW_ASSIGN_OR_RAISE(read->partition_fields_, PartitionFields(table->schema()));
  read->schemas_ = std::make_shared<SchemaCache>(table);
  read->table_ = std::move(table);
  read->options_ = std::move(options);
  return read;
}

Result<std::shared_ptr<arrow::RecordBatchReader>> TableRead::Read(
    std::vector<DataSplit> splits) const {
  // The reader keeps this TableRead alive; copying the small state is cheaper than
  // requiring callers to hold a shared_ptr.
  auto self = std::shared_ptr<const TableRead>(new TableRead(*this));
  return std::make_shared<GroupStreamReader>(std::move(self), std::move(splits), options_.limit,
                                             options_.threads);
}

Result<std::shared_ptr<arrow::RecordBatch>> TableRead::ReadGroup(const DataSplit& split,
                                                                 const FileGroup& group) const {
  return ReadGroup(split, group, std::nullopt);
}

Result<std::shared_ptr<arrow::RecordBatch>> TableRead::ReadGroup(
    const DataSplit& split, const FileGroup& group, std::optional<int64_t> max_rows) const {
  GroupFileReaders files(*table_, split, options_.pool);
  return ReadGroupWith(split, group, max_rows, &files);
}

Result<std::shared_ptr<arrow::RecordBatch>> TableRead::ReadGroup(const DataSplit& split,
                                                                 const FileGroup& group,
                                                                 GroupFileReaders* files) const {
  return ReadGroupWith(split, group, std::nullopt, files);
}

Result<std::shared_ptr<arrow::RecordBatch>> TableRead::ReadGroupWith(
    const DataSplit& split, const FileGroup& group, std::optional<int64_t> max_rows,
    GroupFileReaders* files) const {
  ARROW_ASSIGN_OR_RAISE(auto plan,
                        PlanGroupRead(table_->schema(), needed_fields_, group, split.row_ranges,
                                      [this](int64_t id) { return schemas_->Get(id); }));
  if (!plan) return nullptr;
  ARROW_RETURN_NOT_OK(ApplyDeletionVector(split, group, &*plan));
  if (plan->num_rows == 0) return nullptr;
  if (options_.predicate && !predicate_reads_blob_) {
    ARROW_ASSIGN_OR_RAISE(auto columns, ReadFiltered(split, group, &*plan, files));
    if (!columns) return nullptr;
    ARROW_ASSIGN_OR_RAISE(auto batch, Assemble(split, group, *plan, needed_schema_, &*columns));
    return FilterAndFetchBlobs(split, *plan, std::move(batch), max_rows,
                               /*predicate_applied=*/true);
  }
  ARROW_ASSIGN_OR_RAISE(auto columns,
                        ReadSupplies(*plan, /*only=*/nullptr, plan->selection, files));
  ARROW_ASSIGN_OR_RAISE(auto batch, Assemble(split, group, *plan, needed_schema_, &columns));
  return FilterAndFetchBlobs(split, *plan, std::move(batch), max_rows,
                             /*predicate_applied=*/false);
}

Status TableRead::ApplyDeletionVector(const DataSplit& split, const FileGroup& group,
                                      GroupReadPlan* plan) const {
  if (split.deletion_files.empty()) return Status::OK();
  const DataFileMeta* anchor = DeletionAnchor(group);
  if (anchor == nullptr) return Status::OK();
  auto it = split.deletion_files.find(anchor->file_name);
  if (it == split.deletion_files.end()) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto dv, ReadDeletionVector(*table_->file_io(), it->second));
  // Positions count from the anchor; the plan's selection from the group's first row id.
  // (A file without row ids is its own group, starting at 0.)
  const int64_t shift = anchor->first_row_id.value_or(plan->range.from) - plan->range.from;
  std::vector<int64_t> removed;
  removed.reserve(dv.positions().size());
  for (int64_t p : dv.positions()) {
    if (p >= anchor->row_count) {
      return Status::Invalid("deletion vector of '", anchor->file_name, "' deletes position ", p,
                             " of a file with ", anchor->row_count, " rows");
    }
    removed.push_back(p + shift);
  }
  plan->selection = SubtractValues(plan->selection, removed);
  plan->num_rows = 0;
  for (const auto& r : plan->selection) plan->num_rows += r.count();
  return Status::OK();
}

Result<TableRead::ColumnMap> TableRead::ReadSupplies(const GroupReadPlan& plan,
                                                     const std::set<std::string>* only,
                                                     const std::vector<RowRange>& selection,
                                                     GroupFileReaders* files) const {
  const TableSchema& schema = table_->schema();
  ColumnMap columns;
  cp::ExecContext ctx(options_.pool);
  for (const auto& s : plan.supplies) {
    bool wanted = only == nullptr;
    for (const auto& column : s.columns) wanted = wanted || only->count(column.first) > 0;
    if (!wanted) continue;
    ARROW_ASSIGN_OR_RAISE(ParquetFileReader * reader, files->Get(*s.file));
    std::vector<std::string> file_names;
    std::vector<std::string> table_names;
    std::vector<const DataType*> file_types;
    for (size_t c = 0; c < s.columns.size(); ++c) {
      const auto& [table_name, file_name] = s.columns[c];
      if (only != nullptr && !only->count(table_name)) continue;
      // A column the file schema lists but the file lacks (e.g. written by a narrower
      // writer) reads as null, like a column no file holds.
      if (reader->schema()->GetFieldIndex(file_name) < 0) continue;
      file_names.push_back(file_name);
      table_names.push_back(table_name);
      file_types.push_back(c < s.file_types.size() ? s.file_types[c].get() : nullptr);
    }
    if (file_names.empty()) continue;
    ARROW_ASSIGN_OR_RAISE(auto data, reader->Read(file_names, &selection));
    for (size_t i = 0; i < file_names.size(); ++i) {
      const DataField* tf = schema.FieldByName(table_names[i]);
      std::shared_ptr<arrow::ChunkedArray> read = data->column(static_cast<int>(i));
      if (file_types[i] != nullptr) {
        // Nested ROW fields by field id (renamed, added or dropped since the file).
        ARROW_ASSIGN_OR_RAISE(read,
                              AlignNestedById(read, *file_types[i], *tf->type, options_.pool));
      }
      ARROW_ASSIGN_OR_RAISE(
          auto column, CastColumn(read, tf->type->ToArrow(), table_names[i], reader->path(), &ctx));
      columns[table_names[i]] = std::move(column);
    }
  }
  return columns;
}

Result<std::shared_ptr<arrow::RecordBatch>> TableRead::Assemble(
    const DataSplit& split, const FileGroup& group, const GroupReadPlan& plan,
    const std::shared_ptr<arrow::Schema>& schema_out, ColumnMap* columns) const {
  const TableSchema& schema = table_->schema();
  const std::set<std::string> partition_names(schema.partition_keys.begin(),
                                              schema.partition_keys.end());
  ARROW_ASSIGN_OR_RAISE(auto partition_values, DecodePartition(split.partition, partition_fields_));
  const int64_t num_rows = plan.num_rows;
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  for (int i = 0; i < schema_out->num_fields(); ++i) {
    const auto& field = schema_out->field(i);
    const std::string& name = field->name();
    std::shared_ptr<arrow::Array> array;
    if (name == system_fields::kRowId) {
      if (plan.normal.empty() && group.empty()) return Status::Invalid("empty file group");
      ARROW_ASSIGN_OR_RAISE(array, Int64Range(plan.selection, plan.range.from, options_.pool));
    } else if (name == system_fields::kSequenceNumber) {
      // The newest normal file of the group, whatever the projection (pypaimon's rule and
      // Java's, minus Java's projection-dependent pruning; docs/format-notes.md).
      const DataFileMeta* source = !plan.normal.empty() ? plan.normal.front() : &group.front();
      ARROW_ASSIGN_OR_RAISE(array,
                            Int64Constant(source->max_sequence_number, num_rows, options_.pool));
    } else if (partition_names.count(name)) {
      size_t k = 0;
      while (k < partition_fields_.size() && partition_fields_[k].name != name) ++k;
      std::shared_ptr<arrow::Scalar> value =
          k < partition_values.size() ? partition_values[k] : nullptr;
      ARROW_ASSIGN_OR_RAISE(array, ConstantArray(value, field->type(), num_rows, options_.pool));
    } else {
      auto it = columns->find(name);
      if (it == columns->end()) {
        ARROW_ASSIGN_OR_RAISE(array,
                              arrow::MakeArrayOfNull(field->type(), num_rows, options_.pool));
      } else {
        if (it->second->length() != num_rows) {
          return Status::IOError("column '", name, "' read ", it->second->length(),
                                 " rows, expected ", num_rows);
        }
        if (it->second->num_chunks() == 1) {
          array = it->second->chunk(0);
        } else {
          ARROW_ASSIGN_OR_RAISE(array, arrow::Concatenate(it->second->chunks(), options_.pool));
          // A filtered read assembles the predicate's columns twice: join them only once.
          it->second = std::make_shared<arrow::ChunkedArray>(array);
        }
      }
    }
    arrays.push_back(std::move(array));
  }
  return arrow::RecordBatch::Make(schema_out, num_rows, std::move(arrays));
}

Result<std::shared_ptr<arrow::RecordBatch>> TableRead::FilterAndFetchBlobs(
    const DataSplit& split, const GroupReadPlan& plan, std::shared_ptr<arrow::RecordBatch> batch,
    std::optional<int64_t> max_rows, bool predicate_applied) const {
  const TableSchema& schema = table_->schema();
  // BLOB payloads are fetched only for the rows that survive the predicate and the limit,
  // unless the predicate itself looks at a BLOB column.
  bool blobs_pending = !plan.blob_files.empty();
  // Row ids of the batch's rows, kept in step with it; BLOB columns are fetched for these.
  std::vector<int64_t> row_ids;
  auto fetch_blobs = [&]() -> Status {
    for (const auto& [name, files] : plan.blob_files) {
      std::vector<BlobBunchFile> bunch;
      bunch.reserve(files.size());
      for (const DataFileMeta* f : files) bunch.push_back({f, split.FilePath(*f)});
      const int index = needed_schema_->GetFieldIndex(name);
      ARROW_ASSIGN_OR_RAISE(auto values, ReadBlobBunch(*table_->file_io(), bunch, row_ids,
                                                       *schema.FieldByName(name)->type,
                                                       blob_as_descriptor_, options_.pool));
      ARROW_ASSIGN_OR_RAISE(batch, batch->SetColumn(index, needed_schema_->field(index), values));
    }
    return Status::OK();
  };
  if (blobs_pending) {
    row_ids.reserve(plan.num_rows);
    for (const auto& r : plan.selection) {
      for (int64_t p = r.from; p <= r.to; ++p) row_ids.push_back(plan.range.from + p);
    }
    if (predicate_reads_blob_) {
      ARROW_RETURN_NOT_OK(fetch_blobs());
      blobs_pending = false;
    }
  }

  if (options_.predicate && !predicate_applied) {
    cp::ExecContext ctx(options_.pool);
    ARROW_ASSIGN_OR_RAISE(auto expr, options_.predicate->ToExpression());
    ARROW_ASSIGN_OR_RAISE(expr, expr.Bind(*needed_schema_));
    ARROW_ASSIGN_OR_RAISE(auto input, cp::MakeExecBatch(*needed_schema_, batch));
    ARROW_ASSIGN_OR_RAISE(auto mask, cp::ExecuteScalarExpression(expr, input, &ctx));
    ARROW_ASSIGN_OR_RAISE(
        auto filtered, cp::Filter(batch, mask, cp::FilterOptions(cp::FilterOptions::DROP), &ctx));
    batch = filtered.record_batch();
    if (blobs_pending) {
      arrow::Int64Builder ids(options_.pool);
      ARROW_RETURN_NOT_OK(ids.AppendValues(row_ids));
      ARROW_ASSIGN_OR_RAISE(auto all_ids, ids.Finish());
      ARROW_ASSIGN_OR_RAISE(auto kept,
                            cp::Filter(all_ids, mask, cp::FilterOptions::Defaults(), &ctx));
      auto kept_array = std::static_pointer_cast<arrow::Int64Array>(kept.make_array());
      row_ids.assign(kept_array->raw_values(), kept_array->raw_values() + kept_array->length());
    }
  }
  if (max_rows && batch->num_rows() > *max_rows) {
    batch = batch->Slice(0, *max_rows);
    if (row_ids.size() > static_cast<size_t>(*max_rows)) row_ids.resize(*max_rows);
  }
  if (blobs_pending) ARROW_RETURN_NOT_OK(fetch_blobs());
  for (const auto& name : dereference_fields_) {
    const int index = needed_schema_->GetFieldIndex(name);
    ARROW_ASSIGN_OR_RAISE(
        auto payloads,
        DereferenceBlobDescriptors(*table_->file_io(), *batch->column(index), name, options_.pool));
    ARROW_ASSIGN_OR_RAISE(batch, batch->SetColumn(index, needed_schema_->field(index), payloads));
  }
  if (needed_schema_->num_fields() != output_schema_->num_fields()) {
    std::vector<int> indices(output_schema_->num_fields());
    for (int i = 0; i < output_schema_->num_fields(); ++i) indices[i] = i;
    ARROW_ASSIGN_OR_RAISE(batch, batch->SelectColumns(indices));
  }
  return batch;
}

}  // namespace paimon_rowid
