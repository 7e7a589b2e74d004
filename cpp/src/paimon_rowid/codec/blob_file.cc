#include "paimon_rowid/codec/blob_file.h"

#include <algorithm>
#include <cstring>

#include "arrow/buffer.h"
#include "arrow/util/crc32.h"
#include "paimon_rowid/codec/delta_varint.h"

namespace paimon_rowid {
namespace {

// Little-endian scalars (the engine only targets little-endian hosts, like Arrow's IPC).
template <typename T>
std::string_view AsBytes(const T& value) {
  return std::string_view(reinterpret_cast<const char*>(&value), sizeof(T));
}

template <typename T>
T LoadLE(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

// Tail bytes fetched in the first read: most indexes (a few bytes per row) fit.
constexpr int64_t kTailProbe = 64 * 1024;

}  // namespace

uint32_t BlobCrc32(uint32_t crc, const void* data, size_t size) {
  return arrow::internal::crc32(crc, data, size);
}

// ---- writer ---------------------------------------------------------------------------------

BlobFileWriter::BlobFileWriter(std::shared_ptr<arrow::io::OutputStream> sink)
    : sink_(std::move(sink)) {}

Status BlobFileWriter::Write(std::string_view bytes, bool in_crc) {
  if (bytes.empty()) return Status::OK();
  if (in_crc) crc_ = BlobCrc32(crc_, bytes.data(), bytes.size());
  ARROW_RETURN_NOT_OK(sink_->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
  position_ += static_cast<int64_t>(bytes.size());
  return Status::OK();
}

Status BlobFileWriter::BeginValue() {
  if (closed_) return Status::Invalid("blob file writer is closed");
  if (entry_start_ >= 0) return Status::Invalid("a blob value is already open");
  entry_start_ = position_;
  crc_ = 0;
  const uint32_t magic = kBlobMagic;
  return Write(AsBytes(magic), /*in_crc=*/true);
}

Status BlobFileWriter::AppendPayload(std::string_view bytes) {
  if (entry_start_ < 0) return Status::Invalid("no blob value is open");
  return Write(bytes, /*in_crc=*/true);
}

Status BlobFileWriter::EndValue() {
  if (entry_start_ < 0) return Status::Invalid("no blob value is open");
  const int64_t record_length = position_ - entry_start_ + 8 + 4;
  ARROW_RETURN_NOT_OK(Write(AsBytes(record_length), /*in_crc=*/true));
  const uint32_t crc = crc_;
  ARROW_RETURN_NOT_OK(Write(AsBytes(crc), /*in_crc=*/false));
  lengths_.push_back(record_length);
  entry_start_ = -1;
  return Status::OK();
}

Status BlobFileWriter::AddValue(std::string_view payload) {
  ARROW_RETURN_NOT_OK(BeginValue());
  ARROW_RETURN_NOT_OK(AppendPayload(payload));
  return EndValue();
}

void BlobFileWriter::AddNull() { lengths_.push_back(kBlobNullLength); }
void BlobFileWriter::AddPlaceholder() { lengths_.push_back(kBlobPlaceholderLength); }

Status BlobFileWriter::Close() {
  if (closed_) return Status::Invalid("blob file writer is already closed");
  if (entry_start_ >= 0) return Status::Invalid("a blob value is still open");
  closed_ = true;
  const std::string index = EncodeDeltaVarint(lengths_);
  ARROW_RETURN_NOT_OK(Write(index, /*in_crc=*/false));
  const int32_t index_length = static_cast<int32_t>(index.size());
  ARROW_RETURN_NOT_OK(Write(AsBytes(index_length), /*in_crc=*/false));
  ARROW_RETURN_NOT_OK(Write(AsBytes(kBlobFileVersion), /*in_crc=*/false));
  return sink_->Close();
}

// ---- index ----------------------------------------------------------------------------------

Result<std::shared_ptr<const BlobFileIndex>> BlobFileIndex::Decode(std::string_view index_bytes,
                                                                   int64_t index_start,
                                                                   const std::string& path) {
  auto decoded = DecodeDeltaVarint(index_bytes);
  if (!decoded.ok()) {
    return Status::IOError("blob file '", path, "' has a corrupt index: ",
                           decoded.status().message());
  }
  auto index = std::shared_ptr<BlobFileIndex>(new BlobFileIndex());
  index->lengths_ = std::move(*decoded);
  index->offsets_.resize(index->lengths_.size());
  int64_t offset = 0;
  for (size_t i = 0; i < index->lengths_.size(); ++i) {
    const int64_t length = index->lengths_[i];
    index->offsets_[i] = offset;
    if (length == kBlobNullLength || length == kBlobPlaceholderLength) continue;
    if (length < kBlobEntryOverhead || length > index_start - offset) {
      return Status::IOError("blob file '", path, "' has a corrupt index: row ", i,
                             " has length ", length, " at offset ", offset,
                             " but the entries end at ", index_start);
    }
    offset += length;
  }
  if (offset != index_start) {
    return Status::IOError("blob file '", path, "' has a corrupt index: its entries cover ",
                           offset, " bytes but the index starts at ", index_start);
  }
  return index;
}

Result<std::shared_ptr<const BlobFileIndex>> BlobFileIndex::Parse(std::string_view file_bytes,
                                                                  const std::string& path) {
  const int64_t size = static_cast<int64_t>(file_bytes.size());
  if (size < 5) {
    return Status::IOError("blob file '", path, "' is truncated: ", size, " bytes");
  }
  const int8_t version = static_cast<int8_t>(file_bytes[size - 1]);
  if (version != kBlobFileVersion) {
    return Status::IOError("blob file '", path, "' has version ", static_cast<int>(version),
                           ", expected ", static_cast<int>(kBlobFileVersion),
                           " (truncated or not a .blob file)");
  }
  const int64_t index_length = LoadLE<int32_t>(file_bytes.data() + size - 5);
  if (index_length < 0 || index_length > size - 5) {
    return Status::IOError("blob file '", path, "' is truncated or corrupt: index length ",
                           index_length, " in a file of ", size, " bytes");
  }
  const int64_t index_start = size - 5 - index_length;
  return Decode(file_bytes.substr(index_start, index_length), index_start, path);
}

Result<std::shared_ptr<const BlobFileIndex>> BlobFileIndex::Read(arrow::io::RandomAccessFile* file,
                                                                 int64_t file_size,
                                                                 const std::string& path) {
  if (file_size < 5) {
    return Status::IOError("blob file '", path, "' is truncated: ", file_size, " bytes");
  }
  const int64_t probe = std::min(file_size, kTailProbe);
  ARROW_ASSIGN_OR_RAISE(auto tail, file->ReadAt(file_size - probe, probe));
  if (tail->size() != probe) {
    return Status::IOError("blob file '", path, "': short read of its index");
  }
  std::string_view tail_bytes(reinterpret_cast<const char*>(tail->data()), tail->size());
  const int8_t version = static_cast<int8_t>(tail_bytes[probe - 1]);
  if (version != kBlobFileVersion) {
    return Status::IOError("blob file '", path, "' has version ", static_cast<int>(version),
                           ", expected ", static_cast<int>(kBlobFileVersion),
                           " (truncated or not a .blob file)");
  }
  const int64_t index_length = LoadLE<int32_t>(tail_bytes.data() + probe - 5);
  if (index_length < 0 || index_length > file_size - 5) {
    return Status::IOError("blob file '", path, "' is truncated or corrupt: index length ",
                           index_length, " in a file of ", file_size, " bytes");
  }
  const int64_t index_start = file_size - 5 - index_length;
  if (index_length + 5 <= probe) {
    return Decode(tail_bytes.substr(probe - 5 - index_length, index_length), index_start, path);
  }
  ARROW_ASSIGN_OR_RAISE(auto index_buffer, file->ReadAt(index_start, index_length));
  if (index_buffer->size() != index_length) {
    return Status::IOError("blob file '", path, "': short read of its index");
  }
  return Decode(std::string_view(reinterpret_cast<const char*>(index_buffer->data()),
                                 index_buffer->size()),
                index_start, path);
}

BlobEntry BlobFileIndex::entry(int64_t row) const {
  BlobEntry out;
  const int64_t length = lengths_[row];
  if (length == kBlobNullLength) {
    out.kind = BlobEntry::Kind::kNull;
  } else if (length == kBlobPlaceholderLength) {
    out.kind = BlobEntry::Kind::kPlaceholder;
  } else {
    out.kind = BlobEntry::Kind::kValue;
    out.payload_offset = offsets_[row] + 4;
    out.payload_length = length - kBlobEntryOverhead;
  }
  return out;
}

// ---- descriptor -----------------------------------------------------------------------------

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

std::string BlobDescriptor::Serialize() const {
  std::string out;
  out.reserve(29 + uri.size());
  const int8_t v = 2;
  out.append(AsBytes(v));
  out.append(AsBytes(kBlobDescriptorMagic));
  const int32_t uri_length = static_cast<int32_t>(uri.size());
  out.append(AsBytes(uri_length));
  out.append(uri);
  out.append(AsBytes(offset));
  out.append(AsBytes(length));
  return out;
}

bool BlobDescriptor::LooksLikeDescriptor(std::string_view bytes) {
  if (bytes.size() < 9) return false;
  const auto version = static_cast<uint8_t>(bytes[0]);
  if (version == 1 || version > 2) return false;
  return LoadLE<uint64_t>(bytes.data() + 1) == kBlobDescriptorMagic;
}

Result<BlobDescriptor> BlobDescriptor::Deserialize(std::string_view bytes) {
  auto too_short = [&] {
    return Status::Invalid("invalid BlobDescriptor: ", bytes.size(), " bytes is too short");
  };
  if (bytes.empty()) return too_short();
  BlobDescriptor out;
  const auto version = static_cast<uint8_t>(bytes[0]);
  if (version > 2) {
    return Status::Invalid("invalid BlobDescriptor: version ", static_cast<int>(version),
                           " is newer than 2");
  }
  out.version = static_cast<int8_t>(version);
  size_t pos = 1;
  if (version > 1) {
    if (bytes.size() < pos + 8) return too_short();
    if (LoadLE<uint64_t>(bytes.data() + pos) != kBlobDescriptorMagic) {
      return Status::Invalid("invalid BlobDescriptor: missing the BLOBDESC magic");
    }
    pos += 8;
  }
  if (bytes.size() < pos + 4) return too_short();
  const int32_t uri_length = LoadLE<int32_t>(bytes.data() + pos);
  pos += 4;
  if (uri_length < 0 || bytes.size() < pos + static_cast<size_t>(uri_length) + 16) {
    return too_short();
  }
  out.uri = std::string(bytes.substr(pos, uri_length));
  pos += uri_length;
  out.offset = LoadLE<int64_t>(bytes.data() + pos);
  out.length = LoadLE<int64_t>(bytes.data() + pos + 8);
  if (out.offset < 0 || out.length < 0) {
    return Status::Invalid("invalid BlobDescriptor: negative offset or length");
  }
  return out;
}

}  // namespace paimon_rowid
