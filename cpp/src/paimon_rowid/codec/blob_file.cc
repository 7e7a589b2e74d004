#include "paimon_rowid/codec/blob_file.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "arrow/buffer.h"
#include "paimon_rowid/codec/crc32.h"
#include "paimon_rowid/codec/delta_varint.h"
#include "paimon_rowid/codec/little_endian.h"

namespace paimon_rowid {
namespace {

// Little-endian scalars (the engine only targets little-endian hosts, like Arrow's IPC).
template <typename T>
std::string_view AsBytes(const T& value) {
  return std::string_view(reinterpret_cast<const char*>(&value), sizeof(T));
}

// Tail bytes fetched in the first read: most indexes (a few bytes per row) fit.
constexpr int64_t kTailProbe = 64 * 1024;

}  // namespace

uint32_t BlobCrc32(uint32_t crc, const void* data, size_t size) { return Crc32(crc, data, size); }

namespace {

enum class EntryCheck { kOk, kMagic, kLength, kCrc };

struct EntryVerdict {
  EntryCheck check = EntryCheck::kOk;
  uint32_t stored = 0;
  uint32_t computed = 0;
};

EntryVerdict CheckEntry(std::string_view entry) {
  EntryVerdict out;
  const size_t size = entry.size();
  if (size < static_cast<size_t>(kBlobEntryOverhead) ||
      LoadLE<uint32_t>(entry.data()) != kBlobMagic) {
    out.check = EntryCheck::kMagic;
    return out;
  }
  if (LoadLE<int64_t>(entry.data() + size - 12) != static_cast<int64_t>(size)) {
    out.check = EntryCheck::kLength;
    return out;
  }
  out.stored = LoadLE<uint32_t>(entry.data() + size - 4);
  // One pass over magic + payload serves both writers' ranges: older pypaimon stopped there,
  // Java and pypaimon 2.x go on over the 8 length bytes.
  const uint32_t without_length = BlobCrc32(0, entry.data(), size - 12);
  if (without_length == out.stored) return out;
  out.computed = BlobCrc32(without_length, entry.data() + size - 12, 8);
  if (out.computed != out.stored) out.check = EntryCheck::kCrc;
  return out;
}

}  // namespace

bool IsIntactBlobEntry(std::string_view entry) {
  return CheckEntry(entry).check == EntryCheck::kOk;
}

Status VerifyBlobEntry(std::string_view entry, const std::string& path, int64_t entry_offset,
                       int64_t row_id, int64_t file_row) {
  const EntryVerdict verdict = CheckEntry(entry);
  if (verdict.check == EntryCheck::kOk) return Status::OK();
  std::string where;
  if (row_id >= 0) where += "row id " + std::to_string(row_id) + ", ";
  if (file_row >= 0) where += "file row " + std::to_string(file_row) + ", ";
  where += "entry bytes [" + std::to_string(entry_offset) + ", " +
           std::to_string(entry_offset + static_cast<int64_t>(entry.size())) + ")";
  switch (verdict.check) {
    case EntryCheck::kMagic:
      return Status::IOError("blob file '", path, "' is corrupt (", where,
                             "): the entry does not start with the blob magic");
    case EntryCheck::kLength:
      return Status::IOError("blob file '", path, "' is corrupt (", where,
                             "): the entry's stored length differs from its index length");
    default: {
      char hex[32];
      std::snprintf(hex, sizeof(hex), "%08x, computed %08x", verdict.stored, verdict.computed);
      return Status::IOError("blob file '", path, "' is corrupt (", where,
                             "): CRC32 mismatch (stored ", hex, ")");
    }
  }
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
    return Status::IOError("blob file '", path,
                           "' has a corrupt index: ", decoded.status().message());
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
      return Status::IOError("blob file '", path, "' has a corrupt index: row ", i, " has length ",
                             length, " at offset ", offset, " but the entries end at ",
                             index_start);
    }
    offset += length;
  }
  if (offset != index_start) {
    return Status::IOError("blob file '", path, "' has a corrupt index: its entries cover ", offset,
                           " bytes but the index starts at ", index_start);
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
  return Decode(
      std::string_view(reinterpret_cast<const char*>(index_buffer->data()), index_buffer->size()),
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

int64_t BlobFileIndex::RowHolding(int64_t offset, int64_t length) const {
  if (offset < 4 || length < 0) return -1;
  // Entry offsets never decrease (null and placeholder rows take the next entry's offset), so
  // the last row starting at or before the entry start that could hold `offset` is the one.
  auto it = std::upper_bound(offsets_.begin(), offsets_.end(), offset - 4);
  if (it == offsets_.begin()) return -1;
  const int64_t row = static_cast<int64_t>(it - offsets_.begin()) - 1;
  const BlobEntry e = entry(row);
  if (e.kind != BlobEntry::Kind::kValue || offset < e.payload_offset ||
      offset + length > e.payload_offset + e.payload_length) {
    return -1;
  }
  return row;
}

// ---- descriptor -----------------------------------------------------------------------------

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
  if (bytes.empty()) return Status::Invalid("invalid BlobDescriptor: empty");
  BlobDescriptor out;
  const auto version = static_cast<uint8_t>(bytes[0]);
  if (version > 2) {
    return Status::Invalid("invalid BlobDescriptor: version ", static_cast<int>(version),
                           " is newer than 2");
  }
  out.version = static_cast<int8_t>(version);
  size_t pos = 1;
  if (version > 1) {
    if (bytes.size() < pos + 8 || LoadLE<uint64_t>(bytes.data() + pos) != kBlobDescriptorMagic) {
      return Status::Invalid("invalid BlobDescriptor: missing the BLOBDESC magic");
    }
    pos += 8;
  }
  if (bytes.size() < pos + 4) return Status::Invalid("invalid BlobDescriptor: too short");
  const int32_t uri_length = LoadLE<int32_t>(bytes.data() + pos);
  pos += 4;
  if (uri_length < 0 || bytes.size() < pos + static_cast<size_t>(uri_length) + 16) {
    return Status::Invalid("invalid BlobDescriptor: too short");
  }
  out.uri = std::string(bytes.substr(pos, uri_length));
  pos += uri_length;
  out.offset = LoadLE<int64_t>(bytes.data() + pos);
  out.length = LoadLE<int64_t>(bytes.data() + pos + 8);
  if (out.offset < 0 || out.length < 0) {
    return Status::Invalid("offset and length must be >= 0, got ", out.offset, ", ", out.length);
  }
  return out;
}

}  // namespace paimon_rowid
