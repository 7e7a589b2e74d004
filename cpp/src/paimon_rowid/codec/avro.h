// Avro object container files (the manifest format, docs/format.md §3.1).
//
// The reader decodes with the writer schema found in the file header and exposes records
// generically; consumers look fields up by name (FieldIndex once per file, then by index),
// so files with extra fields or without optional fields read fine. Codecs: null, deflate,
// snappy, zstandard (compression through Arrow's codecs). Unions are resolved to their
// branch value; a null branch yields a null AvroValue.
//
// The writer takes a schema JSON string and values shaped like the schema (a union field
// takes either a null value or the value of its non-null branch).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "arrow/buffer.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid::avro {

/// A node of a parsed Avro schema.
struct Node {
  enum class Kind {
    kNull,
    kBoolean,
    kInt,
    kLong,
    kFloat,
    kDouble,
    kBytes,
    kString,
    kRecord,
    kEnum,
    kArray,
    kMap,
    kUnion,
    kFixed
  };
  Kind kind = Kind::kNull;
  std::string name;                             // record/enum/fixed full name
  std::string logical_type;                     // e.g. "timestamp-millis"
  std::vector<std::string> field_names;         // record
  std::vector<std::shared_ptr<Node>> children;  // record fields, union branches,
                                                // array items / map values (one)
  std::vector<std::string> symbols;             // enum
  int32_t fixed_size = 0;                       // fixed

  /// Index of the record field `name`, or -1.
  int FieldIndex(std::string_view field) const;
};
using NodePtr = std::shared_ptr<const Node>;

/// Parses an Avro schema JSON document (named types may be referenced by name).
Result<NodePtr> ParseSchema(std::string_view json);

/// A decoded value. Records and arrays hold their children; maps are key/value pairs.
class Value {
 public:
  struct Record {
    std::vector<Value> fields;
  };
  struct Array {
    std::vector<Value> items;
  };
  struct MapValue {
    std::vector<std::pair<std::string, Value>> entries;
  };
  using Storage = std::variant<std::monostate, bool, int32_t, int64_t, float, double, std::string,
                               Record, Array, MapValue>;

  Value() = default;
  Value(bool v) : storage_(v) {}                    // NOLINT
  Value(int32_t v) : storage_(v) {}                 // NOLINT (int, enum index)
  Value(int64_t v) : storage_(v) {}                 // NOLINT
  Value(float v) : storage_(v) {}                   // NOLINT
  Value(double v) : storage_(v) {}                  // NOLINT
  Value(std::string v) : storage_(std::move(v)) {}  // NOLINT (bytes, string, fixed)
  // Without these a string literal would silently convert to bool.
  Value(const char* v) : storage_(std::string(v)) {}       // NOLINT
  Value(std::string_view v) : storage_(std::string(v)) {}  // NOLINT
  Value(Record v) : storage_(std::move(v)) {}              // NOLINT
  Value(Array v) : storage_(std::move(v)) {}               // NOLINT
  Value(MapValue v) : storage_(std::move(v)) {}            // NOLINT
  static Value Null() { return Value(); }

  bool is_null() const { return std::holds_alternative<std::monostate>(storage_); }
  const Storage& storage() const { return storage_; }

  // Typed accessors: TypeError when the value has another type (null included), so a
  // corrupt or unexpected file reports an error instead of crashing.
  Result<bool> AsBool() const;
  Result<int32_t> AsInt() const;
  Result<int64_t> AsLong() const;  // also accepts an int
  Result<double> AsDouble() const;
  Result<std::string_view> AsBytes() const;  // bytes, string or fixed
  Result<const Record*> AsRecord() const;
  Result<const Array*> AsArray() const;
  Result<const MapValue*> AsMap() const;

 private:
  Storage storage_;
};

/// Reads a whole container file held in memory.
class FileReader {
 public:
  static Result<std::unique_ptr<FileReader>> Open(std::shared_ptr<arrow::Buffer> data);
  ~FileReader();

  const NodePtr& schema() const;
  const std::map<std::string, std::string>& metadata() const;
  const std::string& codec() const;
  /// Decodes the next record into *out. Returns false at the end of the file.
  Result<bool> Next(Value* out);
  /// All remaining records.
  Result<std::vector<Value>> ReadAll();

 private:
  FileReader();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Writes a container file into memory.
class FileWriter {
 public:
  /// `codec` is one of "null", "deflate", "snappy", "zstandard"; `level` applies to
  /// deflate and zstandard (<= 0: codec default).
  static Result<std::unique_ptr<FileWriter>> Make(std::string_view schema_json, std::string codec,
                                                  int level = 1);
  ~FileWriter();

  Status Append(const Value& record);
  /// Flushes the last block and returns the whole file.
  Result<std::shared_ptr<arrow::Buffer>> Finish();

 private:
  FileWriter();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace paimon_rowid::avro
