#include "paimon_rowid/common/lazy_zero_buffer.h"

#include <cerrno>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace paimon_rowid {
namespace {

#if defined(__linux__)
// Owns one anonymous mapping; the Buffer sees its first `size` bytes.
class MappedZeroBuffer final : public arrow::MutableBuffer {
 public:
  MappedZeroBuffer(uint8_t* data, int64_t size, size_t mapped)
      : arrow::MutableBuffer(data, size), mapped_(mapped) {
    capacity_ = static_cast<int64_t>(mapped);
  }
  ~MappedZeroBuffer() override { munmap(mutable_data(), mapped_); }

 private:
  size_t mapped_;
};
#endif

}  // namespace

Result<std::shared_ptr<arrow::Buffer>> AllocateLazyZeroBuffer(int64_t size,
                                                              arrow::MemoryPool* pool) {
  if (size < 0) return Status::Invalid("negative buffer size ", size);
#if defined(__linux__)
  if (size >= kLazyZeroMinBytes) {
    const auto mapped = static_cast<size_t>(size);
    void* map = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
      return Status::OutOfMemory("mapping ", size, " zero bytes failed: ", std::strerror(errno));
    }
    return std::make_shared<MappedZeroBuffer>(static_cast<uint8_t*>(map), size, mapped);
  }
#endif
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> buffer, arrow::AllocateBuffer(size, pool));
  if (size > 0) std::memset(buffer->mutable_data(), 0, static_cast<size_t>(size));
  return buffer;
}

}  // namespace paimon_rowid
