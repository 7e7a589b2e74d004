#include "paimon_rowid/format/object_store_input.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <utility>

#include "arrow/buffer.h"
#include "arrow/result.h"
#include "arrow/util/future.h"
#include "paimon_rowid/fs/file_io.h"

namespace paimon_rowid::format_internal {
namespace {

struct Fetched {
  int64_t offset;
  std::shared_ptr<arrow::Buffer> data;
};

class ObjectStoreInput final : public arrow::io::RandomAccessFile {
 public:
  ObjectStoreInput(std::shared_ptr<arrow::io::RandomAccessFile> inner, int64_t size)
      : inner_(std::move(inner)),
        size_(size),
        tail_start_(std::max<int64_t>(0, size - kTailBytes)) {}

  arrow::Status Close() override { return inner_->Close(); }
  bool closed() const override { return inner_->closed(); }
  arrow::Result<int64_t> Tell() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return position_;
  }
  arrow::Status Seek(int64_t position) override {
    if (position < 0) return arrow::Status::Invalid("negative seek position");
    std::lock_guard<std::mutex> lock(mutex_);
    position_ = position;
    return arrow::Status::OK();
  }
  arrow::Result<int64_t> GetSize() override { return size_; }

  arrow::Result<int64_t> Read(int64_t nbytes, void* out) override {
    int64_t at;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      at = position_;
    }
    ARROW_ASSIGN_OR_RAISE(int64_t n, ReadAt(at, nbytes, out));
    std::lock_guard<std::mutex> lock(mutex_);
    position_ = at + n;
    return n;
  }
  arrow::Result<std::shared_ptr<arrow::Buffer>> Read(int64_t nbytes) override {
    int64_t at;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      at = position_;
    }
    ARROW_ASSIGN_OR_RAISE(auto buffer, ReadAt(at, nbytes));
    std::lock_guard<std::mutex> lock(mutex_);
    position_ = at + buffer->size();
    return buffer;
  }

  arrow::Result<int64_t> ReadAt(int64_t position, int64_t nbytes, void* out) override {
    ARROW_ASSIGN_OR_RAISE(auto buffer, ReadAt(position, nbytes));
    std::memcpy(out, buffer->data(), static_cast<size_t>(buffer->size()));
    return buffer->size();
  }

  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t position, int64_t nbytes) override {
    if (position < 0 || nbytes < 0) return arrow::Status::Invalid("negative read range");
    nbytes = std::max<int64_t>(0, std::min(nbytes, size_ - position));
    if (nbytes == 0) return std::make_shared<arrow::Buffer>(nullptr, 0);
    ARROW_ASSIGN_OR_RAISE(auto cached, FromMemory(position, nbytes));
    if (cached) return cached;
    return inner_->ReadAt(position, nbytes);
  }

  arrow::Future<std::shared_ptr<arrow::Buffer>> ReadAsync(const arrow::io::IOContext& ctx,
                                                          int64_t position,
                                                          int64_t nbytes) override {
    auto cached = FromMemory(position, nbytes);
    if (!cached.ok())
      return arrow::Future<std::shared_ptr<arrow::Buffer>>::MakeFinished(cached.status());
    if (*cached) return arrow::Future<std::shared_ptr<arrow::Buffer>>::MakeFinished(*cached);
    return inner_->ReadAsync(ctx, position, nbytes);
  }

  arrow::Status WillNeed(const std::vector<arrow::io::ReadRange>& ranges) override {
    std::vector<arrow::io::ReadRange> wanted;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const auto& r : ranges) {
        if (r.length <= 0 || r.offset >= size_) continue;
        const int64_t length = std::min(r.length, size_ - r.offset);
        if (!CoveredLocked(r.offset, length)) wanted.push_back({r.offset, length});
      }
    }
    auto merged =
        CoalesceRanges(std::move(wanted), kObjectStoreHoleBytes, kObjectStoreMaxRangeBytes);
    if (merged.empty()) return arrow::Status::OK();
    std::vector<arrow::Future<std::shared_ptr<arrow::Buffer>>> futures;
    futures.reserve(merged.size());
    for (const auto& r : merged) {
      futures.push_back(inner_->ReadAsync(arrow::io::default_io_context(), r.offset, r.length));
    }
    std::vector<Fetched> got;
    for (size_t i = 0; i < merged.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(auto buffer, futures[i].result());
      got.push_back({merged[i].offset, std::move(buffer)});
    }
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& f : got) fetched_.push_back(std::move(f));
    std::sort(fetched_.begin(), fetched_.end(),
              [](const Fetched& a, const Fetched& b) { return a.offset < b.offset; });
    return arrow::Status::OK();
  }

 private:
  bool CoveredLocked(int64_t position, int64_t nbytes) const {
    if (tail_ && position >= tail_start_) return true;
    for (const auto& f : fetched_) {
      if (position >= f.offset && position + nbytes <= f.offset + f.data->size()) return true;
    }
    return false;
  }

  // The bytes from memory (fetching the tail first when the range lies in it), or nullptr.
  arrow::Result<std::shared_ptr<arrow::Buffer>> FromMemory(int64_t position, int64_t nbytes) {
    std::shared_ptr<arrow::Buffer> tail;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const auto& f : fetched_) {
        if (position >= f.offset && position + nbytes <= f.offset + f.data->size()) {
          return arrow::SliceBuffer(f.data, position - f.offset, nbytes);
        }
      }
      tail = tail_;
    }
    if (position < tail_start_) return nullptr;
    if (!tail) {
      ARROW_ASSIGN_OR_RAISE(tail, inner_->ReadAt(tail_start_, size_ - tail_start_));
      if (tail->size() != size_ - tail_start_) return nullptr;  // short: let the caller see it
      std::lock_guard<std::mutex> lock(mutex_);
      if (!tail_) tail_ = tail;
    }
    const int64_t from = position - tail_start_;
    if (from + nbytes > tail->size()) return nullptr;
    return arrow::SliceBuffer(tail, from, nbytes);
  }

  std::shared_ptr<arrow::io::RandomAccessFile> inner_;
  const int64_t size_;
  const int64_t tail_start_;
  mutable std::mutex mutex_;
  int64_t position_ = 0;
  std::shared_ptr<arrow::Buffer> tail_;
  std::vector<Fetched> fetched_;  // sorted by offset
};

}  // namespace

