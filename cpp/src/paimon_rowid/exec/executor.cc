#include "paimon_rowid/exec/executor.h"

#include <thread>

namespace paimon_rowid {

namespace {

// The shared state of one ParallelFor. Pool tasks hold it by shared_ptr, so a task still
// queued when ParallelFor has returned finds every index claimed and returns without
// touching `fn` (which lives on the caller's stack).
struct LoopState {
  int64_t n = 0;
  const std::function<Status(int64_t)>* fn = nullptr;
  std::mutex mu;
  std::condition_variable cv;
  // Guarded by mu:
  int64_t claimed = 0;   // next index to start
  int64_t finished = 0;  // indices whose call returned
  bool failed = false;   // stop handing out indices
  int64_t first_failed = -1;
  Status first_error;
};

// Claims and runs indices until none is left (or one failed). Returns when this thread has
// nothing more to do; the caller's own loop then waits for the others.
void RunLoop(const std::shared_ptr<LoopState>& state) {
  LoopState& s = *state;
  std::unique_lock<std::mutex> lock(s.mu);
  while (!s.failed && s.claimed < s.n) {
    const int64_t i = s.claimed++;
    lock.unlock();
    Status st = (*s.fn)(i);
    lock.lock();
    ++s.finished;
    if (!st.ok()) {
      s.failed = true;
      if (s.first_failed < 0 || i < s.first_failed) {
        s.first_failed = i;
        s.first_error = std::move(st);
      }
    }
  }
  s.cv.notify_all();
}

}  // namespace

Executor* Executor::Default() {
  static Executor* const instance = [] {
    // MakeEternal: the pool is not joined by static destructors at exit (a Python
    // interpreter may still hold work on it then).
    auto pool = arrow::internal::ThreadPool::MakeEternal(ResolveThreads(0));
    // Creating threads fails only when the process is out of resources; the executor then
    // still works, with every loop run by its caller.
    return new Executor(pool.ok() ? *pool : nullptr);
  }();
  return instance;
}

Result<std::unique_ptr<Executor>> Executor::Make(int capacity) {
  if (capacity < 1) return Status::Invalid("executor capacity must be at least 1, got ", capacity);
  ARROW_ASSIGN_OR_RAISE(auto pool, arrow::internal::ThreadPool::Make(capacity));
  return std::unique_ptr<Executor>(new Executor(std::move(pool)));
}

int Executor::ResolveThreads(int threads) {
  if (threads > 0) return threads;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void Executor::EnsureCapacity(int threads) {
  if (!pool_) return;
  std::lock_guard<std::mutex> lock(capacity_mu_);
  if (pool_->GetCapacity() < threads) (void)pool_->SetCapacity(threads);
}

Status Executor::Spawn(std::function<void()> task) {
  if (!pool_) return Status::Invalid("the executor has no threads");
  return pool_->Spawn(std::move(task));
}

Status Executor::ParallelFor(int64_t n, int threads, const std::function<Status(int64_t)>& fn) {
  if (n <= 0) return Status::OK();
  const int64_t workers = std::min<int64_t>(ResolveThreads(threads), n);
  if (workers == 1) {
    // No hand-off at all: the sequential loop, same error rule.
    for (int64_t i = 0; i < n; ++i) ARROW_RETURN_NOT_OK(fn(i));
    return Status::OK();
  }
  auto state = std::make_shared<LoopState>();
  state->n = n;
  state->fn = &fn;
  // The caller is one of the workers, so the pool runs workers - 1 more.
  EnsureCapacity(static_cast<int>(workers - 1));
  for (int64_t w = 1; w < workers; ++w) {
    // A failed spawn only lowers the parallelism: the caller's loop takes the work.
    if (!Spawn([state] { RunLoop(state); }).ok()) break;
  }
  RunLoop(state);
  std::unique_lock<std::mutex> lock(state->mu);
  // Every index is claimed (or a call failed); wait for the calls still running elsewhere.
  state->cv.wait(lock, [&] { return state->finished == state->claimed; });
  return state->failed ? state->first_error : Status::OK();
}

}  // namespace paimon_rowid
