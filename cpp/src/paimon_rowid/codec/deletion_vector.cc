#include "paimon_rowid/codec/deletion_vector.h"

#include <algorithm>
#include <limits>

#include "paimon_rowid/codec/crc32.h"
#include "paimon_rowid/codec/little_endian.h"
#include "paimon_rowid/codec/roaring.h"

namespace paimon_rowid {
namespace {

uint32_t LoadBE32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | uint32_t{u[3]};
}

void AppendBE32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>(static_cast<unsigned char>(v >> shift)));
  }
}

}  // namespace

bool DeletionVector::Contains(int64_t position) const {
  return std::binary_search(positions_.begin(), positions_.end(), position);
}

int64_t DeletionVector::AddAll(std::vector<int64_t> positions) {
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  std::vector<int64_t> merged;
  merged.reserve(positions_.size() + positions.size());
  std::set_union(positions_.begin(), positions_.end(), positions.begin(), positions.end(),
                 std::back_inserter(merged));
  const int64_t added = static_cast<int64_t>(merged.size() - positions_.size());
  positions_ = std::move(merged);
  return added;
}

Result<std::string> DeletionVector::Serialize() const {
  if (!positions_.empty() &&
      (positions_.front() < 0 || positions_.back() > std::numeric_limits<int32_t>::max())) {
    return Status::Invalid("deletion vector position out of range [0, 2^31): ",
                           positions_.front() < 0 ? positions_.front() : positions_.back());
  }
  std::string out;
  AppendBE32(&out, static_cast<uint32_t>(kDeletionVectorMagic));
  std::vector<uint32_t> values(positions_.begin(), positions_.end());
  out += EncodeRoaring32(values);
  return out;
}

Result<DeletionVector> DeletionVector::Deserialize(std::string_view bytes) {
  if (bytes.size() < 4) return Status::Invalid("deletion vector is truncated (magic)");
  if (LoadLE<int32_t>(bytes.data()) == kDeletionVector64Magic) {
    return Status::NotImplemented(
        "64-bit deletion vectors ('deletion-vectors.bitmap64') are not supported yet");
  }
  const uint32_t magic = LoadBE32(bytes.data());
  if (magic != static_cast<uint32_t>(kDeletionVectorMagic)) {
    return Status::Invalid("deletion vector has magic ", magic, ", expected ",
                           kDeletionVectorMagic);
  }
  ARROW_ASSIGN_OR_RAISE(auto values, DecodeRoaring32(bytes.substr(4), "deletion vector"));
  // Positions are Java ints: a value beyond 2^31 - 1 is not a deletion vector.
  if (!values.empty() &&
      values.back() > static_cast<uint32_t>(std::numeric_limits<int32_t>::max())) {
    return Status::Invalid("deletion vector holds positions beyond 2^31 - 1 (", values.back(), ")");
  }
  return DeletionVector(std::vector<int64_t>(values.begin(), values.end()));
}

Result<EncodedDeletionVectorFile> EncodeDeletionVectorFile(
    const std::map<std::string, DeletionVector>& vectors) {
  EncodedDeletionVectorFile out;
  out.bytes.push_back(static_cast<char>(kDeletionVectorFileVersion));
  for (const auto& [name, dv] : vectors) {  // std::map: sorted by file name
    if (dv.empty()) continue;
    ARROW_ASSIGN_OR_RAISE(std::string bytes, dv.Serialize());
    DeletionVectorRange range;
    range.data_file = name;
    range.offset = static_cast<int64_t>(out.bytes.size());
    range.length = static_cast<int64_t>(bytes.size());
    range.cardinality = dv.cardinality();
    AppendBE32(&out.bytes, static_cast<uint32_t>(bytes.size()));
    out.bytes += bytes;
    AppendBE32(&out.bytes, Crc32(0, bytes.data(), bytes.size()));
    out.ranges.push_back(std::move(range));
  }
  return out;
}

Result<DeletionVector> DecodeDeletionVectorAt(std::string_view bytes,
                                              const DeletionVectorRange& range,
                                              const std::string& file) {
  if (range.length < 4 || range.length > std::numeric_limits<int32_t>::max() ||
      bytes.size() < 8 + static_cast<size_t>(range.length)) {
    return Status::Invalid("deletion vector of '", range.data_file, "' in index file '", file,
                           "' is out of bounds (offset ", range.offset, ", length ", range.length,
                           ")");
  }
  const uint32_t size = LoadBE32(bytes.data());
  if (size != static_cast<uint32_t>(range.length)) {
    return Status::Invalid("deletion vector of '", range.data_file, "' in index file '", file,
                           "' has size ", size, " but the index manifest says ", range.length);
  }
  std::string_view body = bytes.substr(4, static_cast<size_t>(range.length));
  const uint32_t stored = LoadBE32(bytes.data() + 4 + range.length);
  const uint32_t computed = Crc32(0, body.data(), body.size());
  if (stored != computed) {
    return Status::IOError("deletion vector of '", range.data_file, "' in index file '", file,
                           "' is damaged (CRC32 ", computed, ", stored ", stored, ")");
  }
  auto dv = DeletionVector::Deserialize(body);
  if (!dv.ok()) {
    return dv.status().WithMessage("deletion vector of '", range.data_file, "' in index file '",
                                   file, "': ", dv.status().message());
  }
  if (range.cardinality && dv->cardinality() != *range.cardinality) {
    return Status::Invalid("deletion vector of '", range.data_file, "' in index file '", file,
                           "' holds ", dv->cardinality(), " positions but the index manifest says ",
                           *range.cardinality);
  }
  return dv;
}

Status CheckDeletionVectorFileVersion(std::string_view head, const std::string& file) {
  if (head.empty() || static_cast<uint8_t>(head[0]) != kDeletionVectorFileVersion) {
    return Status::Invalid("index file '", file, "' is not a version-1 deletion vector file");
  }
  return Status::OK();
}

}  // namespace paimon_rowid
