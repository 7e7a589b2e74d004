#include "paimon_rowid/read/blob_reader.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "arrow/array.h"
#include "arrow/builder.h"
#include "arrow/util/bit_util.h"
#include "paimon_rowid/codec/blob_file.h"
#include "paimon_rowid/codec/blob_file_nested.h"
#include "paimon_rowid/common/huge_pages.h"
#include "paimon_rowid/exec/executor.h"
#include "paimon_rowid/format/object_store_input.h"

namespace paimon_rowid {
namespace {

// Requested entries closer than this are fetched with one read (the gap is read and dropped).
constexpr int64_t kMaxCoalesceGap = 4 * 1024;
// A coalesced read of an object never grows beyond this (a single larger payload is read alone).
constexpr int64_t kMaxCoalescedRead = 16LL << 20;
// The same for a local file: small enough to stay in the CPU's cache between the kernel's copy
// and ours.
constexpr int64_t kMaxLocalRead = 512 * 1024;
// Payload bytes per parallel slice of a large BLOB column.
constexpr int64_t kPayloadSliceBytes = 8LL << 20;

struct OpenBlobFile {
  const BlobBunchFile* source = nullptr;
  std::shared_ptr<arrow::io::RandomAccessFile> input;
  std::shared_ptr<const BlobFileIndex> index;
};

struct Resolved {
  int file = -1;  // index into the open files; -1 = null
  int64_t row_id = -1;
  BlobEntry entry;
};

// The payload bytes of the resolved rows, in row order, fetched with coalesced ranged reads and
// verified. Rows ascend, so within one file the entries ascend too; a read covers consecutive
// requested rows of one file. Each row's whole entry (magic, payload, length, crc: 16 bytes
// more than the payload, and adjacent entries touch) is read so that its CRC can be checked
// before the payload is handed out. Reads land in a reused scratch buffer, so the memory held
// besides the output is one read per thread, not the batch's raw bytes. On a local file a
// read stays small enough to be served from the CPU's cache when its payloads are copied out;
// on an object store reads are large (each costs a request) and fetched ahead.
struct PayloadReads {
  struct Read {
    int file;
    int64_t offset;
    int64_t length;
    size_t first_row;  // the rows [first_row, end_row) of `resolved` it covers (nulls skipped)
    size_t end_row;
  };
  std::vector<Read> reads;
  std::vector<int> read_of;  // per resolved row: its read, -1 for nulls
  int64_t total = 0;         // payload bytes of all non-null rows
};

Result<PayloadReads> PlanPayloadReads(const std::vector<OpenBlobFile>& open,
                                      const std::vector<Resolved>& resolved) {
  PayloadReads plan;
  plan.read_of.assign(resolved.size(), -1);
  for (size_t r = 0; r < resolved.size(); ++r) {
    const Resolved& v = resolved[r];
    if (v.file < 0) continue;
    plan.total += v.entry.payload_length;
    const int64_t start = v.entry.entry_offset();
    const int64_t end = start + v.entry.entry_length();
    if (!plan.reads.empty()) {
      PayloadReads::Read& last = plan.reads.back();
      const int64_t last_end = last.offset + last.length;
      const int64_t max_read = format_internal::IsPrefetching(open[v.file].input.get())
                                   ? kMaxCoalescedRead
                                   : kMaxLocalRead;
      if (last.file == v.file && start >= last_end && start - last_end <= kMaxCoalesceGap &&
          end - last.offset <= max_read) {
        last.length = end - last.offset;
        last.end_row = r + 1;
        plan.read_of[r] = static_cast<int>(plan.reads.size()) - 1;
        continue;
      }
    }
    plan.reads.push_back({v.file, start, end - start, r, r + 1});
    plan.read_of[r] = static_cast<int>(plan.reads.size()) - 1;
  }
  // On an object store the reads of each file are fetched concurrently, neighbours merged.
  std::map<int, std::vector<arrow::io::ReadRange>> by_file;
  for (const auto& read : plan.reads) by_file[read.file].push_back({read.offset, read.length});
  for (const auto& [file, ranges] : by_file) {
    if (ranges.size() > 1) {
      ARROW_RETURN_NOT_OK(format_internal::Prefetch(open[file].input.get(), ranges));
    }
  }
  return plan;
}

// Fetches `read` into `scratch` (allocated or grown as needed).
Status LoadRead(const std::vector<OpenBlobFile>& open, const std::vector<BlobBunchFile>& files,
                const PayloadReads::Read& read, arrow::MemoryPool* pool,
                std::unique_ptr<arrow::ResizableBuffer>* scratch) {
  if (!*scratch) {
    ARROW_ASSIGN_OR_RAISE(*scratch, arrow::AllocateResizableBuffer(read.length, pool));
  } else if ((*scratch)->size() < read.length) {
    ARROW_RETURN_NOT_OK((*scratch)->Resize(read.length, /*shrink_to_fit=*/false));
  }
  ARROW_ASSIGN_OR_RAISE(int64_t got, open[read.file].input->ReadAt(read.offset, read.length,
                                                                   (*scratch)->mutable_data()));
  if (got != read.length) {
    return Status::IOError("blob file '", files[read.file].path, "' is truncated: wanted ",
                           read.length, " bytes at ", read.offset, ", got ", got);
  }
  return Status::OK();
}

// The verified payload of resolved row `v` inside its loaded read.
Result<std::string_view> VerifiedPayload(const std::vector<BlobBunchFile>& files, const Resolved& v,
                                         const PayloadReads::Read& read,
                                         const arrow::Buffer& scratch) {
  const std::string_view entry(
      reinterpret_cast<const char*>(scratch.data()) + (v.entry.entry_offset() - read.offset),
      static_cast<size_t>(v.entry.entry_length()));
  ARROW_RETURN_NOT_OK(VerifyBlobEntry(entry, files[v.file].path, v.entry.entry_offset(), v.row_id,
                                      v.row_id - *files[v.file].meta->first_row_id));
  return entry.substr(4, static_cast<size_t>(v.entry.payload_length));
}

// Row-by-row access to the payloads (nested BLOB columns), one read loaded at a time.
class PayloadCursor {
 public:
  PayloadCursor(const std::vector<OpenBlobFile>& open, const std::vector<BlobBunchFile>& files,
                const std::vector<Resolved>& resolved, arrow::MemoryPool* pool)
      : open_(open), files_(files), resolved_(resolved), pool_(pool) {}

