#include "paimon_rowid/common/json_text.h"

namespace paimon_rowid {
namespace {

using ordered_json = nlohmann::ordered_json;
constexpr auto kReplace = ordered_json::error_handler_t::replace;

void Write(const ordered_json& value, int nesting, std::string* out) {
  auto indent = [&](int level) {
    out->push_back('\n');
    out->append(static_cast<size_t>(level) * 2, ' ');
  };
  if (value.is_object()) {
    if (value.empty()) {
      out->append("{ }");
      return;
    }
    out->push_back('{');
    bool first = true;
    for (const auto& [key, child] : value.items()) {
      if (!first) out->push_back(',');
      first = false;
      indent(nesting + 1);
      out->append(ordered_json(key).dump(-1, ' ', false, kReplace));
      out->append(" : ");
      Write(child, nesting + 1, out);
    }
    indent(nesting);
    out->push_back('}');
  } else if (value.is_array()) {
    if (value.empty()) {
      out->append("[ ]");
      return;
    }
    out->append("[ ");
    bool first = true;
    for (const auto& child : value) {
      if (!first) out->append(", ");
      first = false;
      Write(child, nesting, out);
    }
    out->append(" ]");
  } else {
    out->append(value.dump(-1, ' ', false, kReplace));
  }
}

}  // namespace

std::string ToJacksonText(const ordered_json& value) {
  std::string out;
  Write(value, 0, &out);
  return out;
}

}  // namespace paimon_rowid
