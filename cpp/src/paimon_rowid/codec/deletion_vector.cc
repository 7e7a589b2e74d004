#include "paimon_rowid/codec/deletion_vector.h"

#include <algorithm>
#include <limits>

#include "paimon_rowid/codec/crc32.h"
#include "paimon_rowid/codec/little_endian.h"

namespace paimon_rowid {
namespace {

// Roaring's portable format (github.com/RoaringBitmap/RoaringFormatSpec).
constexpr uint32_t kCookieNoRun = 12346;
constexpr uint32_t kCookieRun = 12347;
constexpr int64_t kMaxArrayCardinality = 4096;
constexpr size_t kBitmapWords = 1024;  // 65536 bits
constexpr uint32_t kNoOffsetThreshold = 4;

uint32_t LoadBE32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | uint32_t{u[3]};
}

void AppendBE32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>(static_cast<unsigned char>(v >> shift)));
  }
}

// A bounds-checked cursor over untrusted bytes.
class Cursor {
 public:
  explicit Cursor(std::string_view bytes) : bytes_(bytes) {}
  bool Has(size_t n) const { return bytes_.size() - pos_ >= n; }
  template <typename T>
  Result<T> Read(const char* what) {
    if (!Has(sizeof(T))) return Status::Invalid("deletion vector is truncated (", what, ")");
    T v = LoadLE<T>(bytes_.data() + pos_);
    pos_ += sizeof(T);
    return v;
  }
  Status Skip(size_t n, const char* what) {
    if (!Has(n)) return Status::Invalid("deletion vector is truncated (", what, ")");
    pos_ += n;
    return Status::OK();
  }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

Result<std::vector<int64_t>> DecodeRoaring(std::string_view bytes) {
  Cursor in(bytes);
  ARROW_ASSIGN_OR_RAISE(uint32_t cookie, in.Read<uint32_t>("cookie"));
  uint32_t size = 0;
  std::string run_flags;
  bool has_offsets = true;
  if ((cookie & 0xFFFF) == kCookieRun) {
    size = (cookie >> 16) + 1;
    const size_t flag_bytes = (size + 7) / 8;
    if (!in.Has(flag_bytes)) return Status::Invalid("deletion vector is truncated (run flags)");
    run_flags.assign(bytes.data() + 4, flag_bytes);
    ARROW_RETURN_NOT_OK(in.Skip(flag_bytes, "run flags"));
    has_offsets = size >= kNoOffsetThreshold;
  } else if (cookie == kCookieNoRun) {
    ARROW_ASSIGN_OR_RAISE(size, in.Read<uint32_t>("container count"));
    if (size > 65536) return Status::Invalid("deletion vector has ", size, " containers");
  } else {
    return Status::Invalid("deletion vector is not a Roaring bitmap (cookie ", cookie, ")");
  }
  std::vector<std::pair<uint16_t, int64_t>> headers(size);  // key, cardinality
  for (auto& h : headers) {
    ARROW_ASSIGN_OR_RAISE(h.first, in.Read<uint16_t>("key"));
    // Positions are Java ints: a container beyond 2^31 - 1 is not a deletion vector.
    if (h.first >= 0x8000) {
      return Status::Invalid("deletion vector holds positions beyond 2^31 - 1 (container key ",
                             h.first, ")");
    }
    ARROW_ASSIGN_OR_RAISE(uint16_t card_minus_one, in.Read<uint16_t>("cardinality"));
    h.second = int64_t{card_minus_one} + 1;
  }
  if (has_offsets) ARROW_RETURN_NOT_OK(in.Skip(size_t{4} * size, "offsets"));
  std::vector<int64_t> out;
  int64_t previous = -1;
  auto emit = [&](int64_t value) -> Status {
    if (value <= previous) return Status::Invalid("deletion vector values are not increasing");
    out.push_back(value);
    previous = value;
    return Status::OK();
  };
  for (uint32_t i = 0; i < size; ++i) {
    const int64_t high = int64_t{headers[i].first} << 16;
    const bool run =
        !run_flags.empty() && ((static_cast<unsigned char>(run_flags[i / 8]) >> (i % 8)) & 1);
    const size_t before = out.size();
    if (run) {
      ARROW_ASSIGN_OR_RAISE(uint16_t runs, in.Read<uint16_t>("run count"));
      for (uint16_t r = 0; r < runs; ++r) {
        ARROW_ASSIGN_OR_RAISE(uint16_t start, in.Read<uint16_t>("run start"));
        ARROW_ASSIGN_OR_RAISE(uint16_t length_minus_one, in.Read<uint16_t>("run length"));
        if (int64_t{start} + length_minus_one > 0xFFFF) {
          return Status::Invalid("deletion vector run overflows its container");
        }
        for (int64_t v = start; v <= int64_t{start} + length_minus_one; ++v) {
          ARROW_RETURN_NOT_OK(emit(high | v));
        }
      }
    } else if (headers[i].second <= kMaxArrayCardinality) {
      for (int64_t k = 0; k < headers[i].second; ++k) {
        ARROW_ASSIGN_OR_RAISE(uint16_t low, in.Read<uint16_t>("array value"));
        ARROW_RETURN_NOT_OK(emit(high | low));
      }
    } else {
      for (size_t w = 0; w < kBitmapWords; ++w) {
        ARROW_ASSIGN_OR_RAISE(uint64_t word, in.Read<uint64_t>("bitmap word"));
        while (word != 0) {
          const int bit = __builtin_ctzll(word);
          ARROW_RETURN_NOT_OK(emit(high | static_cast<int64_t>(w * 64 + bit)));
          word &= word - 1;
        }
      }
    }
    if (static_cast<int64_t>(out.size() - before) != headers[i].second) {
      return Status::Invalid("deletion vector container ", i, " holds ", out.size() - before,
                             " values but its header says ", headers[i].second);
    }
  }
  return out;
}

std::string EncodeRoaring(const std::vector<int64_t>& values) {
  // Containers: [begin, end) slices of `values` sharing the high 16 bits.
  std::vector<std::pair<size_t, size_t>> containers;
  for (size_t i = 0; i < values.size();) {
    size_t j = i;
    const int64_t key = values[i] >> 16;
    while (j < values.size() && (values[j] >> 16) == key) ++j;
    containers.emplace_back(i, j);
    i = j;
  }
  std::string out;
  AppendLE<uint32_t>(&out, kCookieNoRun);
  AppendLE<uint32_t>(&out, static_cast<uint32_t>(containers.size()));
  for (const auto& [b, e] : containers) {
    AppendLE<uint16_t>(&out, static_cast<uint16_t>(values[b] >> 16));
    AppendLE<uint16_t>(&out, static_cast<uint16_t>(e - b - 1));
  }
  uint32_t offset = static_cast<uint32_t>(out.size() + 4 * containers.size());
  for (const auto& [b, e] : containers) {
    AppendLE<uint32_t>(&out, offset);
    const int64_t card = static_cast<int64_t>(e - b);
    offset += card <= kMaxArrayCardinality ? static_cast<uint32_t>(2 * card)
                                           : static_cast<uint32_t>(8 * kBitmapWords);
  }
  for (const auto& [b, e] : containers) {
    if (static_cast<int64_t>(e - b) <= kMaxArrayCardinality) {
      for (size_t k = b; k < e; ++k) AppendLE<uint16_t>(&out, static_cast<uint16_t>(values[k]));
    } else {
      std::vector<uint64_t> words(kBitmapWords, 0);
      for (size_t k = b; k < e; ++k) {
        const uint32_t low = static_cast<uint32_t>(values[k] & 0xFFFF);
        words[low / 64] |= uint64_t{1} << (low % 64);
      }
      for (uint64_t w : words) AppendLE<uint64_t>(&out, w);
    }
  }
  return out;
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
  out += EncodeRoaring(positions_);
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
  ARROW_ASSIGN_OR_RAISE(auto values, DecodeRoaring(bytes.substr(4)));
  return DeletionVector(std::move(values));
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
