#include "paimon_rowid/rowid/routed_source.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <random>

#include "arrow/io/file.h"
#include "arrow/ipc/reader.h"
#include "arrow/ipc/writer.h"
#include "arrow/util/byte_size.h"
#include "arrow/util/compression.h"

namespace paimon_rowid {

namespace {

// A name unique to this process and store: pid, a random tag and a counter.
std::string SpillFileName() {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t tag = std::random_device{}();
  return "paimon-rowid-spill-" + std::to_string(::getpid()) + "-" + std::to_string(tag) + "-" +
         std::to_string(counter.fetch_add(1)) + ".arrow";
}

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
  ARROW_ASSIGN_OR_RAISE(auto out, arrow::io::FileOutputStream::Open(path));
  spill_paths_.push_back(path);  // registered first: deleted even if the write fails
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

}  // namespace paimon_rowid
