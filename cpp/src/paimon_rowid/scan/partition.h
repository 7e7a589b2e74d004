// Partition values and partition directories (docs/format.md §1.3).
//
// Values always come from the manifest's _PARTITION BinaryRow, never from directory names.
// Directories must still be rebuilt to find files, and writers disagree: Java escapes
// special characters and renders the internal value (DATE as epoch days), pypaimon uses
// Python's str() unescaped. Both agree on strings and integers made of safe characters.
// PartitionLocator rebuilds Java's path and falls back to pypaimon's when Java's directory
// does not exist, so tables written by either engine read.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "arrow/type_fwd.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/types/table_schema.h"

namespace paimon_rowid {

class FileIO;

/// Partition key fields of `schema` in key order (Invalid if a key is not a field).
Result<std::vector<DataField>> PartitionFields(const TableSchema& schema);

/// Decodes a serialized partition BinaryRow into one scalar per partition key.
Result<std::vector<std::shared_ptr<arrow::Scalar>>> DecodePartition(
    const std::string& partition_bytes, const std::vector<DataField>& partition_fields);

/// Java's "k1=v1/k2=v2" (escaped, legacy rendering); "" for an unpartitioned table.
std::string JavaPartitionPath(const std::vector<DataField>& fields,
                              const std::vector<std::shared_ptr<arrow::Scalar>>& values,
                              const std::string& default_name);
/// pypaimon's unescaped str()-based path.
std::string PythonPartitionPath(const std::vector<DataField>& fields,
                                const std::vector<std::shared_ptr<arrow::Scalar>>& values);

/// Maps serialized partitions to their bucket directories, probing the filesystem once per
/// partition. Thread-safe.
class PartitionLocator {
 public:
  PartitionLocator(std::shared_ptr<FileIO> io, std::string data_root,
                   std::vector<DataField> partition_fields, std::string default_name);

  /// Directory holding the data files of (partition, bucket).
  Result<std::string> BucketDir(const std::string& partition_bytes, int32_t bucket);
  /// Decoded partition values (cached).
  Result<std::vector<std::shared_ptr<arrow::Scalar>>> Values(const std::string& partition_bytes);
  const std::vector<DataField>& fields() const { return fields_; }

 private:
  std::shared_ptr<FileIO> io_;
  std::string data_root_;  // Table::DataRoot()
  std::vector<DataField> fields_;
  std::string default_name_;
  std::mutex mu_;
  std::map<std::pair<std::string, int32_t>, std::string> dirs_;
  std::map<std::string, std::vector<std::shared_ptr<arrow::Scalar>>> values_;
};

}  // namespace paimon_rowid
