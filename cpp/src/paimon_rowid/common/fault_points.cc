#include "paimon_rowid/common/fault_points.h"

#include <atomic>
#include <csignal>
#include <cstring>

namespace paimon_rowid {
namespace {

// The armed name. Points read it without a lock, so an armed name is never freed: each arming
// leaks one small string on purpose (a test process arms a handful of times at most).
std::atomic<const char*> armed{nullptr};

// The armed hook, leaked the same way: a point may still be reading one that was replaced.
struct Hook {
  std::string point;
  std::function<void()> run;
  std::atomic<bool> fired{false};
};
std::atomic<Hook*> hook_armed{nullptr};

}  // namespace

void ArmCrashPoint(const std::string& point) {
  armed.store(point.empty() ? nullptr : (new std::string(point))->c_str(),
              std::memory_order_release);
}

std::string ArmedCrashPoint() {
  const char* name = armed.load(std::memory_order_acquire);
  return name == nullptr ? std::string() : std::string(name);
}

void ArmFaultHook(const std::string& point, std::function<void()> hook) {
  Hook* armed_hook = nullptr;
  if (!point.empty()) {
    armed_hook = new Hook();
    armed_hook->point = point;
    armed_hook->run = std::move(hook);
  }
  hook_armed.store(armed_hook, std::memory_order_release);
}

void FaultPoint(const char* point) {
  const char* name = armed.load(std::memory_order_acquire);
  if (name != nullptr && std::strcmp(name, point) == 0) std::raise(SIGKILL);
  Hook* hook = hook_armed.load(std::memory_order_acquire);
  if (hook != nullptr && hook->point == point && !hook->fired.exchange(true)) {
    hook_armed.compare_exchange_strong(hook, nullptr);
    hook->run();
  }
}

}  // namespace paimon_rowid
