// Avro schema parsing and the generic Value's accessors (the container reader is in
// avro_reader.cc, the writer in avro_writer.cc and the block codecs in avro_block.cc).
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "paimon_rowid/codec/avro.h"
#include "paimon_rowid/common/checked_json.h"

namespace paimon_rowid::avro {

namespace {

using Kind = Node::Kind;
using Json = nlohmann::json;

// Nesting beyond this is not a schema anyone writes; the limit keeps recursion off the
// end of the stack for hostile headers.
constexpr int kMaxSchemaDepth = 64;

// ---------------------------------------------------------------------------------------
// Schema parsing

const std::unordered_map<std::string, Kind>& PrimitiveKinds() {
  static const auto* kinds = new std::unordered_map<std::string, Kind>{
      {"null", Kind::kNull},   {"boolean", Kind::kBoolean}, {"int", Kind::kInt},
      {"long", Kind::kLong},   {"float", Kind::kFloat},     {"double", Kind::kDouble},
      {"bytes", Kind::kBytes}, {"string", Kind::kString}};
  return *kinds;
}

const std::string* GetString(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return nullptr;
  return &it->get_ref<const std::string&>();
}

class SchemaParser {
 public:
  Result<std::shared_ptr<Node>> Parse(const Json& j, const std::string& ns, int depth) {
    if (depth > kMaxSchemaDepth) return Status::Invalid("Avro schema nested too deeply");
    if (j.is_string()) return ParseName(j.get_ref<const std::string&>(), ns);
    if (j.is_array()) return ParseUnion(j, ns, depth);
    if (!j.is_object()) return Status::Invalid("Avro schema: unexpected JSON ", j.type_name());
    auto type_it = j.find("type");
    if (type_it == j.end()) return Status::Invalid("Avro schema: object without \"type\"");
    if (!type_it->is_string()) return Parse(*type_it, ns, depth + 1);  // {"type": {...}}
    const std::string& type = type_it->get_ref<const std::string&>();
    std::shared_ptr<Node> node;
    if (type == "record" || type == "error") {
      ARROW_ASSIGN_OR_RAISE(node, ParseRecord(j, ns, depth));
    } else if (type == "enum") {
      ARROW_ASSIGN_OR_RAISE(node, ParseEnum(j, ns));
    } else if (type == "fixed") {
      ARROW_ASSIGN_OR_RAISE(node, ParseFixed(j, ns));
    } else if (type == "array" || type == "map") {
      auto child_it = j.find(type == "array" ? "items" : "values");
      if (child_it == j.end()) return Status::Invalid("Avro schema: ", type, " without items");
      node = std::make_shared<Node>();
      node->kind = type == "array" ? Kind::kArray : Kind::kMap;
      ARROW_ASSIGN_OR_RAISE(auto child, Parse(*child_it, ns, depth + 1));
      node->children.push_back(std::move(child));
    } else if (PrimitiveKinds().count(type)) {
      node = std::make_shared<Node>();
      node->kind = PrimitiveKinds().at(type);
    } else {
      // {"type": "SomeNamedType"}: a reference, shared with its definition.
      return ParseName(type, ns);
    }
    if (const std::string* logical = GetString(j, "logicalType")) node->logical_type = *logical;
    return node;
  }

 private:
  static std::string FullName(const std::string& name, const std::string& ns) {
    if (name.find('.') != std::string::npos || ns.empty()) return name;
    return ns + "." + name;
  }
  static std::string NamespaceOf(const std::string& full_name) {
    size_t dot = full_name.rfind('.');
    return dot == std::string::npos ? std::string() : full_name.substr(0, dot);
  }

  Result<std::shared_ptr<Node>> ParseName(const std::string& name, const std::string& ns) {
    auto prim = PrimitiveKinds().find(name);
    if (prim != PrimitiveKinds().end()) {
      auto node = std::make_shared<Node>();
      node->kind = prim->second;
      return node;
    }
    for (const std::string& candidate : {FullName(name, ns), name}) {
      if (in_progress_.count(candidate)) {
        // Self-referencing schemas would need cyclic nodes; Paimon never writes them.
        return Status::NotImplemented("Avro schema: recursive type ", candidate);
      }
      auto it = named_.find(candidate);
      if (it != named_.end()) return it->second;
    }
    return Status::Invalid("Avro schema: unknown type '", name, "'");
  }

  Result<std::shared_ptr<Node>> ParseUnion(const Json& j, const std::string& ns, int depth) {
    if (j.empty()) return Status::Invalid("Avro schema: empty union");
    auto node = std::make_shared<Node>();
    node->kind = Kind::kUnion;
    for (const Json& branch : j) {
      ARROW_ASSIGN_OR_RAISE(auto child, Parse(branch, ns, depth + 1));
      if (child->kind == Kind::kUnion) return Status::Invalid("Avro schema: nested union");
      node->children.push_back(std::move(child));
    }
    return node;
  }

  // Resolves the name of a named type and reserves it; `*child_ns` receives the namespace
  // its fields are resolved in.
  Result<std::string> DeclareName(const Json& j, const std::string& ns, std::string* child_ns) {
    const std::string* name = GetString(j, "name");
    if (name == nullptr || name->empty()) return Status::Invalid("Avro schema: unnamed type");
    const std::string* explicit_ns = GetString(j, "namespace");
    std::string full = FullName(*name, explicit_ns ? *explicit_ns : ns);
    if (named_.count(full) || in_progress_.count(full)) {
      return Status::Invalid("Avro schema: type '", full, "' defined twice");
    }
    *child_ns = NamespaceOf(full);
    return full;
  }

