#include "paimon_rowid/common/fault_points.h"

#include <atomic>
#include <csignal>
#include <cstring>

namespace paimon_rowid {
namespace {

// The armed name. Points read it without a lock, so an armed name is never freed: each arming
// leaks one small string on purpose (a test process arms a handful of times at most).
std::atomic<const char*> armed{nullptr};

}  // namespace

void ArmCrashPoint(const std::string& point) {
  armed.store(point.empty() ? nullptr : (new std::string(point))->c_str(),
              std::memory_order_release);
}

std::string ArmedCrashPoint() {
  const char* name = armed.load(std::memory_order_acquire);
  return name == nullptr ? std::string() : std::string(name);
}

void FaultPoint(const char* point) {
  const char* name = armed.load(std::memory_order_acquire);
  if (name != nullptr && std::strcmp(name, point) == 0) std::raise(SIGKILL);
}

}  // namespace paimon_rowid