bool IsObjectStorePath(const std::string& path) {
  const std::string scheme = UriScheme(path);
  return !scheme.empty() && scheme != "file";
}

std::shared_ptr<arrow::io::RandomAccessFile> MakeObjectStoreInput(
    std::shared_ptr<arrow::io::RandomAccessFile> inner, int64_t size) {
  return std::make_shared<ObjectStoreInput>(std::move(inner), size);
}

Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenForRead(
    const FileIO& io, const std::string& path, int64_t size, arrow::MemoryPool* pool, bool mapped) {
  if (size > 0 && IsObjectStorePath(path)) {
    ARROW_ASSIGN_OR_RAISE(auto input, io.OpenInputWithSize(path, size, pool));
    return MakeObjectStoreInput(std::move(input), size);
  }
  if (mapped) return io.OpenInputMapped(path, size, pool);
  return io.OpenInput(path, pool);
}

std::vector<arrow::io::ReadRange> CoalesceRanges(std::vector<arrow::io::ReadRange> ranges,
                                                 int64_t hole_limit, int64_t max_range) {
  ranges.erase(std::remove_if(ranges.begin(), ranges.end(),
                              [](const arrow::io::ReadRange& r) { return r.length <= 0; }),
               ranges.end());
  std::sort(ranges.begin(), ranges.end(),
            [](const arrow::io::ReadRange& a, const arrow::io::ReadRange& b) {
              return a.offset < b.offset;
            });
  std::vector<arrow::io::ReadRange> out;
  for (const auto& r : ranges) {
    if (!out.empty()) {
      auto& last = out.back();
      const int64_t last_end = last.offset + last.length;
      const int64_t end = std::max(last_end, r.offset + r.length);
      if (r.offset - last_end <= hole_limit && end - last.offset <= max_range) {
        last.length = end - last.offset;
        continue;
      }
    }
    out.push_back(r);
  }
  return out;
}

bool IsPrefetching(arrow::io::RandomAccessFile* file) {
  return dynamic_cast<ObjectStoreInput*>(file) != nullptr;
}

arrow::Status Prefetch(arrow::io::RandomAccessFile* file,
                       const std::vector<arrow::io::ReadRange>& ranges) {
  if (auto* store = dynamic_cast<ObjectStoreInput*>(file)) return store->WillNeed(ranges);
  return arrow::Status::OK();
}

}  // namespace paimon_rowid::format_internal
