// AppendWriter's page-spliced files (format/page_splice.h): the partial-column file of an
// update that changes few pages of its group.
#include "paimon_rowid/fs/file_io.h"
#include "paimon_rowid/write/append_writer_internal.h"

namespace paimon_rowid {

Result<std::unique_ptr<ParquetPageSplice>> AppendWriter::PlanSplice(
    std::vector<ParquetPageSplice::Column> columns) const {
  const Impl& impl = *impl_;
  if (!impl.fixed || !impl.blob_index.empty() || impl.failed || impl.prepared ||
      !impl.partitions.empty() || columns.size() != impl.write_fields.size()) {
    return nullptr;
  }
  return ParquetPageSplice::Plan(impl.file_schema, impl.parquet, std::move(columns));
}

Status AppendWriter::WriteSplice(
    ParquetPageSplice* splice,
    const std::vector<std::vector<std::shared_ptr<arrow::Array>>>& values) {
  Impl& impl = *impl_;
  if (impl.failed) return Status::Invalid("the writer failed earlier and was aborted");
  if (impl.prepared) return Status::Invalid("the writer was already prepared for commit");
  if (!impl.fixed || !impl.partitions.empty()) {
    return Status::Invalid("a spliced file is the one file of a fresh MakeForRowIds writer");
  }
  Status st = [&]() -> Status {
    ARROW_ASSIGN_OR_RAISE(PartitionWriter * pw, impl.GetPartition({}, 0));
    auto file = std::make_unique<OpenFile>();
    file->name = impl.NewFileName(impl.extension);
    file->path = JoinPath(pw->dir, file->name);
    file->rows = splice->num_rows();
    file->stats =
        std::make_unique<StatsCollector>(impl.stats_types, impl.stats_modes, impl.parquet.pool);
    for (size_t i = 0; i < impl.stats_index.size(); ++i) {
      const size_t c = static_cast<size_t>(impl.stats_index[i]);
      for (const auto& page : splice->copied_pages(c)) {
        ARROW_RETURN_NOT_OK(
            file->stats->UpdateBounds(i, page.min, page.max, page.null_count.value_or(0)));
      }
      if (c < values.size()) {
        for (const auto& run : values[c]) ARROW_RETURN_NOT_OK(file->stats->UpdateColumn(i, run));
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto sink, impl.CreateOutput(file->path));
    impl.paths.push_back(file->path);
    ARROW_RETURN_NOT_OK(splice->Write(sink, values));
    pw->current = std::move(file);
    return Status::OK();
  }();
  if (!st.ok()) {
    impl.failed = true;
    (void)impl.DeleteAll();
  }
  return st;
}

}  // namespace paimon_rowid
