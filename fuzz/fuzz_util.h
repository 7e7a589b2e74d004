// Helpers shared by the fuzz targets (README.md beside this file).
//
// A target feeds its input to a production decoder. Rejecting the input with a Status is the
// expected outcome for almost every input; what must never happen is a crash, a sanitizer
// report, an exception escaping, a hang or an unbounded allocation. Where a decoder has an
// encoder, a successful decode is re-encoded and decoded again, and FUZZ_CHECK reports any
// difference as a crash, so libFuzzer keeps the input as a reproducer.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "arrow/buffer.h"

#define FUZZ_CHECK(cond, ...)                                                              \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "FUZZ_CHECK failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      ::paimon_rowid::fuzz::Explain(__VA_ARGS__);                                          \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)

namespace paimon_rowid::fuzz {

inline void Explain() {}
template <typename T>
void Explain(const T& status_like) {
  std::fprintf(stderr, "  %s\n", status_like.ToString().c_str());
}
inline void Explain(const char* text) { std::fprintf(stderr, "  %s\n", text); }
inline void Explain(const std::string& text) { std::fprintf(stderr, "  %s\n", text.c_str()); }

inline std::string_view AsView(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// The input as a (non-owning) Arrow buffer. libFuzzer hands every input in a heap block of
/// exactly `size` bytes, so a read past its end is caught by ASan.
inline std::shared_ptr<arrow::Buffer> AsBuffer(const uint8_t* data, size_t size) {
  return std::make_shared<arrow::Buffer>(data, static_cast<int64_t>(size));
}

/// Consumes bytes from the front of the input (to choose types, modes, ...).
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() {
    if (size_ == 0) return 0;
    --size_;
    return *data_++;
  }
  std::string_view Rest() const { return AsView(data_, size_); }

 private:
  const uint8_t* data_;
  size_t size_;
};

}  // namespace paimon_rowid::fuzz
