// paimon-vindex's file callbacks in C (docs/search.md, "Building"): the library reads an index
// file and writes one through callbacks of its C ABI. paimon-vindex's own Python classes pass
// Python callbacks, which take the GIL and copy each piece in Python; these are plain C over
// memory we own or over the table's FileIO, and run without the GIL.
//   * MemoryReadRanges: reads of an index file held in memory (every search query);
//   * IndexFileOutput: a new index file written while the library serializes it: the
//     library's pieces are gathered into 8 MiB buffers that a thread of this object hands to
//     the FileIO's output stream, so serializing and writing overlap (for a 307 MB ivf-flat
//     file the write to a local disk costs as long as the serialization), and the file's
//     bytes are never held whole in memory.
#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "common.h"
#include "paimon_rowid/catalog/table.h"

namespace paimon_rowid::python {

namespace {

// paimon-vindex 0.5's read request (its C ABI's PaimonVindexReadRequest) and a file held in
// memory, as the context of MemoryReadRanges.
struct VindexReadRequest {
  uint64_t offset;
  uint8_t* buf;
  size_t len;
};
struct MemoryFile {
  const uint8_t* data;
  size_t size;
};

// paimon-vindex's read_ranges callback over a MemoryFile: copies each requested range into the
// library's buffer. Returns -1 for a range outside the file.
extern "C" int MemoryReadRanges(void* ctx, VindexReadRequest* requests, size_t count) {
  const auto* file = static_cast<const MemoryFile*>(ctx);
  for (size_t i = 0; i < count; ++i) {
    const VindexReadRequest& r = requests[i];
    if (r.offset > file->size || r.len > file->size - r.offset) return -1;
    std::memcpy(r.buf, file->data + r.offset, r.len);
  }
  return 0;
}

// A new index file fed by paimon-vindex's write callback. Thread-safety: Write/Flush/Position
// are called by one thread (the library's, inside one write_index call); Finish or Abort by
// the owner once that call has returned.
class IndexFileOutput {
 public:
  static constexpr size_t kBufferBytes = 8 << 20;
  static constexpr size_t kMaxQueued = 4;  // full buffers waiting for the writer thread

  IndexFileOutput(std::shared_ptr<FileIO> io, std::string path)
      : io_(std::move(io)), path_(std::move(path)) {}

  ~IndexFileOutput() { Abort(); }

  Status Open() {
    ARROW_ASSIGN_OR_RAISE(stream_, io_->OpenOutput(path_));
    opened_ = true;
    writer_ = std::thread([this] { Drain(); });
    return Status::OK();
  }

  // Copies `data` into the current buffer; a full buffer goes to the writer thread (waiting
  // while kMaxQueued are queued). -1 once a write has failed.
  int Write(const uint8_t* data, size_t size) {
    while (size > 0) {
      if (current_.capacity() == 0) current_ = TakeBuffer();
      size_t n = std::min(size, kBufferBytes - current_.size());
      current_.insert(current_.end(), data, data + n);
      data += n;
      size -= n;
      written_ += static_cast<int64_t>(n);
      if (current_.size() == kBufferBytes && !Enqueue()) return -1;
    }
    return failed_.load(std::memory_order_relaxed) ? -1 : 0;
  }

  int64_t Position() const { return written_; }

  // Hands the last buffer over, waits for the writer thread and closes the file; the file's
  // size.
  Result<int64_t> Finish() {
    if (!opened_) return Status::Invalid("index file output '", path_, "' is not open");
    if (!current_.empty()) Enqueue();
    StopWriter();
    Status st = first_error_;
    if (st.ok()) {
      st = stream_->Close();
    } else {
      (void)stream_->Abort();  // an object store's upload is dropped, not completed
    }
    opened_ = false;
    if (!st.ok()) {
      (void)io_->DeleteFile(path_);
      return st;
    }
    return written_;
  }

  // Stops writing and deletes the file (nothing when already finished or aborted).
  void Abort() {
    if (!opened_) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (first_error_.ok()) first_error_ = Status::Cancelled("index file write aborted");
      failed_ = true;
    }
    StopWriter();
    (void)stream_->Abort();  // an object store's upload is dropped, not completed
    (void)io_->DeleteFile(path_);
    opened_ = false;
  }

