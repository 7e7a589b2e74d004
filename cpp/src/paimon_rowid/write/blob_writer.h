// Writes the values of one BLOB field into rolling `.blob` files (format doc §6.2) for the
// append writer: one BlobFieldWriter per (partition, blob field).
//
// A file rolls once its entry bytes reach `blob.target-file-size`. The append writer calls
// Flush() whenever its normal (Parquet) file closes, so the blob files that follow a normal
// file in the commit message cover exactly its rows and inherit its row ids (§4.3).
//
// Input values that are serialized BlobDescriptors (§6.3 detection rule) are references: the
// referenced byte range is copied into the .blob file in chunks, as pypaimon does. Only local
// paths (`/abs`, `file:/abs`, `file:///abs`) can be resolved.
//
// Thread-compatible: one thread at a time.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "arrow/array.h"
#include "paimon_rowid/codec/blob_file.h"
#include "paimon_rowid/fs/file_io.h"
#include "paimon_rowid/meta/manifest.h"

namespace paimon_rowid {

class BlobFieldWriter {
 public:
  /// `new_name` returns a fresh file name (e.g. "data-<uuid>-7.blob"); every created path
  /// is appended to `*created` (for cleanup) before anything is written to it.
  BlobFieldWriter(std::shared_ptr<FileIO> io, std::string dir, std::string field_name,
                  int64_t schema_id, int64_t target_file_size,
                  std::function<std::string()> new_name, std::vector<std::string>* created);
  ~BlobFieldWriter();

  /// Appends the values (large_binary; nulls are NULL rows).
  Status Append(const arrow::Array& values);
  /// Closes the open file, if any, and moves the metadata of every file closed since the
  /// last call into `*out` (rolling order).
  Status Flush(std::vector<DataFileMeta>* out);
  /// Closes the open file without producing metadata (abort path).
  void Discard();

 private:
  Status AppendValue(std::string_view bytes);
  Status CopyDescriptor(const BlobDescriptor& descriptor);
  Status CloseFile();

  std::shared_ptr<FileIO> io_;
  std::string dir_;
  std::string field_name_;
  int64_t schema_id_;
  int64_t target_file_size_;
  std::function<std::string()> new_name_;
  std::vector<std::string>* created_;

  std::unique_ptr<BlobFileWriter> current_;
  std::string current_name_;
  std::string current_path_;
  std::vector<DataFileMeta> done_;
};

/// "file:///a/b" / "file:/a/b" -> "/a/b"; a plain path is returned unchanged; other schemes
/// are NotImplemented.
Result<std::string> LocalPathOfUri(const std::string& uri);

}  // namespace paimon_rowid
