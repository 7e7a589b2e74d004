#include "paimon_rowid/write/blob_writer.h"

#include <algorithm>
#include <set>

#include "arrow/buffer.h"
#include "paimon_rowid/codec/binary_row.h"
#include "paimon_rowid/codec/blob_file_nested.h"

namespace paimon_rowid {
namespace {

// Descriptor-referenced payloads are copied in chunks of this size.
constexpr int64_t kCopyChunk = 4LL << 20;

}  // namespace

BlobFieldWriter::BlobFieldWriter(std::shared_ptr<FileIO> io, std::string dir,
                                 std::string field_name, DataTypePtr type, int64_t schema_id,
                                 int64_t target_file_size, std::function<std::string()> new_name,
                                 std::vector<std::string>* created, bool job_owned_names)
    : io_(std::move(io)),
      dir_(std::move(dir)),
      field_name_(std::move(field_name)),
      type_(std::move(type)),
      schema_id_(schema_id),
      target_file_size_(target_file_size),
      new_name_(std::move(new_name)),
      created_(created),
      job_owned_names_(job_owned_names) {}

BlobFieldWriter::~BlobFieldWriter() { Discard(); }

void BlobFieldWriter::Discard() {
  if (current_) (void)current_->Close();
  current_.reset();
}

Result<int64_t> BlobFieldWriter::StreamElement(std::string_view bytes) {
  if (!BlobDescriptor::LooksLikeDescriptor(bytes)) {
    ARROW_RETURN_NOT_OK(current_->AppendPayload(bytes));
    return static_cast<int64_t>(bytes.size());
  }
  ARROW_ASSIGN_OR_RAISE(auto descriptor, BlobDescriptor::Deserialize(bytes));
  ARROW_ASSIGN_OR_RAISE(auto input, io_->OpenInput(descriptor.uri));
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
  return descriptor.length;
}

Status BlobFieldWriter::AppendValue(std::string_view bytes) {
  ARROW_RETURN_NOT_OK(current_->BeginValue());
  ARROW_RETURN_NOT_OK(StreamElement(bytes).status());
  return current_->EndValue();
}

Status BlobFieldWriter::AppendArray(const arrow::ListArray& rows, int64_t row) {
  const auto& elements = static_cast<const arrow::LargeBinaryArray&>(*rows.values());
  const int64_t begin = rows.value_offset(row);
  const int64_t end = begin + rows.value_length(row);
  if (!type_->element()->nullable()) {
    for (int64_t i = begin; i < end; ++i) {
      if (elements.IsNull(i)) {
        return Status::Invalid("ARRAY<BLOB> field '", field_name_,
                               "' does not allow null elements (", type_->ToString(), ")");
      }
    }
  }
  std::vector<int64_t> lengths;
  lengths.reserve(end - begin);
  ARROW_RETURN_NOT_OK(current_->BeginValue());
  ARROW_RETURN_NOT_OK(
      current_->AppendPayload(EncodeBlobArrayHeader(static_cast<int32_t>(end - begin))));
  for (int64_t i = begin; i < end; ++i) {
    if (elements.IsNull(i)) {
      lengths.push_back(kBlobNestedNullLength);
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(int64_t length, StreamElement(elements.GetView(i)));
    lengths.push_back(length);
  }
  ARROW_RETURN_NOT_OK(current_->AppendPayload(EncodeBlobArrayTrailer(lengths)));
  return current_->EndValue();
}

Status BlobFieldWriter::AppendMap(const arrow::MapArray& rows, int64_t row) {
  const auto& keys = *rows.keys();
  const auto& values = static_cast<const arrow::LargeBinaryArray&>(*rows.items());
  const int64_t begin = rows.value_offset(row);
  const int64_t end = begin + rows.value_length(row);
  // Serialize and check every key, and the values' nullability, before writing anything.
  std::vector<std::string> key_bytes;
  std::vector<int64_t> key_lengths, value_lengths;
  key_bytes.reserve(end - begin);
  std::set<std::string> seen;
  for (int64_t i = begin; i < end; ++i) {
    if (keys.IsNull(i)) {
      return Status::Invalid("MAP<X, BLOB> field '", field_name_, "' has a null key");
    }
    ARROW_ASSIGN_OR_RAISE(std::string key, EncodeMapBlobKey(keys, i));
    if (!seen.insert(key).second) {
      return Status::Invalid("MAP<X, BLOB> keys must be unique: field '", field_name_,
                             "' has a duplicate key in input row ", row);
    }
    key_lengths.push_back(static_cast<int64_t>(key.size()));
    key_bytes.push_back(std::move(key));
    if (values.IsNull(i) && !type_->value()->nullable()) {
      return Status::Invalid("MAP<X, BLOB> field '", field_name_, "' does not allow null values (",
                             type_->ToString(), ")");
    }
  }
  ARROW_RETURN_NOT_OK(current_->BeginValue());
  ARROW_RETURN_NOT_OK(
      current_->AppendPayload(EncodeBlobMapHeader(static_cast<int32_t>(end - begin))));
  for (const auto& key : key_bytes) ARROW_RETURN_NOT_OK(current_->AppendPayload(key));
  for (int64_t i = begin; i < end; ++i) {
    if (values.IsNull(i)) {
      value_lengths.push_back(kBlobNestedNullLength);
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(int64_t length, StreamElement(values.GetView(i)));
    value_lengths.push_back(length);
  }
  ARROW_RETURN_NOT_OK(current_->AppendPayload(EncodeBlobMapTrailer(key_lengths, value_lengths)));
  return current_->EndValue();
}

Status BlobFieldWriter::OpenFileIfNeeded() {
  if (current_) return Status::OK();
  current_name_ = new_name_();
  current_path_ = JoinPath(dir_, current_name_);
  ARROW_ASSIGN_OR_RAISE(auto sink, job_owned_names_ ? io_->OpenOutputReplacing(current_path_)
                                                    : io_->OpenOutput(current_path_));
  created_->push_back(current_path_);  // ours once created: a taken name is someone else's
  current_ = std::make_unique<BlobFileWriter>(std::move(sink));
  return Status::OK();
}

Status BlobFieldWriter::Append(const arrow::Array& values) {
  const TypeRoot root = type_->root();
  const bool is_array = root == TypeRoot::kArray;
  const bool is_map = root == TypeRoot::kMap;
  const bool ok_type =
      is_array ? values.type_id() == arrow::Type::LIST &&
                     static_cast<const arrow::ListType&>(*values.type()).value_type()->id() ==
                         arrow::Type::LARGE_BINARY
      : is_map ? values.type_id() == arrow::Type::MAP &&
                     static_cast<const arrow::MapType&>(*values.type()).item_type()->id() ==
                         arrow::Type::LARGE_BINARY
               : values.type_id() == arrow::Type::LARGE_BINARY;
  if (!ok_type) {
    return Status::TypeError(type_->ToString(), " column '", field_name_, "' must be ",
                             type_->ToArrow()->ToString(), ", got ", values.type()->ToString());
  }
  if (is_map) {
    const auto& key_type = *static_cast<const arrow::MapType&>(*values.type()).key_type();
    if (!IsSupportedMapBlobKeyType(key_type)) {
      return Status::Invalid("Unsupported key type for MAP<X, BLOB>: ", type_->key()->ToString());
    }
  }
  for (int64_t i = 0; i < values.length(); ++i) {
    ARROW_RETURN_NOT_OK(OpenFileIfNeeded());
    if (values.IsNull(i)) {
      current_->AddNull();
    } else if (is_array) {
      ARROW_RETURN_NOT_OK(AppendArray(static_cast<const arrow::ListArray&>(values), i));
    } else if (is_map) {
      ARROW_RETURN_NOT_OK(AppendMap(static_cast<const arrow::MapArray&>(values), i));
    } else {
      const auto& binary = static_cast<const arrow::LargeBinaryArray&>(values);
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
  // 0 so the committer stamps every file with the snapshot id (docs/format.md §6.2).
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