  // The first error of the writer thread (OK if none): what a failed write_index call means.
  Status error() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return first_error_;
  }

 private:
  std::vector<uint8_t> TakeBuffer() {
    std::vector<uint8_t> buffer;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        buffer = std::move(free_.back());
        free_.pop_back();
      }
    }
    buffer.clear();
    buffer.reserve(kBufferBytes);
    return buffer;
  }

  bool Enqueue() {
    std::unique_lock<std::mutex> lock(mutex_);
    space_.wait(lock, [&] { return queue_.size() < kMaxQueued || !first_error_.ok(); });
    if (!first_error_.ok()) return false;
    queue_.push_back(std::move(current_));
    current_ = std::vector<uint8_t>();
    ready_.notify_one();
    return true;
  }

  void Drain() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      ready_.wait(lock, [&] { return !queue_.empty() || done_; });
      if (queue_.empty()) return;
      std::vector<uint8_t> buffer = std::move(queue_.front());
      queue_.pop_front();
      bool skip = !first_error_.ok();
      lock.unlock();
      Status st =
          skip ? Status::OK() : stream_->Write(buffer.data(), static_cast<int64_t>(buffer.size()));
      lock.lock();
      if (!st.ok() && first_error_.ok()) {
        first_error_ = st;
        failed_ = true;
      }
      free_.push_back(std::move(buffer));
      space_.notify_one();
    }
  }

  void StopWriter() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
      space_.notify_all();
      ready_.notify_all();
    }
    if (writer_.joinable()) writer_.join();
  }

  std::shared_ptr<FileIO> io_;
  std::string path_;
  std::shared_ptr<arrow::io::OutputStream> stream_;
  bool opened_ = false;
  std::vector<uint8_t> current_;
  int64_t written_ = 0;

  mutable std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<std::vector<uint8_t>> queue_;
  std::vector<std::vector<uint8_t>> free_;
  bool done_ = false;
  Status first_error_;
  std::atomic<bool> failed_{false};  // first_error_ is set: read without the lock
  std::thread writer_;
};

// paimon-vindex's PaimonVindexOutputFile callbacks over an IndexFileOutput.
extern "C" int OutputWrite(void* ctx, const uint8_t* data, size_t size) {
  return static_cast<IndexFileOutput*>(ctx)->Write(data, size);
}
extern "C" int OutputFlush(void*) { return 0; }  // Finish makes the file whole
extern "C" int64_t OutputPosition(void* ctx) {
  return static_cast<IndexFileOutput*>(ctx)->Position();
}

}  // namespace

void RegisterVindexIO(nb::module_& m) {
  m.def(
      "vindex_memory_read_ranges", [] { return reinterpret_cast<uintptr_t>(&MemoryReadRanges); },
      "The address of a paimon-vindex read_ranges callback whose context is "
      "{const uint8_t* data; size_t size}.");

  nb::class_<IndexFileOutput>(m, "IndexFileOutput",
                              "A new index file written from paimon-vindex's write callbacks "
                              "(callbacks() -> (context, write, flush, position) addresses).")
      .def(
          "__init__",
          [](IndexFileOutput* self, std::shared_ptr<Table> table, const std::string& path) {
            new (self) IndexFileOutput(table->file_io(), path);
            WithoutGil([&] { return self->Open(); });
          },
          nb::arg("table"), nb::arg("path"))
      .def("callbacks",
           [](IndexFileOutput& self) {
             return nb::make_tuple(reinterpret_cast<uintptr_t>(&self),
                                   reinterpret_cast<uintptr_t>(&OutputWrite),
                                   reinterpret_cast<uintptr_t>(&OutputFlush),
                                   reinterpret_cast<uintptr_t>(&OutputPosition));
           })
      .def(
          "finish", [](IndexFileOutput& self) { return WithoutGil([&] { return self.Finish(); }); },
          "Writes what is buffered and closes the file; its size. On failure the file is "
          "deleted and the error raised.")
      .def(
          "abort",
          [](IndexFileOutput& self) {
            WithoutGil([&] {
              self.Abort();
              return Status::OK();
            });
          },
          "Stops writing and deletes the file.")
      .def(
          "check", [](IndexFileOutput& self) { Check(self.error()); },
          "Raises the error that made a write fail, if any.");
}

}  // namespace paimon_rowid::python
