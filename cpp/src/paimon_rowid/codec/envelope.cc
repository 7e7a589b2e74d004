#include "paimon_rowid/codec/envelope.h"

#include <cstring>

#include "paimon_rowid/codec/little_endian.h"

namespace paimon_rowid {

std::string SealEnvelope(const EnvelopeKind& kind, std::string_view header, std::string_view body) {
  std::string out;
  out.reserve(kEnvelopePrefixSize + header.size() + body.size());
  out.append(kind.magic, sizeof(kind.magic));
  AppendLE<uint16_t>(&out, kEnvelopeVersion);
  AppendLE<uint16_t>(&out, kind.version);
  AppendLE<uint32_t>(&out, static_cast<uint32_t>(header.size()));
  out.append(header);
  out.append(body);
  return out;
}

Result<EnvelopeParts> OpenEnvelope(const EnvelopeKind& kind, std::string_view bytes) {
  if (bytes.size() < kEnvelopePrefixSize ||
      std::memcmp(bytes.data(), kind.magic, sizeof(kind.magic)) != 0) {
    return Status::Invalid("not a serialized ", kind.what);
  }
  const uint16_t envelope_version = LoadLE<uint16_t>(bytes.data() + 4);
  if (envelope_version != kEnvelopeVersion) {
    return Status::Invalid("serialized ", kind.what, " has envelope version ", envelope_version,
                           " (expected ", kEnvelopeVersion, ")");
  }
  const uint16_t payload_version = LoadLE<uint16_t>(bytes.data() + 6);
  if (payload_version != kind.version) {
    return Status::Invalid("serialized ", kind.what, " has payload version ", payload_version,
                           " (expected ", kind.version, ")");
  }
  const uint32_t header_size = LoadLE<uint32_t>(bytes.data() + 8);
  // `header_size > left`, not a sum: a huge length must not wrap around.
  if (header_size > bytes.size() - kEnvelopePrefixSize) {
    return Status::Invalid("serialized ", kind.what, " is truncated");
  }
  EnvelopeParts parts;
  parts.header = bytes.substr(kEnvelopePrefixSize, header_size);
  parts.body = bytes.substr(kEnvelopePrefixSize + header_size);
  return parts;
}

std::string ToHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

Result<std::string> FromHex(std::string_view hex) {
  if (hex.size() % 2 != 0) return Status::Invalid("odd-length hex string");
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = digit(hex[i]);
    const int lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return Status::Invalid("bad hex digit");
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

}  // namespace paimon_rowid
