// How far a long job (compaction, snapshot expiration, orphan cleaning, an index build) has
// come, counted by the job and read by whoever watches it.
//
// The job owns the counting: it adds to `total` as it learns of work (a plan's groups, the
// snapshots an expiration visits) and to `done` as units finish, from any of its threads. A
// watcher on another thread (the Python layer polls it to draw its bar and call its
// on_progress hook, python/paimon_rowid/_internal/_progress.py) reads both at any time;
// `done` never decreases and `total` only grows, so a reading may lag but never goes back.
// `done <= total` holds once the job has finished; while it runs a reading taken between the
// two loads may see done a step ahead of total, which watchers clamp.
//
// Cancel() asks the job to stop: it checks CheckCancelled() between units (never inside one),
// and stops with a Cancelled status after cleaning up what it wrote, exactly as for any
// other error. A job never commits after it has seen the flag.
//
// Thread-safety: every method may be called from any thread at any time (relaxed atomics:
// the figures are estimates for display, not synchronization).
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

class ProgressCounter {
 public:
  /// `n` more units of work are known (a plan, a listing).
  void AddTotal(int64_t n) { total_.fetch_add(n, std::memory_order_relaxed); }
  /// `n` more units finished.
  void Add(int64_t n = 1) { done_.fetch_add(n, std::memory_order_relaxed); }

  int64_t total() const { return total_.load(std::memory_order_relaxed); }
  int64_t done() const { return done_.load(std::memory_order_relaxed); }

  /// Asks the job to stop at its next check.
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

  /// Cancelled("<job> was cancelled") once Cancel() was called, else OK.
  Status CheckCancelled(std::string_view job) const {
    if (!cancelled()) return Status::OK();
    return Status::Cancelled(job, " was cancelled");
  }

 private:
  std::atomic<int64_t> total_{0};
  std::atomic<int64_t> done_{0};
  std::atomic<bool> cancelled_{false};
};

/// The helpers jobs call with their optional counter (nullptr: nobody watches).
inline void ProgressTotal(ProgressCounter* progress, int64_t n) {
  if (progress != nullptr) progress->AddTotal(n);
}
inline void ProgressDone(ProgressCounter* progress, int64_t n = 1) {
  if (progress != nullptr) progress->Add(n);
}
inline Status ProgressCheck(const ProgressCounter* progress, std::string_view job) {
  return progress == nullptr ? Status::OK() : progress->CheckCancelled(job);
}

}  // namespace paimon_rowid
