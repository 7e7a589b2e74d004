#include "paimon_rowid/rowid/routed_source.h"

#include <filesystem>
#include <map>

#include "arrow/array/concatenate.h"
#include "arrow/builder.h"
#include "arrow/compute/api.h"
#include "arrow/io/file.h"
#include "arrow/ipc/reader.h"
#include "arrow/ipc/writer.h"
#include "arrow/util/byte_size.h"
#include "arrow/util/compression.h"
#include "paimon_rowid/common/identifier.h"
#include "paimon_rowid/fs/file_io.h"
#include "paimon_rowid/rowid/row_id_index.h"

namespace paimon_rowid {
namespace cp = arrow::compute;

namespace {

// A name no other spill uses, in any process (forked ones too) or host sharing the
// directory: a fresh random UUID.
std::string SpillFileName() { return "paimon-rowid-spill-" + RandomUuid() + ".arrow"; }

}  // namespace

RoutedSource::RoutedSource(std::shared_ptr<arrow::Schema> schema, int64_t budget,
                           std::string spill_dir, arrow::MemoryPool* pool)
    : schema_(std::move(schema)), budget_(budget), pool_(pool), spill_dir_(std::move(spill_dir)) {
  if (spill_dir_.empty()) {
    std::error_code ec;
    auto tmp = std::filesystem::temp_directory_path(ec);
    spill_dir_ = ec ? "/tmp" : tmp.string();
  }
}

RoutedSource::~RoutedSource() { DeleteSpills(); }

void RoutedSource::DeleteSpills() {
  for (const auto& path : spill_paths_) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
  spill_paths_.clear();
}

void RoutedSource::Reset(size_t num_groups) {
  DeleteSpills();
  memory_.assign(num_groups, {});
  spilled_.assign(num_groups, {});
  rows_.assign(num_groups, 0);
  memory_bytes_ = 0;
  spilled_rows_ = 0;
}

Status RoutedSource::Append(size_t g, std::shared_ptr<arrow::RecordBatch> rows) {
  if (rows->num_rows() == 0) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(int64_t bytes, arrow::util::ReferencedBufferSize(*rows));
  rows_[g] += rows->num_rows();
  memory_[g].push_back(std::move(rows));
  memory_bytes_ += bytes;
  peak_memory_bytes_ = std::max(peak_memory_bytes_, memory_bytes_);
  return Status::OK();
}

Status RoutedSource::SpillIfOverBudget() {
  if (budget_ > 0 && memory_bytes_ > budget_) return Spill();
  return Status::OK();
}

Status RoutedSource::Spill() {
  const std::string path = (std::filesystem::path(spill_dir_) / SpillFileName()).string();
  // Created only where no file is (O_EXCL), then registered: deleted even if the write fails.
  ARROW_ASSIGN_OR_RAISE(auto out, FileIO::Local()->OpenOutput(path));
  spill_paths_.push_back(path);
  auto options = arrow::ipc::IpcWriteOptions::Defaults();
  options.memory_pool = pool_;
  if (arrow::util::Codec::IsAvailable(arrow::Compression::LZ4_FRAME)) {
    ARROW_ASSIGN_OR_RAISE(options.codec, arrow::util::Codec::Create(arrow::Compression::LZ4_FRAME));
  }
  ARROW_ASSIGN_OR_RAISE(auto writer, arrow::ipc::MakeFileWriter(out, schema_, options));
  const int file = static_cast<int>(spill_paths_.size()) - 1;
  int batch = 0;
  for (size_t g = 0; g < memory_.size(); ++g) {
    if (memory_[g].empty()) continue;
    // One batch per group keeps Load to a few reads; slices of one source batch are copied
    // into it, so the source batch is freed once every group it fed has spilled.
    ARROW_ASSIGN_OR_RAISE(auto combined, arrow::ConcatenateRecordBatches(memory_[g], pool_));
    ARROW_RETURN_NOT_OK(writer->WriteRecordBatch(*combined));
    spilled_[g].push_back({file, batch++});
    spilled_rows_ += combined->num_rows();
    memory_[g].clear();
  }
  ARROW_RETURN_NOT_OK(writer->Close());
  ARROW_RETURN_NOT_OK(out->Close());
  memory_bytes_ = 0;
  return Status::OK();
}

Result<std::shared_ptr<arrow::Table>> RoutedSource::Load(size_t g) const {
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  int open_file = -1;
  std::shared_ptr<arrow::ipc::RecordBatchFileReader> reader;
  for (const auto& s : spilled_[g]) {
    if (s.file != open_file) {
      ARROW_ASSIGN_OR_RAISE(auto in, arrow::io::ReadableFile::Open(spill_paths_[s.file], pool_));
      auto read_options = arrow::ipc::IpcReadOptions::Defaults();
      read_options.memory_pool = pool_;
      ARROW_ASSIGN_OR_RAISE(reader, arrow::ipc::RecordBatchFileReader::Open(in, read_options));
      open_file = s.file;
    }
    ARROW_ASSIGN_OR_RAISE(auto batch, reader->ReadRecordBatch(s.batch));
    batches.push_back(std::move(batch));
  }
  batches.insert(batches.end(), memory_[g].begin(), memory_[g].end());
  return arrow::Table::FromRecordBatches(schema_, batches);
}

void RoutedSource::Release(size_t g) {
  for (const auto& batch : memory_[g]) {
    memory_bytes_ -= arrow::util::ReferencedBufferSize(*batch).ValueOr(0);
  }
  memory_bytes_ = std::max<int64_t>(memory_bytes_, 0);
  memory_[g].clear();
  spilled_[g].clear();
  rows_[g] = 0;
}

Status RouteRows(const RowIdIndex* index, const std::string& target,
                 const std::shared_ptr<arrow::RecordBatch>& conformed, RoutedSource* into,
                 arrow::MemoryPool* pool) {
  if (!index || index->groups().empty()) {
    return Status::Invalid("target '", target,
                           "' has no rows; every _ROW_ID in the source is foreign.");
  }
  const auto& ids = static_cast<const arrow::Int64Array&>(*conformed->column(0));
  ARROW_ASSIGN_OR_RAISE(auto owners, index->Route(ids, kStaleRowIdContext));
  // Cut the batch into runs of one owner; sources sorted by row id give few, long runs.
  const int64_t n = conformed->num_rows();
  int64_t run_start = 0;
  std::vector<std::pair<int32_t, std::pair<int64_t, int64_t>>> runs;
  for (int64_t i = 1; i <= n; ++i) {
    if (i == n || owners[i] != owners[run_start]) {
      runs.push_back({owners[run_start], {run_start, i - run_start}});
      run_start = i;
    }
  }
  if (runs.size() <= 64 || runs.size() * 8 <= static_cast<size_t>(n)) {
    // Each run is copied out of the source batch: a slice would keep the whole batch alive,
    // and a batch imported through the C data interface keeps everything exported with it
    // (a backfill's _ROW_ID column holds its input window, BLOB payloads included, until the
    // commit) while the memory budget sees only the slice.
    for (const auto& [g, span] : runs) {
      ARROW_ASSIGN_OR_RAISE(auto rows, arrow::ConcatenateRecordBatches(
                                           {conformed->Slice(span.first, span.second)}, pool));
      ARROW_RETURN_NOT_OK(into->Append(g, std::move(rows)));
    }
  } else {
    // Interleaved owners: gather each owner's rows with one Take.
    std::map<int32_t, std::vector<int64_t>> rows_of;
    cp::ExecContext ctx(pool);
    for (int64_t i = 0; i < n; ++i) rows_of[owners[i]].push_back(i);
    for (auto& [g, rows] : rows_of) {
      arrow::Int64Builder b(pool);
      ARROW_RETURN_NOT_OK(b.AppendValues(rows));
      ARROW_ASSIGN_OR_RAISE(auto indices, b.Finish());
      ARROW_ASSIGN_OR_RAISE(auto taken,
                            cp::Take(conformed, indices, cp::TakeOptions::Defaults(), &ctx));
      ARROW_RETURN_NOT_OK(into->Append(g, taken.record_batch()));
    }
  }
  return into->SpillIfOverBudget();
}

}  // namespace paimon_rowid
