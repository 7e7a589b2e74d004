#include "paimon_rowid/scan/partition.h"

#include <cctype>
#include <cstdio>

#include "arrow/scalar.h"
#include "arrow/type.h"
#include "paimon_rowid/codec/binary_row.h"
#include "paimon_rowid/fs/file_io.h"

namespace paimon_rowid {
namespace {

bool NeedsEscape(unsigned char c) {
  if (c < 0x20 || c == 0x7F) return true;
  switch (c) {
    case '"':
    case '#':
    case '%':
    case '\'':
    case '*':
    case '/':
    case ':':
    case '=':
    case '?':
    case '\\':
    case '{':
    case '}':
    case '[':
    case ']':
    case '^':
      return true;
    default:
      return false;
  }
}

std::string Escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (NeedsEscape(c)) {
      char buf[4];
      std::snprintf(buf, sizeof(buf), "%%%02X", c);
      out += buf;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

bool IsBlank(const std::string& s) {
  for (unsigned char c : s) {
    if (!std::isspace(c)) return false;
  }
  return true;
}

// Java's legacy rendering of the internal value: DATE as epoch days, BOOLEAN true/false.
std::string JavaValueString(const arrow::Scalar& s) {
  switch (s.type->id()) {
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::BINARY:
      return std::string(static_cast<const arrow::BaseBinaryScalar&>(s).view());
    case arrow::Type::BOOL:
      return static_cast<const arrow::BooleanScalar&>(s).value ? "true" : "false";
    case arrow::Type::DATE32:
      return std::to_string(static_cast<const arrow::Date32Scalar&>(s).value);
    default:
      return s.ToString();
  }
}

// Python's str() of the value pypaimon holds.
std::string PythonValueString(const arrow::Scalar& s) {
  switch (s.type->id()) {
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::BINARY:
      return std::string(static_cast<const arrow::BaseBinaryScalar&>(s).view());
    case arrow::Type::BOOL:
      return static_cast<const arrow::BooleanScalar&>(s).value ? "True" : "False";
    default:
      return s.ToString();  // dates render as YYYY-MM-DD, integers as decimals
  }
}

template <typename Render>
std::string BuildPath(const std::vector<DataField>& fields,
                      const std::vector<std::shared_ptr<arrow::Scalar>>& values,
                      const std::string& default_name, bool escape, Render render) {
  std::string out;
  for (size_t i = 0; i < fields.size() && i < values.size(); ++i) {
    std::string v;
    if (values[i] && values[i]->is_valid) v = render(*values[i]);
    if (!values[i] || !values[i]->is_valid || v.empty() || IsBlank(v)) v = default_name;
    if (!out.empty()) out += "/";
    out += escape ? Escape(fields[i].name) + "=" + Escape(v) : fields[i].name + "=" + v;
  }
  return out;
}

}  // namespace

Result<std::vector<DataField>> PartitionFields(const TableSchema& schema) {
  std::vector<DataField> out;
  for (const auto& key : schema.partition_keys) {
    const DataField* f = schema.FieldByName(key);
    if (f == nullptr) return Status::Invalid("partition key '", key, "' is not a table field");
    out.push_back(*f);
  }
  return out;
}

Result<std::vector<std::shared_ptr<arrow::Scalar>>> DecodePartition(
    const std::string& partition_bytes, const std::vector<DataField>& partition_fields) {
  std::vector<std::shared_ptr<arrow::DataType>> types;
  for (const auto& f : partition_fields) types.push_back(f.type->ToArrow());
  return DecodeBinaryRow(partition_bytes, types);
}

std::string JavaPartitionPath(const std::vector<DataField>& fields,
                              const std::vector<std::shared_ptr<arrow::Scalar>>& values,
                              const std::string& default_name) {
  return BuildPath(fields, values, default_name, /*escape=*/true, JavaValueString);
}

std::string PythonPartitionPath(const std::vector<DataField>& fields,
                                const std::vector<std::shared_ptr<arrow::Scalar>>& values) {
  return BuildPath(fields, values, "__DEFAULT_PARTITION__", /*escape=*/false, PythonValueString);
}

PartitionLocator::PartitionLocator(std::shared_ptr<FileIO> io, std::string data_root,
                                   std::vector<DataField> partition_fields,
                                   std::string default_name)
    : io_(std::move(io)),
      data_root_(std::move(data_root)),
      fields_(std::move(partition_fields)),
      default_name_(std::move(default_name)) {}

Result<std::vector<std::shared_ptr<arrow::Scalar>>> PartitionLocator::Values(
    const std::string& partition_bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = values_.find(partition_bytes);
    if (it != values_.end()) return it->second;
  }
  ARROW_ASSIGN_OR_RAISE(auto values, DecodePartition(partition_bytes, fields_));
  std::lock_guard<std::mutex> lock(mu_);
  values_[partition_bytes] = values;
  return values;
}

Result<std::string> PartitionLocator::BucketDir(const std::string& partition_bytes,
                                                int32_t bucket) {
  auto key = std::make_pair(partition_bytes, bucket);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = dirs_.find(key);
    if (it != dirs_.end()) return it->second;
  }
  std::string bucket_name = "bucket-" + std::to_string(bucket);
  std::string dir;
  if (fields_.empty()) {
    dir = JoinPath(data_root_, bucket_name);
  } else {
    ARROW_ASSIGN_OR_RAISE(auto values, Values(partition_bytes));
    std::string java = JoinPath(
        JoinPath(data_root_, JavaPartitionPath(fields_, values, default_name_)), bucket_name);
    dir = java;
    ARROW_ASSIGN_OR_RAISE(bool java_exists, io_->IsDirectory(java));
    if (!java_exists) {
      std::string py =
          JoinPath(JoinPath(data_root_, PythonPartitionPath(fields_, values)), bucket_name);
      ARROW_ASSIGN_OR_RAISE(bool py_exists, io_->IsDirectory(py));
      if (py_exists) dir = py;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  dirs_[key] = dir;
  return dir;
}

}  // namespace paimon_rowid