  /// Plans the reads (and starts fetching them on an object store).
  Status Plan() {
    ARROW_ASSIGN_OR_RAISE(plan_, PlanPayloadReads(open_, resolved_));
    return Status::OK();
  }

  /// The verified payload of non-null row `r`, valid until the next call. Rows are asked in
  /// ascending order.
  Result<std::string_view> Payload(size_t r) {
    const int k = plan_.read_of[r];
    if (k != loaded_) {
      ARROW_RETURN_NOT_OK(LoadRead(open_, files_, plan_.reads[k], pool_, &scratch_));
      loaded_ = k;
    }
    return VerifiedPayload(files_, resolved_[r], plan_.reads[k], *scratch_);
  }

 private:
  const std::vector<OpenBlobFile>& open_;
  const std::vector<BlobBunchFile>& files_;
  const std::vector<Resolved>& resolved_;
  arrow::MemoryPool* pool_;
  PayloadReads plan_;
  std::unique_ptr<arrow::ResizableBuffer> scratch_;
  int loaded_ = -1;
};

Result<std::shared_ptr<arrow::Array>> BuildDescriptors(const std::vector<BlobBunchFile>& files,
                                                       const std::vector<Resolved>& resolved,
                                                       arrow::MemoryPool* pool) {
  arrow::LargeBinaryBuilder builder(pool);
  ARROW_RETURN_NOT_OK(builder.Reserve(static_cast<int64_t>(resolved.size())));
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

// A BLOB column's payloads as one LargeBinary array. The offsets follow from the entries'
// lengths, so the output is allocated once and slices of consecutive reads fill disjoint parts
// of it, in parallel on the executor when the batch is large (copying payloads into fresh
// memory is bound by page faults and memory bandwidth, which one core does not saturate).
Result<std::shared_ptr<arrow::Array>> BuildPayloads(const std::vector<OpenBlobFile>& open,
                                                    const std::vector<BlobBunchFile>& files,
                                                    const std::vector<Resolved>& resolved,
                                                    arrow::MemoryPool* pool) {
  ARROW_ASSIGN_OR_RAISE(PayloadReads plan, PlanPayloadReads(open, resolved));
  const int64_t n = static_cast<int64_t>(resolved.size());
  ARROW_ASSIGN_OR_RAISE(
      auto offsets_buffer,
      arrow::AllocateBuffer((n + 1) * static_cast<int64_t>(sizeof(int64_t)), pool));
  auto* offsets = reinterpret_cast<int64_t*>(offsets_buffer->mutable_data());
  std::shared_ptr<arrow::Buffer> validity;
  int64_t nulls = 0;
  for (const auto& v : resolved) nulls += v.file < 0 ? 1 : 0;
  if (nulls > 0) {
    ARROW_ASSIGN_OR_RAISE(validity, arrow::AllocateEmptyBitmap(n, pool));
  }
  int64_t at = 0;
  for (int64_t r = 0; r < n; ++r) {
    offsets[r] = at;
    if (resolved[r].file < 0) continue;
    if (validity) arrow::bit_util::SetBit(validity->mutable_data(), r);
    at += resolved[r].entry.payload_length;
  }
  offsets[n] = at;
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> data, arrow::AllocateBuffer(at, pool));
  uint8_t* out = data->mutable_data();
  AdviseHugePages(out, at);  // filled at memory speed: page faults would cost more than copying

  // Slices of consecutive reads of about kPayloadSliceBytes each.
  std::vector<size_t> slice_begin;
  int64_t slice_bytes = 0;
  for (size_t k = 0; k < plan.reads.size(); ++k) {
    if (k == 0 || slice_bytes >= kPayloadSliceBytes) {
      slice_begin.push_back(k);
      slice_bytes = 0;
    }
    slice_bytes += plan.reads[k].length;
  }
  slice_begin.push_back(plan.reads.size());
  const int64_t slices = static_cast<int64_t>(slice_begin.size()) - 1;
  ARROW_RETURN_NOT_OK(Executor::Default()->ParallelFor(
      slices, /*threads=*/slices > 1 ? 0 : 1, [&](int64_t s) -> Status {
        std::unique_ptr<arrow::ResizableBuffer> scratch;
        for (size_t k = slice_begin[s]; k < slice_begin[s + 1]; ++k) {
          const PayloadReads::Read& read = plan.reads[k];
          ARROW_RETURN_NOT_OK(LoadRead(open, files, read, pool, &scratch));
          for (size_t r = read.first_row; r < read.end_row; ++r) {
            if (resolved[r].file < 0) continue;
            ARROW_ASSIGN_OR_RAISE(std::string_view payload,
                                  VerifiedPayload(files, resolved[r], read, *scratch));
            if (!payload.empty()) std::memcpy(out + offsets[r], payload.data(), payload.size());
          }
        }
        return Status::OK();
      }));
  return std::make_shared<arrow::LargeBinaryArray>(n, std::move(offsets_buffer), std::move(data),
                                                   std::move(validity), nulls);
}

Result<std::shared_ptr<arrow::Array>> BuildScalar(const std::vector<OpenBlobFile>& open,
                                                  const std::vector<BlobBunchFile>& files,
                                                  const std::vector<Resolved>& resolved,
                                                  bool as_descriptor, arrow::MemoryPool* pool) {
  if (as_descriptor) return BuildDescriptors(files, resolved, pool);
  return BuildPayloads(open, files, resolved, pool);
}

// ARRAY<BLOB> / MAP<K, BLOB>: each row's payload framing is parsed (from the fetched payload,
// or in descriptor mode by small ranged reads of its header, indexes and keys only) and its
// elements appended as payload bytes or as descriptors of their byte ranges.
Result<std::shared_ptr<arrow::Array>> BuildNested(const std::vector<OpenBlobFile>& open,
                                                  const std::vector<BlobBunchFile>& files,
                                                  const std::vector<Resolved>& resolved,
                                                  const DataType& type, bool as_descriptor,
                                                  arrow::MemoryPool* pool) {
  const bool is_map = type.root() == TypeRoot::kMap;
  std::unique_ptr<arrow::ArrayBuilder> builder;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(pool, type.ToArrow(), &builder));
  arrow::ArrayBuilder* key_builder = nullptr;
  arrow::LargeBinaryBuilder* value_builder;
  if (is_map) {
    auto* map = static_cast<arrow::MapBuilder*>(builder.get());
    key_builder = map->key_builder();
    value_builder = static_cast<arrow::LargeBinaryBuilder*>(map->item_builder());
  } else {
    value_builder = static_cast<arrow::LargeBinaryBuilder*>(
        static_cast<arrow::ListBuilder*>(builder.get())->value_builder());
  }
  const int64_t key_width = is_map ? MapBlobKeyFixedWidth(*type.key()->ToArrow()) : 0;
  PayloadCursor payloads(open, files, resolved, pool);
  if (!as_descriptor) ARROW_RETURN_NOT_OK(payloads.Plan());
  for (size_t r = 0; r < resolved.size(); ++r) {
    const Resolved& v = resolved[r];
    if (v.file < 0) {
      ARROW_RETURN_NOT_OK(builder->AppendNull());
      continue;
    }
    std::string_view payload;
    if (!as_descriptor) {
      ARROW_ASSIGN_OR_RAISE(payload, payloads.Payload(r));
    }
    const std::string& path = files[v.file].path;
    const std::string what =
        "blob file '" + path + "' at offset " + std::to_string(v.entry.payload_offset);
    BlobPayloadReader read;
    if (as_descriptor) {
      arrow::io::RandomAccessFile* input = open[v.file].input.get();
      const int64_t base = v.entry.payload_offset;
      read = [input, base](int64_t offset, int64_t length) -> Result<std::string> {
        ARROW_ASSIGN_OR_RAISE(auto buffer, input->ReadAt(base + offset, length));
        return buffer->ToString();
      };
    } else {
      read = InMemoryPayloadReader(payload);
    }
    BlobNestedLayout layout;
    if (is_map) {
      ARROW_ASSIGN_OR_RAISE(layout,
                            ParseBlobMapPayload(v.entry.payload_length, read, key_width, what));
      ARROW_RETURN_NOT_OK(static_cast<arrow::MapBuilder*>(builder.get())->Append());
      std::set<std::string_view> seen;
      for (const auto& key : layout.keys) {
        if (key.is_null()) {
          return Status::Invalid(what,
                                 ": MAP<K, BLOB> with null keys cannot be read as an "
                                 "Arrow map");
        }
        std::string_view bytes = std::string_view(layout.key_data)
                                     .substr(key.offset - layout.key_data_offset, key.length);
        if (!seen.insert(bytes).second) {
          return Status::IOError(what, ": MAP<K, BLOB> payload has a duplicate key");
        }
        ARROW_RETURN_NOT_OK(AppendMapBlobKey(bytes, key_builder));
      }
    } else {
      ARROW_ASSIGN_OR_RAISE(layout, ParseBlobArrayPayload(v.entry.payload_length, read, what));
      ARROW_RETURN_NOT_OK(static_cast<arrow::ListBuilder*>(builder.get())->Append());
    }
    for (const auto& value : layout.values) {
      if (value.is_null()) {
        ARROW_RETURN_NOT_OK(value_builder->AppendNull());
      } else if (as_descriptor) {
        BlobDescriptor d{path, v.entry.payload_offset + value.offset, value.length};
        ARROW_RETURN_NOT_OK(value_builder->Append(d.Serialize()));
      } else {
        ARROW_RETURN_NOT_OK(value_builder->Append(payload.substr(value.offset, value.length)));
      }
    }
  }
  std::shared_ptr<arrow::Array> out;
  ARROW_RETURN_NOT_OK(builder->Finish(&out));
  return out;
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> ReadBlobBunch(const FileIO& io,
                                                    std::vector<BlobBunchFile> files,
                                                    const std::vector<int64_t>& row_ids,
                                                    const DataType& type, bool as_descriptor,
                                                    arrow::MemoryPool* pool) {
  // Newest first; within one sequence number by first row id (docs/format.md §5.3 step 6).
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
      ARROW_ASSIGN_OR_RAISE(
          o.input, format_internal::OpenForRead(io, files[f].path, files[f].meta->file_size, pool));
      // The open file knows its size (fstat at open): checking it costs no syscall.
      ARROW_ASSIGN_OR_RAISE(int64_t size, o.input->GetSize());
      ARROW_RETURN_NOT_OK(CheckFileSize(files[f].path, size, files[f].meta->file_size));
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
      auto it = std::upper_bound(
          files.begin() + begin, files.begin() + end, id,
          [](int64_t v, const BlobBunchFile& f) { return v < *f.meta->first_row_id; });
      if (it == files.begin() + begin) continue;
      const size_t f = static_cast<size_t>(it - files.begin()) - 1;
      if (id > files[f].meta->last_row_id()) continue;  // not covered: a placeholder
      ARROW_ASSIGN_OR_RAISE(const BlobFileIndex* index, index_of(f));
      BlobEntry e = index->entry(id - *files[f].meta->first_row_id);
      if (e.kind == BlobEntry::Kind::kPlaceholder) continue;
      if (e.kind == BlobEntry::Kind::kValue) resolved[r] = {static_cast<int>(f), id, e};
      break;
    }
  }

