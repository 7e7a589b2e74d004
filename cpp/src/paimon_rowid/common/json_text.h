// JSON text in the layout Java Paimon writes schema, snapshot and tag files with (Jackson's
// DefaultPrettyPrinter), so files we write diff cleanly against Java's.
#pragma once

#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace paimon_rowid {

/// Objects one key per line, indented two spaces per level, " : " between key and value;
/// arrays inline ("[ 1, 2 ]", "[ {" ... "}, {" ... "} ]"); empty containers "{ }" and "[ ]".
/// Invalid UTF-8 in strings is replaced, never thrown.
std::string ToJacksonText(const nlohmann::ordered_json& value);

/// `value` as the integer type T, for the JSON headers of our own envelopes (commit messages,
/// splits, row-id indexes). nlohmann's get<T>() converts floats and out-of-range integers with
/// a plain cast (undefined behaviour for 1e30); this throws std::out_of_range instead, like
/// the type errors get<T>() throws, for the envelope parsers' catch blocks.
template <typename T>
T JsonInteger(const nlohmann::json& value) {
  static_assert(std::is_integral_v<T>);
  using Limits = std::numeric_limits<T>;
  if (value.is_number_unsigned()) {
    if (value.get<uint64_t>() <= static_cast<uint64_t>(Limits::max())) return value.get<T>();
  } else if (value.is_number_integer()) {
    const int64_t v = value.get<int64_t>();
    if (v >= 0 ? static_cast<uint64_t>(v) <= static_cast<uint64_t>(Limits::max())
               : Limits::is_signed && v >= static_cast<int64_t>(Limits::min())) {
      return static_cast<T>(v);
    }
  } else {
    throw std::out_of_range("expected an integer, got " + std::string(value.type_name()));
  }
  throw std::out_of_range("integer " + value.dump() + " out of range");
}

}  // namespace paimon_rowid
