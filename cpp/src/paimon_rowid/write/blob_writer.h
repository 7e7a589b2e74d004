// Writes the values of one BLOB field into rolling `.blob` files (docs/format.md §6.2) for the
// append writer: one BlobFieldWriter per (partition, blob field).
//
// A file rolls once its entry bytes reach `blob.target-file-size`. The append writer calls
// Flush() whenever its normal (Parquet) file closes, so the blob files that follow a normal
// file in the commit message cover exactly its rows and inherit its row ids (§4.3).
//
// The field is a BLOB (one payload per row), an ARRAY<BLOB> or a MAP<K, BLOB> (one structured
// payload per row, codec/blob_file_nested.h). Input arrives in the table's Arrow types:
// large_binary, list<large_binary>, map<K, large_binary>. Input values (BLOB values, array
// elements, map values) that are serialized BlobDescriptors (§6.3 detection rule) are
// references: the referenced byte range is copied into the .blob file in chunks, as pypaimon
// does. Only local paths (`/abs`, `file:/abs`, `file:///abs`) can be resolved.
//
// Errors (the append writer then deletes every file it wrote): Invalid for a null element or
// value where the element / value type is NOT NULL, a duplicate map key, or a key that cannot
// be serialized; TypeError for input of another Arrow type.
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
#include "paimon_rowid/types/data_type.h"

namespace paimon_rowid {

class BlobFieldWriter {
 public:
  /// `new_name` returns a fresh file name (e.g. "data-<uuid>-7.blob"); every created path
  /// is appended to `*created` (for cleanup) before anything is written to it. A file is
  /// created only where none exists (FileIO::OpenOutput), unless `job_owned_names`: then the
  /// names belong to one job whose retried task may find its earlier attempt's file there,
  /// which is replaced (AppendWriter::kFileStemOption).
  /// REQUIRES: type->holds_blob().
  BlobFieldWriter(std::shared_ptr<FileIO> io, std::string dir, std::string field_name,
                  DataTypePtr type, int64_t schema_id, int64_t target_file_size,
                  std::function<std::string()> new_name, std::vector<std::string>* created,
                  bool job_owned_names);
  ~BlobFieldWriter();

  /// Appends the values (the field's Arrow type; nulls are NULL rows).
  Status Append(const arrow::Array& values);
  /// Closes the open file, if any, and moves the metadata of every file closed since the
  /// last call into `*out` (rolling order).
  Status Flush(std::vector<DataFileMeta>* out);
  /// Closes the open file without producing metadata (abort path).
  void Discard();

 private:
  Status OpenFileIfNeeded();
  Status AppendValue(std::string_view bytes);
  Status AppendArray(const arrow::ListArray& rows, int64_t row);
  Status AppendMap(const arrow::MapArray& rows, int64_t row);
  /// Streams `bytes` (or, for descriptor bytes, the referenced range) into the open value;
  /// returns the number of payload bytes written.
  Result<int64_t> StreamElement(std::string_view bytes);
  Status CloseFile();

  std::shared_ptr<FileIO> io_;
  std::string dir_;
  std::string field_name_;
  DataTypePtr type_;
  int64_t schema_id_;
  int64_t target_file_size_;
  std::function<std::string()> new_name_;
  std::vector<std::string>* created_;
  bool job_owned_names_;

  std::unique_ptr<BlobFileWriter> current_;
  std::string current_name_;
  std::string current_path_;
  std::vector<DataFileMeta> done_;
};

}  // namespace paimon_rowid