  Result<std::shared_ptr<Node>> ParseRecord(const Json& j, const std::string& ns, int depth) {
    std::string child_ns;
    ARROW_ASSIGN_OR_RAISE(std::string full, DeclareName(j, ns, &child_ns));
    auto fields = j.find("fields");
    if (fields == j.end() || !fields->is_array()) {
      return Status::Invalid("Avro schema: record '", full, "' without fields");
    }
    auto node = std::make_shared<Node>();
    node->kind = Kind::kRecord;
    node->name = full;
    in_progress_.insert(full);
    for (const Json& field : *fields) {
      const std::string* field_name = field.is_object() ? GetString(field, "name") : nullptr;
      auto type_it = field.is_object() ? field.find("type") : field.end();
      if (field_name == nullptr || type_it == field.end()) {
        return Status::Invalid("Avro schema: malformed field in '", full, "'");
      }
      ARROW_ASSIGN_OR_RAISE(auto child, Parse(*type_it, child_ns, depth + 1));
      node->field_names.push_back(*field_name);
      node->children.push_back(std::move(child));
    }
    in_progress_.erase(full);
    named_[full] = node;
    return node;
  }

  Result<std::shared_ptr<Node>> ParseEnum(const Json& j, const std::string& ns) {
    std::string child_ns;
    ARROW_ASSIGN_OR_RAISE(std::string full, DeclareName(j, ns, &child_ns));
    auto symbols = j.find("symbols");
    if (symbols == j.end() || !symbols->is_array()) {
      return Status::Invalid("Avro schema: enum '", full, "' without symbols");
    }
    auto node = std::make_shared<Node>();
    node->kind = Kind::kEnum;
    node->name = full;
    for (const Json& symbol : *symbols) {
      if (!symbol.is_string()) return Status::Invalid("Avro schema: bad enum symbol");
      node->symbols.push_back(symbol.get<std::string>());
    }
    named_[full] = node;
    return node;
  }

  Result<std::shared_ptr<Node>> ParseFixed(const Json& j, const std::string& ns) {
    std::string child_ns;
    ARROW_ASSIGN_OR_RAISE(std::string full, DeclareName(j, ns, &child_ns));
    auto size = j.find("size");
    if (size == j.end() || !size->is_number_integer() || size->get<int64_t>() < 0 ||
        size->get<int64_t>() > std::numeric_limits<int32_t>::max()) {
      return Status::Invalid("Avro schema: fixed '", full, "' needs a size");
    }
    auto node = std::make_shared<Node>();
    node->kind = Kind::kFixed;
    node->name = full;
    node->fixed_size = static_cast<int32_t>(size->get<int64_t>());
    named_[full] = node;
    return node;
  }

  std::unordered_map<std::string, std::shared_ptr<Node>> named_;
  std::set<std::string> in_progress_;
};

}  // namespace

// ---------------------------------------------------------------------------------------
// Node, schema, Value

int Node::FieldIndex(std::string_view field) const {
  for (size_t i = 0; i < field_names.size(); ++i) {
    if (field_names[i] == field) return static_cast<int>(i);
  }
  return -1;
}

Result<NodePtr> ParseSchema(std::string_view json) {
  return CatchJsonErrors("Avro schema: ", [&]() -> Result<NodePtr> {
    Json doc = Json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) return Status::Invalid("Avro schema is not valid JSON");
    SchemaParser parser;
    ARROW_ASSIGN_OR_RAISE(auto node, parser.Parse(doc, "", 0));
    return NodePtr(std::move(node));
  });
}

namespace {
const char* StorageName(const Value::Storage& s) {
  static const char* kNames[] = {"null",   "boolean", "int",    "long",  "float",
                                 "double", "bytes",   "record", "array", "map"};
  return kNames[s.index()];
}

template <typename T>
Result<T> Get(const Value::Storage& s, const char* wanted) {
  if (const T* v = std::get_if<T>(&s)) return *v;
  return Status::TypeError("Avro value is ", StorageName(s), ", expected ", wanted);
}
}  // namespace

Result<bool> Value::AsBool() const { return Get<bool>(storage_, "boolean"); }
Result<int32_t> Value::AsInt() const { return Get<int32_t>(storage_, "int"); }
Result<int64_t> Value::AsLong() const {
  if (const int32_t* v = std::get_if<int32_t>(&storage_)) return int64_t{*v};
  return Get<int64_t>(storage_, "long");
}
Result<double> Value::AsDouble() const {
  if (const float* v = std::get_if<float>(&storage_)) return double{*v};
  return Get<double>(storage_, "double");
}
Result<std::string_view> Value::AsBytes() const {
  if (const std::string* v = std::get_if<std::string>(&storage_)) return std::string_view(*v);
  return Status::TypeError("Avro value is ", StorageName(storage_), ", expected bytes");
}
Result<const Value::Record*> Value::AsRecord() const {
  if (const Record* v = std::get_if<Record>(&storage_)) return v;
  return Status::TypeError("Avro value is ", StorageName(storage_), ", expected record");
}
Result<const Value::Array*> Value::AsArray() const {
  if (const Array* v = std::get_if<Array>(&storage_)) return v;
  return Status::TypeError("Avro value is ", StorageName(storage_), ", expected array");
}
Result<const Value::MapValue*> Value::AsMap() const {
  if (const MapValue* v = std::get_if<MapValue>(&storage_)) return v;
  return Status::TypeError("Avro value is ", StorageName(storage_), ", expected map");
}

}  // namespace paimon_rowid::avro
