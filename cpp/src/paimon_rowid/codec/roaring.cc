#include "paimon_rowid/codec/roaring.h"

#include "paimon_rowid/codec/little_endian.h"

namespace paimon_rowid {
namespace {

constexpr uint32_t kCookieNoRun = 12346;
constexpr uint32_t kCookieRun = 12347;
constexpr int64_t kMaxArrayCardinality = 4096;
constexpr size_t kBitmapWords = 1024;  // 65536 bits
constexpr uint32_t kNoOffsetThreshold = 4;

// A bounds-checked cursor over untrusted bytes.
class Cursor {
 public:
  Cursor(std::string_view bytes, const char* what) : bytes_(bytes), what_(what) {}
  bool Has(size_t n) const { return bytes_.size() - pos_ >= n; }
  size_t pos() const { return pos_; }
  template <typename T>
  Result<T> Read(const char* field) {
    if (!Has(sizeof(T))) return Truncated(field);
    T v = LoadLE<T>(bytes_.data() + pos_);
    pos_ += sizeof(T);
    return v;
  }
  Status Skip(size_t n, const char* field) {
    if (!Has(n)) return Truncated(field);
    pos_ += n;
    return Status::OK();
  }
  Status Truncated(const char* field) const {
    return Status::Invalid(what_, " is truncated (", field, ")");
  }

 private:
  std::string_view bytes_;
  const char* what_;
  size_t pos_ = 0;
};

}  // namespace

Result<std::vector<uint32_t>> DecodeRoaring32(std::string_view bytes, const char* what,
                                              size_t* consumed) {
  Cursor in(bytes, what);
  ARROW_ASSIGN_OR_RAISE(uint32_t cookie, in.Read<uint32_t>("cookie"));
  uint32_t size = 0;
  std::string run_flags;
  bool has_offsets = true;
  if ((cookie & 0xFFFF) == kCookieRun) {
    size = (cookie >> 16) + 1;
    const size_t flag_bytes = (size + 7) / 8;
    if (!in.Has(flag_bytes)) return in.Truncated("run flags");
    run_flags.assign(bytes.data() + 4, flag_bytes);
    ARROW_RETURN_NOT_OK(in.Skip(flag_bytes, "run flags"));
    has_offsets = size >= kNoOffsetThreshold;
  } else if (cookie == kCookieNoRun) {
    ARROW_ASSIGN_OR_RAISE(size, in.Read<uint32_t>("container count"));
    if (size > 65536) return Status::Invalid(what, " has ", size, " containers");
  } else {
    return Status::Invalid(what, " is not a Roaring bitmap (cookie ", cookie, ")");
  }
  std::vector<std::pair<uint16_t, int64_t>> headers(size);  // key, cardinality
  for (auto& h : headers) {
    ARROW_ASSIGN_OR_RAISE(h.first, in.Read<uint16_t>("key"));
    ARROW_ASSIGN_OR_RAISE(uint16_t card_minus_one, in.Read<uint16_t>("cardinality"));
    h.second = int64_t{card_minus_one} + 1;
  }
  if (has_offsets) ARROW_RETURN_NOT_OK(in.Skip(size_t{4} * size, "offsets"));
  std::vector<uint32_t> out;
  int64_t previous = -1;
  auto emit = [&](int64_t value) -> Status {
    if (value <= previous) return Status::Invalid(what, " values are not increasing");
    out.push_back(static_cast<uint32_t>(value));
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
          return Status::Invalid(what, " run overflows its container");
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
      return Status::Invalid(what, " container ", i, " holds ", out.size() - before,
                             " values but its header says ", headers[i].second);
    }
  }
  if (consumed != nullptr) *consumed = in.pos();
  return out;
}

std::string EncodeRoaring32(const std::vector<uint32_t>& values) {
  // Containers: [begin, end) slices of `values` sharing the high 16 bits.
  std::vector<std::pair<size_t, size_t>> containers;
  for (size_t i = 0; i < values.size();) {
    size_t j = i;
    const uint32_t key = values[i] >> 16;
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
        const uint32_t low = values[k] & 0xFFFF;
        words[low / 64] |= uint64_t{1} << (low % 64);
      }
      for (uint64_t w : words) AppendLE<uint64_t>(&out, w);
    }
  }
  return out;
}

Result<std::vector<int64_t>> DecodeRoaring64(std::string_view bytes, const char* what) {
  if (bytes.size() < 8) return Status::Invalid(what, " is truncated (bucket count)");
  const uint64_t buckets = LoadLE<uint64_t>(bytes.data());
  // Each bucket takes at least 12 bytes: a count that does not fit is damage, not a size.
  if (buckets > (bytes.size() - 8) / 12) {
    return Status::Invalid(what, " claims ", buckets, " buckets in ", bytes.size(), " bytes");
  }
  size_t pos = 8;
  std::vector<int64_t> out;
  int64_t previous_high = -1;
  for (uint64_t b = 0; b < buckets; ++b) {
    if (bytes.size() - pos < 4) return Status::Invalid(what, " is truncated (bucket key)");
    const int64_t high = LoadLE<uint32_t>(bytes.data() + pos);
    pos += 4;
    if (high >= 0x80000000LL) return Status::Invalid(what, " holds a negative value");
    if (high <= previous_high) return Status::Invalid(what, " buckets are not increasing");
    previous_high = high;
    size_t used = 0;
    ARROW_ASSIGN_OR_RAISE(auto low, DecodeRoaring32(bytes.substr(pos), what, &used));
    pos += used;
    for (uint32_t v : low) out.push_back((high << 32) | v);
  }
  if (pos != bytes.size()) {
    return Status::Invalid(what, " has ", bytes.size() - pos, " bytes after its last bucket");
  }
  return out;
}

std::string EncodeRoaring64(const std::vector<int64_t>& values) {
  std::string body;
  uint64_t buckets = 0;
  std::vector<uint32_t> low;
  for (size_t i = 0; i < values.size();) {
    const int64_t high = values[i] >> 32;
    low.clear();
    for (; i < values.size() && (values[i] >> 32) == high; ++i) {
      low.push_back(static_cast<uint32_t>(values[i]));
    }
    AppendLE<uint32_t>(&body, static_cast<uint32_t>(high));
    body += EncodeRoaring32(low);
    ++buckets;
  }
  std::string out;
  AppendLE<uint64_t>(&out, buckets);
  return out + body;
}

}  // namespace paimon_rowid
