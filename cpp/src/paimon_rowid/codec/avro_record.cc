#include "paimon_rowid/codec/avro_record.h"

namespace paimon_rowid::avro {

const Node* AsRecordNode(const Node* node) {
  if (node == nullptr) return nullptr;
  if (node->kind == Node::Kind::kRecord) return node;
  if (node->kind == Node::Kind::kUnion) {
    for (const auto& branch : node->children) {
      if (branch->kind == Node::Kind::kRecord) return branch.get();
    }
  }
  return nullptr;
}

const Node* ArrayItemRecordNode(const Node* node) {
  if (node != nullptr && node->kind == Node::Kind::kUnion) {
    for (const auto& branch : node->children) {
      if (branch->kind == Node::Kind::kArray) node = branch.get();
    }
  }
  if (node == nullptr || node->kind != Node::Kind::kArray || node->children.empty()) {
    return nullptr;
  }
  return AsRecordNode(node->children[0].get());
}

Result<RecordReader> RecordReader::Make(const Value& value, const Node* node, const char* what) {
  if (node == nullptr || node->kind != Node::Kind::kRecord) {
    return Status::Invalid(what, ": schema is not a record");
  }
  ARROW_ASSIGN_OR_RAISE(const Value::Record* record, value.AsRecord());
  if (record->fields.size() != node->children.size()) {
    return Status::Invalid(what, ": record does not match its schema");
  }
  return RecordReader(record, node, what);
}

const Value* RecordReader::Find(const char* name) const {
  int index = node_->FieldIndex(name);
  if (index < 0 || record_->fields[index].is_null()) return nullptr;
  return &record_->fields[index];
}

const Node* RecordReader::FieldNode(const char* name) const {
  int index = node_->FieldIndex(name);
  return index < 0 ? nullptr : node_->children[index].get();
}

Result<const Value*> RecordReader::Required(const char* name) const {
  const Value* v = Find(name);
  if (v == nullptr) return Status::Invalid(what_, ": required field ", name, " missing");
  return v;
}

Result<int64_t> RecordReader::Long(const char* name) const {
  ARROW_ASSIGN_OR_RAISE(const Value* v, Required(name));
  return Context(v->AsLong(), name);
}

Result<int32_t> RecordReader::Int(const char* name) const {
  ARROW_ASSIGN_OR_RAISE(const Value* v, Required(name));
  return Context(v->AsInt(), name);
}

Result<std::string> RecordReader::Bytes(const char* name) const {
  ARROW_ASSIGN_OR_RAISE(const Value* v, Required(name));
  ARROW_ASSIGN_OR_RAISE(std::string_view bytes, Context(v->AsBytes(), name));
  return std::string(bytes);
}

Result<std::optional<int64_t>> RecordReader::OptLong(const char* name) const {
  const Value* v = Find(name);
  if (v == nullptr) return std::nullopt;
  ARROW_ASSIGN_OR_RAISE(int64_t x, Context(v->AsLong(), name));
  return x;
}

Result<std::optional<int32_t>> RecordReader::OptInt(const char* name) const {
  const Value* v = Find(name);
  if (v == nullptr) return std::nullopt;
  ARROW_ASSIGN_OR_RAISE(int32_t x, Context(v->AsInt(), name));
  return x;
}

Result<std::optional<std::string>> RecordReader::OptBytes(const char* name) const {
  const Value* v = Find(name);
  if (v == nullptr) return std::nullopt;
  ARROW_ASSIGN_OR_RAISE(std::string_view x, Context(v->AsBytes(), name));
  return std::string(x);
}

Result<std::optional<std::vector<std::string>>> RecordReader::OptStrings(const char* name) const {
  const Value* v = Find(name);
  if (v == nullptr) return std::nullopt;
  ARROW_ASSIGN_OR_RAISE(const Value::Array* array, Context(v->AsArray(), name));
  std::vector<std::string> out;
  out.reserve(array->items.size());
  for (const Value& item : array->items) {
    ARROW_ASSIGN_OR_RAISE(std::string_view s, Context(item.AsBytes(), name));
    out.emplace_back(s);
  }
  return out;
}

Result<std::optional<std::vector<int64_t>>> RecordReader::OptLongs(const char* name) const {
  const Value* v = Find(name);
  if (v == nullptr) return std::nullopt;
  ARROW_ASSIGN_OR_RAISE(const Value::Array* array, Context(v->AsArray(), name));
  std::vector<int64_t> out;
  out.reserve(array->items.size());
  for (const Value& item : array->items) {
    ARROW_ASSIGN_OR_RAISE(int64_t x, Context(item.AsLong(), name));
    out.push_back(x);
  }
  return out;
}

Result<RecordReader> RecordReader::Nested(const char* name) const {
  ARROW_ASSIGN_OR_RAISE(const Value* v, Required(name));
  return Make(*v, AsRecordNode(FieldNode(name)), name);
}

Value Opt(const std::optional<int64_t>& v) { return v ? Value(*v) : Value::Null(); }
Value Opt(const std::optional<int32_t>& v) { return v ? Value(*v) : Value::Null(); }
Value Opt(const std::optional<std::string>& v) { return v ? Value(*v) : Value::Null(); }

Value Strings(const std::vector<std::string>& v) {
  Value::Array array;
  for (const auto& s : v) array.items.emplace_back(s);
  return Value(std::move(array));
}

Value Opt(const std::optional<std::vector<std::string>>& v) {
  return v ? Strings(*v) : Value::Null();
}

Value Opt(const std::optional<std::vector<int64_t>>& v) {
  if (!v) return Value::Null();
  Value::Array array;
  for (int64_t x : *v) array.items.emplace_back(x);
  return Value(std::move(array));
}

}  // namespace paimon_rowid::avro
