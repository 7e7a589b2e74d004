#include "paimon_rowid/commit/commit_message.h"

#include <cstring>

#include <nlohmann/json.hpp>

#include "paimon_rowid/common/json_text.h"

namespace paimon_rowid {
namespace {

constexpr char kMagic[4] = {'P', 'R', 'C', 'M'};
constexpr int kVersion = 1;

std::string ToHex(std::string_view bytes) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

Result<std::string> FromHex(const std::string& hex) {
  if (hex.size() % 2 != 0) return Status::Invalid("odd-length hex string");
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return Status::Invalid("bad hex digit");
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

}  // namespace

Result<std::string> CommitMessage::Serialize() const {
  nlohmann::json header;
  header["version"] = kVersion;
  header["partition"] = ToHex(partition);
  header["bucket"] = bucket;
  header["total_buckets"] = total_buckets;
  if (check_from_snapshot) header["check_from_snapshot"] = *check_from_snapshot;
  if (!table_path.empty()) header["table"] = table_path;
  std::vector<ManifestEntry> entries;
  entries.reserve(new_files.size());
  for (const auto& f : new_files) {
    ManifestEntry e;
    e.partition = partition;
    e.bucket = bucket;
    e.total_buckets = total_buckets;
    e.file = f;
    entries.push_back(std::move(e));
  }
  ARROW_ASSIGN_OR_RAISE(auto manifest, EncodeManifest(entries, "null"));
  std::string head = header.dump();
  std::string out(kMagic, 4);
  uint32_t len = static_cast<uint32_t>(head.size());
  out.append(reinterpret_cast<const char*>(&len), 4);
  out += head;
  out.append(reinterpret_cast<const char*>(manifest->data()), manifest->size());
  return out;
}

Result<CommitMessage> CommitMessage::Deserialize(std::string_view bytes) {
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kMagic, 4) != 0) {
    return Status::Invalid("not a serialized commit message");
  }
  uint32_t len;
  std::memcpy(&len, bytes.data() + 4, 4);
  if (bytes.size() < 8 + static_cast<size_t>(len)) {
    return Status::Invalid("serialized commit message is truncated");
  }
  CommitMessage msg;
  try {
    auto header = nlohmann::json::parse(bytes.substr(8, len));
    if (JsonInteger<int>(header.at("version")) != kVersion) {
      return Status::Invalid("unsupported commit message version ", header.at("version").dump());
    }
    ARROW_ASSIGN_OR_RAISE(msg.partition, FromHex(header.at("partition").get<std::string>()));
    msg.bucket = JsonInteger<int32_t>(header.at("bucket"));
    msg.total_buckets = JsonInteger<int32_t>(header.at("total_buckets"));
    if (header.contains("check_from_snapshot")) {
      msg.check_from_snapshot = JsonInteger<int64_t>(header["check_from_snapshot"]);
    }
    if (header.contains("table")) msg.table_path = header["table"].get<std::string>();
  } catch (const std::exception& e) {
    return Status::Invalid("serialized commit message is malformed: ", e.what());
  }
  auto body = bytes.substr(8 + len);
  ARROW_ASSIGN_OR_RAISE(auto entries,
                        DecodeManifest(arrow::Buffer::FromString(std::string(body))));
  for (auto& e : entries) msg.new_files.push_back(std::move(e.file));
  return msg;
}

}  // namespace paimon_rowid
