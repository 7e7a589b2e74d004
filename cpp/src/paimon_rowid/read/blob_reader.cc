#include "paimon_rowid/read/blob_reader.h"

#include <algorithm>
#include <cstring>

#include "arrow/builder.h"
#include "paimon_rowid/codec/blob_file.h"

namespace paimon_rowid {
namespace {

// Requested entries closer than this are fetched with one read (the gap is read and dropped).
constexpr int64_t kMaxCoalesceGap = 4 * 1024;
// A coalesced read never grows beyond this (a single larger payload is read alone).
constexpr int64_t kMaxCoalescedRead = 16LL << 20;

struct OpenBlobFile {
  const BlobBunchFile* source = nullptr;
  std::shared_ptr<arrow::io::RandomAccessFile> input;
  std::shared_ptr<const BlobFileIndex> index;
};

struct Resolved {
  int file = -1;  // index into the open files; -1 = null
  BlobEntry entry;
};

}  // namespace

Result<std::shared_ptr<arrow::Array>> ReadBlobBunch(const FileIO& io,
                                                    std::vector<BlobBunchFile> files,
                                                    const std::vector<int64_t>& row_ids,
                                                    bool as_descriptor) {
  // Newest first; within one sequence number by first row id (format doc §5.3 step 2).
  std::stable_sort(files.begin(), files.end(), [](const BlobBunchFile& a, const BlobBunchFile& b) {
    if (a.meta->max_sequence_number != b.meta->max_sequence_number) {
      return a.meta->max_sequence_number > b.meta->max_sequence_number;
    }
    return *a.meta->first_row_id < *b.meta->first_row_id;
  });
  // Levels: runs of files with one max sequence number.
  std::vector<std::pair<size_t, size_t>> levels;  // [begin, end) into files
  for (size_t i = 0; i < files.size(); ++i) {
    if (i == 0 || files[i].meta->max_sequence_number != files[i - 1].meta->max_sequence_number) {
      levels.push_back({i, i});
    }
    levels.back().second = i + 1;
  }

  std::vector<OpenBlobFile> open(files.size());
  auto index_of = [&](size_t f) -> Result<const BlobFileIndex*> {
    OpenBlobFile& o = open[f];
    if (!o.index) {
      o.source = &files[f];
      ARROW_ASSIGN_OR_RAISE(o.input, io.OpenInput(files[f].path));
      ARROW_ASSIGN_OR_RAISE(int64_t size, o.input->GetSize());
      ARROW_ASSIGN_OR_RAISE(o.index, BlobFileIndex::Read(o.input.get(), size, files[f].path));
      if (o.index->num_rows() != files[f].meta->row_count) {
        return Status::IOError("blob file '", files[f].path, "' holds ", o.index->num_rows(),
                               " rows but its manifest entry says ", files[f].meta->row_count);
      }
    }
    return o.index.get();
  };

  // Resolve every row id to (file, entry) or null.
  std::vector<Resolved> resolved(row_ids.size());
  for (size_t r = 0; r < row_ids.size(); ++r) {
    const int64_t id = row_ids[r];
    for (const auto& [begin, end] : levels) {
      // Last file of the level starting at or before `id`.
      auto it = std::upper_bound(files.begin() + begin, files.begin() + end, id,
                                 [](int64_t v, const BlobBunchFile& f) {
                                   return v < *f.meta->first_row_id;
                                 });
      if (it == files.begin() + begin) continue;
      const size_t f = static_cast<size_t>(it - files.begin()) - 1;
      if (id > files[f].meta->last_row_id()) continue;  // not covered: a placeholder
      ARROW_ASSIGN_OR_RAISE(const BlobFileIndex* index, index_of(f));
      BlobEntry e = index->entry(id - *files[f].meta->first_row_id);
      if (e.kind == BlobEntry::Kind::kPlaceholder) continue;
      if (e.kind == BlobEntry::Kind::kValue) resolved[r] = {static_cast<int>(f), e};
      break;
    }
  }

  arrow::LargeBinaryBuilder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(static_cast<int64_t>(row_ids.size())));
  if (as_descriptor) {
    for (const auto& r : resolved) {
      if (r.file < 0) {
        ARROW_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      BlobDescriptor d{files[r.file].path, r.entry.payload_offset, r.entry.payload_length};
      ARROW_RETURN_NOT_OK(builder.Append(d.Serialize()));
    }
    std::shared_ptr<arrow::Array> out;
    ARROW_RETURN_NOT_OK(builder.Finish(&out));
    return out;
  }

  // Plan coalesced reads. Rows ascend, so within one file the entries ascend too; a read
  // covers consecutive requested rows of one file.
  struct Read {
    int file;
    int64_t offset;
    int64_t length;
    std::shared_ptr<arrow::Buffer> data;
  };
  std::vector<Read> reads;
  std::vector<int> read_of(resolved.size(), -1);
  int64_t total = 0;
  for (size_t r = 0; r < resolved.size(); ++r) {
    const Resolved& v = resolved[r];
    if (v.file < 0) continue;
    total += v.entry.payload_length;
    const int64_t start = v.entry.payload_offset;
    const int64_t end = start + v.entry.payload_length;
    if (!reads.empty()) {
      Read& last = reads.back();
      const int64_t last_end = last.offset + last.length;
      if (last.file == v.file && start >= last_end && start - last_end <= kMaxCoalesceGap &&
          end - last.offset <= kMaxCoalescedRead) {
        last.length = end - last.offset;
        read_of[r] = static_cast<int>(reads.size()) - 1;
        continue;
      }
    }
    reads.push_back({v.file, start, v.entry.payload_length, nullptr});
    read_of[r] = static_cast<int>(reads.size()) - 1;
  }
  for (Read& read : reads) {
    if (read.length == 0) continue;
    ARROW_ASSIGN_OR_RAISE(read.data, open[read.file].input->ReadAt(read.offset, read.length));
    if (read.data->size() != read.length) {
      return Status::IOError("blob file '", files[read.file].path, "' is truncated: wanted ",
                             read.length, " bytes at ", read.offset, ", got ",
                             read.data->size());
    }
  }
  ARROW_RETURN_NOT_OK(builder.ReserveData(total));
  for (size_t r = 0; r < resolved.size(); ++r) {
    const Resolved& v = resolved[r];
    if (v.file < 0) {
      builder.UnsafeAppendNull();
      continue;
    }
    const Read& read = reads[read_of[r]];
    static const uint8_t kEmpty = 0;
    const uint8_t* bytes =
        v.entry.payload_length == 0
            ? &kEmpty
            : read.data->data() + (v.entry.payload_offset - read.offset);
    builder.UnsafeAppend(bytes, v.entry.payload_length);
  }
  std::shared_ptr<arrow::Array> out;
  ARROW_RETURN_NOT_OK(builder.Finish(&out));
  return out;
}

}  // namespace paimon_rowid
