#include "paimon_rowid/write/blob_writer.h"

#include <algorithm>

#include "arrow/buffer.h"
#include "paimon_rowid/codec/binary_row.h"

namespace paimon_rowid {
namespace {

// Descriptor-referenced payloads are copied in chunks of this size.
constexpr int64_t kCopyChunk = 4LL << 20;

}  // namespace

Result<std::string> LocalPathOfUri(const std::string& uri) {
  if (uri.rfind("file://", 0) == 0) return uri.substr(7);
  if (uri.rfind("file:", 0) == 0) return uri.substr(5);
  const size_t colon = uri.find("://");
  if (colon != std::string::npos) {
    return Status::NotImplemented("cannot read BLOB descriptor uri '", uri,
                                  "': only local files are supported");
  }
  return uri;
}

BlobFieldWriter::BlobFieldWriter(std::shared_ptr<FileIO> io, std::string dir,
                                 std::string field_name, int64_t schema_id,
                                 int64_t target_file_size, std::function<std::string()> new_name,
                                 std::vector<std::string>* created)
    : io_(std::move(io)),
      dir_(std::move(dir)),
      field_name_(std::move(field_name)),
      schema_id_(schema_id),
      target_file_size_(target_file_size),
      new_name_(std::move(new_name)),
      created_(created) {}

BlobFieldWriter::~BlobFieldWriter() { Discard(); }

void BlobFieldWriter::Discard() {
  if (current_) (void)current_->Close();
  current_.reset();
}

Status BlobFieldWriter::CopyDescriptor(const BlobDescriptor& descriptor) {
  ARROW_ASSIGN_OR_RAISE(std::string path, LocalPathOfUri(descriptor.uri));
  ARROW_ASSIGN_OR_RAISE(auto input, io_->OpenInput(path));
  ARROW_RETURN_NOT_OK(current_->BeginValue());
  for (int64_t done = 0; done < descriptor.length;) {
    const int64_t n = std::min(kCopyChunk, descriptor.length - done);
    ARROW_ASSIGN_OR_RAISE(auto chunk, input->ReadAt(descriptor.offset + done, n));
    if (chunk->size() != n) {
      return Status::IOError("BLOB descriptor ", descriptor.uri, " @", descriptor.offset, "+",
                             descriptor.length, " points past the end of the file");
    }
    ARROW_RETURN_NOT_OK(current_->AppendPayload(
        std::string_view(reinterpret_cast<const char*>(chunk->data()), chunk->size())));
    done += n;
  }
  return current_->EndValue();
}

Status BlobFieldWriter::AppendValue(std::string_view bytes) {
  if (BlobDescriptor::LooksLikeDescriptor(bytes)) {
    ARROW_ASSIGN_OR_RAISE(auto descriptor, BlobDescriptor::Deserialize(bytes));
    return CopyDescriptor(descriptor);
  }
  return current_->AddValue(bytes);
}

Status BlobFieldWriter::Append(const arrow::Array& values) {
  if (values.type_id() != arrow::Type::LARGE_BINARY) {
    return Status::TypeError("BLOB column '", field_name_, "' must be large_binary, got ",
                             values.type()->ToString());
  }
  const auto& binary = static_cast<const arrow::LargeBinaryArray&>(values);
  for (int64_t i = 0; i < binary.length(); ++i) {
    if (!current_) {
      current_name_ = new_name_();
      current_path_ = JoinPath(dir_, current_name_);
      created_->push_back(current_path_);
      ARROW_ASSIGN_OR_RAISE(auto sink, io_->OpenOutput(current_path_));
      current_ = std::make_unique<BlobFileWriter>(std::move(sink));
    }
    if (binary.IsNull(i)) {
      current_->AddNull();
    } else {
      ARROW_RETURN_NOT_OK(AppendValue(binary.GetView(i)));
    }
    if (current_->bytes_written() >= target_file_size_) ARROW_RETURN_NOT_OK(CloseFile());
  }
  return Status::OK();
}

Status BlobFieldWriter::CloseFile() {
  if (!current_) return Status::OK();
  const int64_t rows = current_->row_count();
  Status st = current_->Close();
  current_.reset();
  ARROW_RETURN_NOT_OK(st);
  DataFileMeta meta;
  meta.file_name = current_name_;
  ARROW_ASSIGN_OR_RAISE(meta.file_size, io_->FileSize(current_path_));
  meta.row_count = rows;
  meta.min_key = EmptySerializedBinaryRow();
  meta.max_key = EmptySerializedBinaryRow();
  meta.key_stats = SimpleStats::Empty();
  // Java's form: no stats columns, empty stats.
  meta.value_stats = SimpleStats::Empty();
  meta.value_stats_cols = std::vector<std::string>{};
  // 0 so the committer stamps every file with the snapshot id (format doc §6.2).
  meta.min_sequence_number = 0;
  meta.max_sequence_number = 0;
  meta.schema_id = schema_id_;
  meta.level = 0;
  meta.delete_row_count = 0;
  meta.file_source = static_cast<int32_t>(FileSource::kAppend);
  meta.write_cols = std::vector<std::string>{field_name_};
  done_.push_back(std::move(meta));
  return Status::OK();
}

Status BlobFieldWriter::Flush(std::vector<DataFileMeta>* out) {
  ARROW_RETURN_NOT_OK(CloseFile());
  for (auto& meta : done_) out->push_back(std::move(meta));
  done_.clear();
  return Status::OK();
}

}  // namespace paimon_rowid
