// exec/: the one local executor of the engine (docs/architecture.md, "Layers"). Every
// parallel loop of the C++ core (writing the groups of an update, reading the groups of a row-id
// read) runs here, on one process-wide Arrow thread pool, instead of on threads each job starts for
// itself.
//
// Two shapes of parallel work are offered:
//   * ParallelFor(n, threads, fn): run fn(0..n-1), wait for all, report the first error;
//   * OrderedMap<T>: a pull-based stream of fn(0..n-1) in index order, computed ahead of the
//     consumer by a bounded number of workers (memory bounded by a window, not by n).
//
// Both let the calling thread take part in the work. That keeps threads=1 free of any
// thread hand-off, and it means a loop always makes progress even when every pool thread is
// busy (e.g. a loop started from inside another loop's task): the caller then simply does the
// remaining work itself. Neither blocks a pool thread on another pool task.
//
// `threads` everywhere means "at most this many calls of fn at once, the caller included";
// 0 (or less) means one per hardware core. The pool grows to the largest concurrency asked
// for (the work is partly I/O-bound, so a caller may ask for more threads than cores) and
// never shrinks; concurrent loops share its threads.
//
// Layer: exec/ uses only common/ and Arrow.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/util/thread_pool.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

class Executor {
 public:
  /// The process-wide executor, created on first use with one thread per core (never
  /// destroyed: its threads may outlive static destructors at exit). Thread-safe.
  static Executor* Default();

  /// An executor over its own pool of `capacity` threads (tests; isolated workloads).
  /// Invalid for capacity < 1.
  static Result<std::unique_ptr<Executor>> Make(int capacity);

  /// `threads` with 0 (or less) replaced by the number of hardware cores (at least 1).
  static int ResolveThreads(int threads);

  /// Runs fn(i) for every i in [0, n) with up to ResolveThreads(threads) calls at once (the
  /// calling thread is one of them) and returns when all calls that were started have
  /// returned. Indices are handed out in increasing order; after a call fails no further
  /// index is started, but calls already running finish. The result is the error of the
  /// lowest failing index — every lower index has run by then, so it is the error a
  /// sequential loop would have returned — or OK. `fn` must be safe to call concurrently
  /// on distinct indices. Thread-safe.
  Status ParallelFor(int64_t n, int threads, const std::function<Status(int64_t)>& fn);

  /// Ensures the pool can run `threads` tasks at once (it never shrinks). Thread-safe.
  void EnsureCapacity(int threads);

  /// Submits `task` to the pool. Fails only when the pool is shutting down.
  Status Spawn(std::function<void()> task);

  /// The underlying Arrow executor (e.g. for arrow::Future continuations). Owned by this.
  arrow::internal::Executor* arrow_executor() const { return pool_.get(); }

  /// Current number of pool threads.
  int capacity() const { return pool_->GetCapacity(); }

 private:
  explicit Executor(std::shared_ptr<arrow::internal::ThreadPool> pool) : pool_(std::move(pool)) {}

  std::shared_ptr<arrow::internal::ThreadPool> pool_;
  std::mutex capacity_mu_;  // serializes EnsureCapacity's read-then-grow
};

/// The results of fn(0), ..., fn(n-1), returned by Next() in index order while up to
/// `threads` workers on `executor` compute the following ones. No worker starts an index more
/// than `window` past the next one to be returned, so at most `window` results are buffered.
/// With threads == 1 nothing runs on the pool: Next() calls fn itself.
///
/// Next() after an error, or after the last index, returns nullopt; so does Next() after
/// Stop(). Destroying the map stops it and waits for the calls of fn that are running (fn's
/// captures may therefore refer to objects that outlive the map).
///
/// Thread-safety: one consumer thread calls Next()/Stop(); fn runs on pool threads and on
/// the consumer thread, on distinct indices.
template <typename T>
class OrderedMap {
 public:
  OrderedMap(Executor* executor, int64_t n, int threads, int64_t window,
             std::function<Result<T>(int64_t)> fn)
      : state_(std::make_shared<State>()) {
    state_->executor = executor;
    state_->n = n;
    state_->threads = std::max(1, Executor::ResolveThreads(threads));
    state_->window = std::max<int64_t>(1, window);
    state_->fn = std::move(fn);
    state_->results.resize(static_cast<size_t>(std::max<int64_t>(0, n)));
    if (state_->threads > 1) executor->EnsureCapacity(state_->threads);
  }
  ~OrderedMap() { Stop(); }
  OrderedMap(const OrderedMap&) = delete;
  OrderedMap& operator=(const OrderedMap&) = delete;

