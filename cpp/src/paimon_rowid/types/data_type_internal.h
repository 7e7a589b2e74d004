// Internal to the types/ folder: the nesting limit and the checks that the SQL parser
// (data_type_sql.cc), the JSON reader (data_type_json.cc) and the Arrow mapping
// (data_type_arrow.cc) all apply. Defined in data_type.cc. Not part of the public API.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "paimon_rowid/common/status.h"
#include "paimon_rowid/types/data_type.h"

namespace paimon_rowid::data_type_internal {

// Deeper nesting than this is rejected so that hostile input cannot exhaust the stack.
constexpr int kMaxNestingDepth = 64;

// `s` upper-cased (ASCII).
std::string Upper(std::string_view s);

// Precision/scale of DECIMAL, TIME and TIMESTAMP types; other roots pass.
Status CheckPrecision(TypeRoot root, int64_t precision, int64_t scale);

// A VECTOR's length and element type.
Status CheckVector(const DataTypePtr& element, int64_t length);

}  // namespace paimon_rowid::data_type_internal
