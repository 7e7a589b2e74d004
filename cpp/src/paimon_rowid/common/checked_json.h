// Reading JSON without exceptions escaping: the one seam where nlohmann's exceptions
// (type_error, out_of_range, parse_error, and JsonInteger's range errors) become Status
// (STYLE habit 2). Every JSON reader of the engine -- schemas, snapshots, tags, data types,
// Avro schemas and the headers of our wire envelopes -- goes through it.
#pragma once

#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "paimon_rowid/common/json_text.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

/// Runs `fn`, which may read JSON with nlohmann's throwing accessors (at(), get<T>(),
/// JsonInteger), and returns its Status / Result; an exception thrown by it becomes
/// Invalid(`context` + the exception's message), e.g. context "malformed snapshot JSON: ".
/// `fn` must return Status or Result<T>.
template <typename Fn>
auto CatchJsonErrors(std::string_view context, Fn&& fn) -> decltype(fn()) {
  try {
    return std::forward<Fn>(fn)();
  } catch (const std::exception& e) {
    return Status::Invalid(context, e.what());
  }
}

/// Parses `text` as one JSON value; Invalid(`what` + " is not valid JSON: " + reason)
/// otherwise. Never throws.
inline Result<nlohmann::json> ParseJson(std::string_view text, std::string_view what) {
  nlohmann::json value = nlohmann::json::parse(text.begin(), text.end(), /*cb=*/nullptr,
                                               /*allow_exceptions=*/false);
  if (value.is_discarded()) return Status::Invalid(what, " is not valid JSON");
  return value;
}

/// The member `key` of the object `value` as T: integers range-checked (JsonInteger),
/// strings and booleans exactly; Invalid when absent or of another type (a document missing
/// a key is malformed). Never throws.
template <typename T>
Result<T> JsonField(const nlohmann::json& value, const std::string& key) {
  if (!value.is_object()) return Status::Invalid("expected a JSON object holding '", key, "'");
  auto it = value.find(key);
  if (it == value.end()) return Status::Invalid("JSON key '", key, "' is missing");
  if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) return Status::Invalid("JSON key '", key, "' must be a boolean");
    return it->template get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    return CatchJsonErrors(
        "JSON key '" + key + "': ", [&]() -> Result<T> { return JsonInteger<T>(*it); });
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) return Status::Invalid("JSON key '", key, "' must be a string");
    return it->template get<std::string>();
  } else {
    static_assert(std::is_same_v<T, nlohmann::json>,
                  "JsonField reads integers, strings, "
                  "booleans or JSON values");
    return *it;
  }
}

/// As JsonField, nullopt when `key` is absent or null.
template <typename T>
Result<std::optional<T>> OptionalJsonField(const nlohmann::json& value, const std::string& key) {
  if (value.is_object()) {
    auto it = value.find(key);
    if (it == value.end() || it->is_null()) return std::optional<T>();
  }
  ARROW_ASSIGN_OR_RAISE(T field, JsonField<T>(value, key));
  return std::optional<T>(std::move(field));
}

}  // namespace paimon_rowid