  /// Blocks until fn(next index) is known and returns it; nullopt when the stream is over.
  std::optional<Result<T>> Next() {
    State& s = *state_;
    std::unique_lock<std::mutex> lock(s.mu);
    if (s.stop || s.consumed >= s.n) return std::nullopt;
    const int64_t i = s.consumed;
    Pump(state_);
    while (!s.results[i].has_value()) {
      if (s.claimed == i) {
        // Nobody started it (threads == 1, or the workers are queued behind other work):
        // compute it here rather than wait for a pool thread.
        ComputeClaimed(s, lock);
        break;
      }
      s.cv.wait(lock);
    }
    Result<T> out = std::move(*s.results[i]);
    s.results[i].reset();
    ++s.consumed;
    if (!out.ok()) {
      s.stop = true;
    } else {
      Pump(state_);
    }
    lock.unlock();
    s.cv.notify_all();
    return out;
  }

  /// Starts no further index and waits for the calls of fn that are running.
  void Stop() {
    State& s = *state_;
    std::unique_lock<std::mutex> lock(s.mu);
    s.stop = true;
    s.cv.wait(lock, [&] { return s.busy == 0; });
    // No call of fn can start any more: destroy fn (and what it captured) here, on the
    // consumer's thread. Worker tasks still queued keep the state alive; had they kept fn,
    // its captures could be released last on a pool thread, e.g. a table handle owned by
    // Python whose deleter takes the GIL while the interpreter is shutting down (abort).
    std::function<Result<T>(int64_t)> fn = std::move(s.fn);
    s.fn = nullptr;
    lock.unlock();
  }

 private:
  struct State {
    Executor* executor = nullptr;
    int64_t n = 0;
    int threads = 1;
    int64_t window = 1;
    std::function<Result<T>(int64_t)> fn;
    std::mutex mu;
    std::condition_variable cv;
    // Guarded by mu:
    std::vector<std::optional<Result<T>>> results;
    int64_t claimed = 0;   // next index a worker (or the consumer) starts
    int64_t consumed = 0;  // next index Next() returns
    int workers = 0;       // worker tasks submitted and not yet returned
    int busy = 0;          // calls of fn running
    bool stop = false;
  };

  // REQUIRES: s.mu held.
  static bool Claimable(const State& s) {
    return !s.stop && s.claimed < s.n && s.claimed < s.consumed + s.window;
  }

  // Submits workers while there is claimable work and fewer than `threads` of them.
  // REQUIRES: state->mu held.
  static void Pump(const std::shared_ptr<State>& state) {
    State& s = *state;
    if (s.threads <= 1) return;
    while (Claimable(s) && s.workers < s.threads &&
           s.workers < std::min(s.n, s.consumed + s.window) - s.claimed) {
      ++s.workers;
      // A worker holds the state, not the map: a worker still queued when the map is gone
      // finds `stop` set and returns without calling fn.
      Status spawned = s.executor->Spawn([state] { Work(state); });
      if (!spawned.ok()) {
        --s.workers;  // the consumer computes the rest itself
        return;
      }
    }
  }

  // Claims the next index (s.claimed), calls fn on it with the lock released and stores
  // the result. REQUIRES: `lock` holds s.mu; it holds it again on return.
  static void ComputeClaimed(State& s, std::unique_lock<std::mutex>& lock) {
    const int64_t i = s.claimed++;
    ++s.busy;
    lock.unlock();
    auto result = s.fn(i);
    lock.lock();
    --s.busy;
    s.results[i] = std::move(result);
  }

  static void Work(const std::shared_ptr<State>& state) {
    State& s = *state;
    std::unique_lock<std::mutex> lock(s.mu);
    while (Claimable(s)) {
      ComputeClaimed(s, lock);
      s.cv.notify_all();
    }
    --s.workers;
    s.cv.notify_all();
  }

  std::shared_ptr<State> state_;
};

}  // namespace paimon_rowid
