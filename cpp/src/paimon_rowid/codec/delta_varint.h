// DeltaVarint: the integer-list encoding of .blob file indexes (docs/format.md §6.2): the first
// value, then successive differences, each ZigZag-encoded and written as an unsigned LEB128
// varint.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

std::string EncodeDeltaVarint(const std::vector<int64_t>& values);
/// Invalid on a truncated or over-long varint.
Result<std::vector<int64_t>> DecodeDeltaVarint(std::string_view bytes);

}  // namespace paimon_rowid
