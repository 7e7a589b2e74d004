#include "paimon_rowid/common/identifier.h"

#include <cstdio>
#include <random>

namespace paimon_rowid {

Status ValidateName(std::string_view name, std::string_view what) {
  if (name.empty()) return Status::Invalid(what, " name must not be empty");
  if (name == "." || name == "..") {
    return Status::Invalid(what, " name '", name, "' is not allowed");
  }
  for (unsigned char c : name) {
    if (c == '/' || c == '\\') {
      return Status::Invalid(what, " name '", name, "' must not contain '/' or '\\'");
    }
    if (c < 0x20 || c == 0x7F) {
      return Status::Invalid(what, " name must not contain control characters");
    }
  }
  return Status::OK();
}

Result<Identifier> Identifier::Parse(std::string_view full_name) {
  size_t dot = full_name.find('.');
  if (dot == std::string_view::npos) {
    return Status::Invalid("table identifier '", full_name,
                           "' must have the form 'database.table'");
  }
  Identifier id{std::string(full_name.substr(0, dot)), std::string(full_name.substr(dot + 1))};
  ARROW_RETURN_NOT_OK(ValidateName(id.database, "database"));
  ARROW_RETURN_NOT_OK(ValidateName(id.table, "table"));
  if (id.table.find('$') != std::string::npos) {
    return Status::NotImplemented("system tables ('", full_name, "') are not supported");
  }
  return id;
}

uint64_t RandomU64() {
  thread_local std::mt19937_64 gen{std::random_device{}()};
  return gen();
}

std::string RandomUuid() {
  uint64_t hi = RandomU64(), lo = RandomU64();
  hi = (hi & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;
  char buf[37];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return buf;
}

}  // namespace paimon_rowid
