#include "paimon_rowid/common/identifier.h"

#include <pthread.h>
#include <sys/random.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <random>

namespace paimon_rowid {

Status ValidateName(std::string_view name, std::string_view what) {
  if (name.empty()) return Status::Invalid(what, " name must not be empty");
  if (name == "." || name == "..") {
    return Status::Invalid(what, " name '", name, "' is not allowed");
  }
  for (unsigned char c : name) {
    if (c == '/' || c == '\\') {
      return Status::Invalid(what, " name '", name, "' must not contain '/' or '\\'");
    }
    if (c < 0x20 || c == 0x7F) {
      return Status::Invalid(what, " name must not contain control characters");
    }
  }
  return Status::OK();
}

Result<Identifier> Identifier::Parse(std::string_view full_name) {
  size_t dot = full_name.find('.');
  if (dot == std::string_view::npos) {
    return Status::Invalid("table identifier '", full_name,
                           "' must have the form 'database.table'");
  }
  Identifier id{std::string(full_name.substr(0, dot)), std::string(full_name.substr(dot + 1))};
  ARROW_RETURN_NOT_OK(ValidateName(id.database, "database"));
  ARROW_RETURN_NOT_OK(ValidateName(id.table, "table"));
  if (id.table.find('$') != std::string::npos) {
    return Status::NotImplemented("system tables ('", full_name, "') are not supported");
  }
  return id;
}

namespace {

// Bumped in every child fork(2) makes: a thread's generator whose generation differs reseeds
// before its next draw, so parent and children (whose memory, generator state included, is
// a copy) never draw the same names.
std::atomic<uint64_t> fork_generation{0};

void OnFork() { fork_generation.fetch_add(1, std::memory_order_relaxed); }

// 256 bits from the kernel's random source (getrandom(2), no file to open), with the process
// id and a clock mixed in: should the source ever fail, two processes still differ.
void FillSeed(std::array<uint32_t, 12>* words) {
  size_t got = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(words->data());
  while (got < 8 * sizeof(uint32_t)) {
    ssize_t n = ::getrandom(bytes + got, 8 * sizeof(uint32_t) - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::random_device device;  // the fallback source
      for (size_t i = got / sizeof(uint32_t); i < 8; ++i) (*words)[i] = device();
      break;
    }
    got += static_cast<size_t>(n);
  }
  const auto now =
      static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  const auto pid = static_cast<uint64_t>(::getpid());
  (*words)[8] = static_cast<uint32_t>(pid);
  (*words)[9] = static_cast<uint32_t>(pid >> 32);
  (*words)[10] = static_cast<uint32_t>(now);
  (*words)[11] = static_cast<uint32_t>(now >> 32);
}

struct ThreadGenerator {
  uint64_t generation = ~uint64_t{0};  // never a real generation: seeds on the first draw
  std::mt19937_64 engine;

  uint64_t Next() {
    const uint64_t current = fork_generation.load(std::memory_order_relaxed);
    if (current != generation) {
      std::array<uint32_t, 12> words{};
      FillSeed(&words);
      std::seed_seq seq(words.begin(), words.end());
      engine.seed(seq);
      generation = current;
    }
    return engine();
  }
};

}  // namespace

uint64_t RandomU64() {
  static const bool fork_handler_installed = ::pthread_atfork(nullptr, nullptr, &OnFork) == 0;
  (void)fork_handler_installed;
  thread_local ThreadGenerator generator;
  return generator.Next();
}

std::string RandomUuid() {
  uint64_t hi = RandomU64(), lo = RandomU64();
  hi = (hi & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;
  char buf[37];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return buf;
}

}  // namespace paimon_rowid