  if (type.is_blob()) return BuildScalar(open, files, resolved, as_descriptor, pool);
  if (type.root() != TypeRoot::kArray && type.root() != TypeRoot::kMap) {
    return Status::NotImplemented("reading ", type.ToString(), " from .blob files");
  }
  return BuildNested(open, files, resolved, type, as_descriptor, pool);
}

namespace {

bool IsBlobFilePath(const std::string& path) {
  constexpr std::string_view kSuffix = ".blob";
  return path.size() > kSuffix.size() &&
         path.compare(path.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0;
}

// One file read by ReadBlobRanges: its handle, its index once needed, and the entry verified
// last (the elements of a nested row are consecutive ranges inside one entry).
struct RangeSource {
  std::string path;
  bool is_blob_file = false;
  std::shared_ptr<arrow::io::RandomAccessFile> input;
  std::shared_ptr<const BlobFileIndex> index;
  std::shared_ptr<arrow::Buffer> entry;  // the last verified entry, or null
  int64_t entry_offset = 0;
};

std::shared_ptr<arrow::Buffer> Slice(const std::shared_ptr<arrow::Buffer>& buffer, int64_t offset,
                                     int64_t length) {
  return arrow::SliceBuffer(buffer, offset, length);
}

Result<std::shared_ptr<arrow::Buffer>> ReadRange(RangeSource* src, const BlobRange& range) {
  const int64_t offset = range.offset;
  const int64_t length = range.length;
  if (!src->is_blob_file) {
    ARROW_ASSIGN_OR_RAISE(auto bytes, src->input->ReadAt(offset, length));
    if (bytes->size() != length) {
      return Status::IOError("BLOB descriptor ", range.uri, " @", offset, "+", length,
                             " points past the end of the file");
    }
    return bytes;
  }
  if (src->entry != nullptr && offset >= src->entry_offset + 4 &&
      offset + length <= src->entry_offset + src->entry->size() - 12) {
    return Slice(src->entry, offset - src->entry_offset, length);
  }
  // A whole payload (the common case: a BLOB value's descriptor): its entry is the range
  // plus the 4 bytes before and 12 after, and checks out on its own.
  if (offset >= 4) {
    ARROW_ASSIGN_OR_RAISE(auto bytes, src->input->ReadAt(offset - 4, length + kBlobEntryOverhead));
    if (bytes->size() == length + kBlobEntryOverhead &&
        IsIntactBlobEntry(std::string_view(reinterpret_cast<const char*>(bytes->data()),
                                           static_cast<size_t>(bytes->size())))) {
      return Slice(bytes, 4, length);
    }
  }
  // A part of a payload (an ARRAY<BLOB> element, a MAP<K, BLOB> value), or a damaged entry:
  // the index says which entry holds the range, and that entry is verified whole.
  if (src->index == nullptr) {
    ARROW_ASSIGN_OR_RAISE(int64_t size, src->input->GetSize());
    ARROW_ASSIGN_OR_RAISE(src->index, BlobFileIndex::Read(src->input.get(), size, src->path));
  }
  const int64_t row = src->index->RowHolding(offset, length);
  if (row < 0) {
    return Status::IOError("BLOB descriptor ", range.uri, " @", offset, "+", length,
                           " does not lie inside a payload of blob file '", src->path, "'");
  }
  const BlobEntry e = src->index->entry(row);
  ARROW_ASSIGN_OR_RAISE(auto entry, src->input->ReadAt(e.entry_offset(), e.entry_length()));
  if (entry->size() != e.entry_length()) {
    return Status::IOError("blob file '", src->path, "' is truncated: wanted ", e.entry_length(),
                           " bytes at ", e.entry_offset(), ", got ", entry->size());
  }
  ARROW_RETURN_NOT_OK(VerifyBlobEntry(std::string_view(reinterpret_cast<const char*>(entry->data()),
                                                       static_cast<size_t>(entry->size())),
                                      src->path, e.entry_offset(), /*row_id=*/-1, row));
  src->entry = entry;
  src->entry_offset = e.entry_offset();
  return Slice(entry, offset - e.entry_offset(), length);
}

}  // namespace

Result<std::vector<std::shared_ptr<arrow::Buffer>>> ReadBlobRanges(
    const FileIO& io, const std::vector<BlobRange>& ranges, arrow::MemoryPool* pool) {
  // Every range is checked before the first read, so a bad one fails the call up front.
  std::vector<std::string> paths;
  paths.reserve(ranges.size());
  for (const auto& range : ranges) {
    if (range.offset < 0 || range.length < 0) {
      return Status::Invalid("BLOB descriptor ", range.uri, " has a negative offset or length");
    }
    ARROW_RETURN_NOT_OK(io.CheckUri(range.uri));  // a local path, file: or s3:// URI
    paths.push_back(range.uri);
  }
  std::map<std::string, RangeSource> sources;
  std::vector<std::shared_ptr<arrow::Buffer>> out;
  out.reserve(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    const BlobRange& range = ranges[i];
    const std::string& path = paths[i];
    auto it = sources.find(path);
    if (it == sources.end()) {
      RangeSource src;
      src.path = path;
      src.is_blob_file = IsBlobFilePath(path);
      ARROW_ASSIGN_OR_RAISE(src.input, io.OpenInput(path, pool));
      it = sources.emplace(path, std::move(src)).first;
    }
    ARROW_ASSIGN_OR_RAISE(auto bytes, ReadRange(&it->second, range));
    out.push_back(std::move(bytes));
  }
  return out;
}

Result<std::shared_ptr<arrow::Array>> DereferenceBlobDescriptors(const FileIO& io,
                                                                 const arrow::Array& stored,
                                                                 const std::string& column,
                                                                 arrow::MemoryPool* pool) {
  if (stored.type_id() != arrow::Type::LARGE_BINARY) {
    return Status::Invalid("descriptor column '", column, "' must be large_binary, got ",
                           stored.type()->ToString());
  }
  const auto& values = static_cast<const arrow::LargeBinaryArray&>(stored);
  std::vector<BlobRange> ranges;
  for (int64_t i = 0; i < values.length(); ++i) {
    if (values.IsNull(i)) continue;
    auto descriptor = BlobDescriptor::Deserialize(values.GetView(i));
    if (!descriptor.ok()) {
      return Status::Invalid("BLOB descriptor column '", column,
                             "' holds bytes that are not a "
                             "BlobDescriptor (row ",
                             i, "): ", descriptor.status().message());
    }
    ranges.push_back({std::move(descriptor->uri), descriptor->offset, descriptor->length});
  }
  ARROW_ASSIGN_OR_RAISE(auto bytes, ReadBlobRanges(io, ranges, pool));
  arrow::LargeBinaryBuilder builder(pool);
  ARROW_RETURN_NOT_OK(builder.Reserve(values.length()));
  size_t next = 0;
  for (int64_t i = 0; i < values.length(); ++i) {
    if (values.IsNull(i)) {
      ARROW_RETURN_NOT_OK(builder.AppendNull());
    } else {
      const auto& b = bytes[next++];
      ARROW_RETURN_NOT_OK(builder.Append(b->data(), b->size()));
    }
  }
  std::shared_ptr<arrow::Array> out;
  ARROW_RETURN_NOT_OK(builder.Finish(&out));
  return out;
}

}  // namespace paimon_rowid
