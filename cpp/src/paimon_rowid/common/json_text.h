// JSON text in the layout Java Paimon writes schema, snapshot and tag files with (Jackson's
// DefaultPrettyPrinter), so files we write diff cleanly against Java's.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace paimon_rowid {

/// Objects one key per line, indented two spaces per level, " : " between key and value;
/// arrays inline ("[ 1, 2 ]", "[ {" ... "}, {" ... "} ]"); empty containers "{ }" and "[ ]".
/// Invalid UTF-8 in strings is replaced, never thrown.
std::string ToJacksonText(const nlohmann::ordered_json& value);

}  // namespace paimon_rowid
