// Table identifiers ("db.table") and the rules that keep every path inside the warehouse.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

struct Identifier {
  std::string database;
  std::string table;

  /// Parses "db.table". The first '.' separates database and table. Both parts are
  /// validated with ValidateName. Errors are Invalid (ValueError in Python).
  static Result<Identifier> Parse(std::string_view full_name);

  std::string FullName() const { return database + "." + table; }
};

/// A database or table name is valid when it is non-empty, is not "." or "..", and holds
/// no '/', '\\' or control characters. `what` names the thing in the error message.
Status ValidateName(std::string_view name, std::string_view what);

/// 64 random bits from a per-thread generator seeded from the kernel's random source, and
/// seeded again in a child of fork(2) before its first draw there (the child's copy of the
/// parent's state would repeat the parent's names). Not cryptographic: names and markers that
/// must not collide across threads, processes, forks and hosts, not secrets.
uint64_t RandomU64();

/// A random RFC 4122 version-4 UUID in its 36-character text form.
std::string RandomUuid();

}  // namespace paimon_rowid
