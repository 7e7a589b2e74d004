// Records of an Avro container read and written field by field: the layer between the
// generic Value tree (avro.h) and a format's own structs (meta/manifest.cc).
//
// RecordReader looks fields up by name in the writer schema, so files with extra fields or
// without optional ones read fine; a missing field and a null one read the same (as
// missing). Every error names the record kind and the field ("manifest field _FILE_SIZE:
// ..."), so a corrupt file says where it is corrupt.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "paimon_rowid/codec/avro.h"

namespace paimon_rowid::avro {

/// The record node behind a field type, looking through a ["null", record] union; nullptr
/// when there is none.
const Node* AsRecordNode(const Node* node);
/// The record node of an array's items, looking through a ["null", array] union; nullptr
/// when the items are not records.
const Node* ArrayItemRecordNode(const Node* node);

/// A decoded record plus its schema node. Holds pointers into both: they must outlive it.
class RecordReader {
 public:
  /// Invalid when `node` is not a record or `value` does not have its shape. `what` names
  /// the record in errors and must outlive the reader (a string literal).
  static Result<RecordReader> Make(const Value& value, const Node* node, const char* what);

  /// The field's value, or nullptr when the field is absent or null.
  const Value* Find(const char* name) const;
  /// The field's schema node, or nullptr when the schema has no such field.
  const Node* FieldNode(const char* name) const;
  const char* what() const { return what_; }

  Result<const Value*> Required(const char* name) const;
  Result<int64_t> Long(const char* name) const;  // an int field reads too
  Result<int32_t> Int(const char* name) const;
  Result<std::string> Bytes(const char* name) const;  // bytes, string or fixed
  Result<std::optional<int64_t>> OptLong(const char* name) const;
  Result<std::optional<int32_t>> OptInt(const char* name) const;
  Result<std::optional<std::string>> OptBytes(const char* name) const;
  Result<std::optional<std::vector<std::string>>> OptStrings(const char* name) const;
  Result<std::optional<std::vector<int64_t>>> OptLongs(const char* name) const;
  /// The record held by a (possibly nullable) record field; the field must be present.
  Result<RecordReader> Nested(const char* name) const;

 private:
  RecordReader(const Value::Record* record, const Node* node, const char* what)
      : record_(record), node_(node), what_(what) {}

  // Prefixes an accessor's error with the record kind and the field name.
  template <typename T>
  Result<T> Context(Result<T> r, const char* name) const {
    if (!r.ok()) return r.status().WithMessage(what_, " field ", name, ": ", r.status().message());
    return r;
  }

  const Value::Record* record_;
  const Node* node_;
  const char* what_;
};

/// Opens a container held in memory and returns decode(reader) for each top-level record.
template <typename T, typename Fn>
Result<std::vector<T>> DecodeRecords(std::shared_ptr<arrow::Buffer> data, const char* what,
                                     Fn&& decode) {
  ARROW_ASSIGN_OR_RAISE(auto reader, FileReader::Open(std::move(data)));
  const Node* node = AsRecordNode(reader->schema().get());
  std::vector<T> out;
  Value value;
  while (true) {
    ARROW_ASSIGN_OR_RAISE(bool more, reader->Next(&value));
    if (!more) break;
    ARROW_ASSIGN_OR_RAISE(RecordReader r, RecordReader::Make(value, node, what));
    ARROW_ASSIGN_OR_RAISE(T item, decode(r));
    out.push_back(std::move(item));
  }
  return out;
}

/// A container of encode(item) for each item, written with `schema_json`.
template <typename T, typename Fn>
Result<std::shared_ptr<arrow::Buffer>> EncodeRecords(const std::string& schema_json,
                                                     const std::vector<T>& items,
                                                     const std::string& codec, int level,
                                                     Fn&& encode) {
  ARROW_ASSIGN_OR_RAISE(auto writer, FileWriter::Make(schema_json, codec, level));
  for (const T& item : items) ARROW_RETURN_NOT_OK(writer->Append(encode(item)));
  return writer->Finish();
}

// Values for nullable fields: null when absent.
Value Opt(const std::optional<int64_t>& v);
Value Opt(const std::optional<int32_t>& v);
Value Opt(const std::optional<std::string>& v);
Value Opt(const std::optional<std::vector<std::string>>& v);
Value Opt(const std::optional<std::vector<int64_t>>& v);
/// An array of strings (or bytes).
Value Strings(const std::vector<std::string>& v);

}  // namespace paimon_rowid::avro
