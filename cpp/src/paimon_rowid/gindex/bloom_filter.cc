#include "paimon_rowid/gindex/bloom_filter.h"

#include <cmath>

#include "paimon_rowid/codec/little_endian.h"

namespace paimon_rowid {
namespace {

constexpr uint32_t kC1 = 0xCC9E2D51u;
constexpr uint32_t kC2 = 0x1B873593u;
constexpr uint32_t kSeed = 42;

uint32_t Rotl(uint32_t v, int d) { return (v << d) | (v >> (32 - d)); }
uint32_t MixK1(uint32_t k) { return Rotl(k * kC1, 15) * kC2; }
uint32_t MixH1(uint32_t h, uint32_t k) { return Rotl(h ^ k, 13) * 5 + 0xE6546B64u; }
uint32_t Fmix(uint32_t h, uint32_t length) {
  h ^= length;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  return h ^ (h >> 16);
}

}  // namespace

int32_t PaimonHashBytes(std::string_view bytes) {
  const size_t aligned = bytes.size() - bytes.size() % 4;
  uint32_t h = kSeed;
  for (size_t i = 0; i < aligned; i += 4) h = MixH1(h, MixK1(LoadLE<uint32_t>(bytes.data() + i)));
  for (size_t i = aligned; i < bytes.size(); ++i) {
    // Each tail byte as its own sign-extended word.
    h = MixH1(h, MixK1(static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(bytes[i])))));
  }
  return static_cast<int32_t>(Fmix(h, static_cast<uint32_t>(bytes.size())));
}

BloomFilter::BloomFilter(std::string bits, int64_t expected_entries)
    : bits_(std::move(bits)), expected_entries_(expected_entries) {
  if (expected_entries_ > 0 && !bits_.empty()) {
    const double k = static_cast<double>(bits_.size()) * 8 /
                     static_cast<double>(expected_entries_) * std::log(2.0);
    num_hashes_ = std::max(1, static_cast<int>(std::floor(k + 0.5)));
  }
}

BloomFilter BloomFilter::Build(const std::vector<int32_t>& hashes, double fpp) {
  const int64_t n = static_cast<int64_t>(hashes.size());
  if (n == 0) return BloomFilter("", 0);
  const double ln2 = std::log(2.0);
  const int64_t bits = static_cast<int64_t>(-static_cast<double>(n) * std::log(fpp) / (ln2 * ln2));
  const int64_t bytes = static_cast<int64_t>(std::ceil(static_cast<double>(bits) / 8.0));
  BloomFilter filter(std::string(static_cast<size_t>(std::max<int64_t>(bytes, 1)), '\0'), n);
  for (int32_t h : hashes) filter.Add(h);
  return filter;
}

Result<BloomFilter> BloomFilter::FromBytes(std::string bytes, int64_t expected_entries) {
  if (bytes.empty() || expected_entries <= 0) {
    return Status::Invalid("btree index bloom filter has ", bytes.size(), " bytes for ",
                           expected_entries, " expected entries");
  }
  return BloomFilter(std::move(bytes), expected_entries);
}

void BloomFilter::Add(int32_t hash) {
  const uint32_t h2 = static_cast<uint32_t>(hash) >> 16;
  const uint64_t bit_size = uint64_t{bits_.size()} * 8;
  for (int i = 1; i <= num_hashes_; ++i) {
    int32_t c = static_cast<int32_t>(static_cast<uint32_t>(hash) + static_cast<uint32_t>(i) * h2);
    if (c < 0) c = ~c;
    const uint64_t pos = static_cast<uint64_t>(c) % bit_size;
    bits_[pos >> 3] =
        static_cast<char>(static_cast<unsigned char>(bits_[pos >> 3]) | (1u << (pos & 7)));
  }
}

bool BloomFilter::MightContain(int32_t hash) const {
  const uint32_t h2 = static_cast<uint32_t>(hash) >> 16;
  const uint64_t bit_size = uint64_t{bits_.size()} * 8;
  for (int i = 1; i <= num_hashes_; ++i) {
    int32_t c = static_cast<int32_t>(static_cast<uint32_t>(hash) + static_cast<uint32_t>(i) * h2);
    if (c < 0) c = ~c;
    const uint64_t pos = static_cast<uint64_t>(c) % bit_size;
    if (((static_cast<unsigned char>(bits_[pos >> 3]) >> (pos & 7)) & 1) == 0) return false;
  }
  return true;
}

}  // namespace paimon_rowid
