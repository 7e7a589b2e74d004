#include "paimon_rowid/exec/executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>

#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

TEST(ExecutorTest, ResolveThreadsZeroMeansCores) {
  EXPECT_GE(Executor::ResolveThreads(0), 1);
  EXPECT_EQ(Executor::ResolveThreads(3), 3);
  EXPECT_EQ(Executor::ResolveThreads(-1), Executor::ResolveThreads(0));
}

TEST(ExecutorTest, MakeRejectsZeroCapacity) {
  auto made = Executor::Make(0);
  ASSERT_FALSE(made.ok());
  EXPECT_TRUE(made.status().IsInvalid());
}

TEST(ExecutorTest, ParallelForRunsEveryIndexOnce) {
  for (int threads : {1, 2, 4, 0}) {
    std::vector<std::atomic<int>> calls(1000);
    Status st = Executor::Default()->ParallelFor(1000, threads, [&](int64_t i) {
      calls[i].fetch_add(1);
      return Status::OK();
    });
    ASSERT_OK(st);
    for (const auto& c : calls) EXPECT_EQ(c.load(), 1) << "threads=" << threads;
  }
}

TEST(ExecutorTest, ParallelForEmptyAndSingle) {
  int calls = 0;
  EXPECT_OK(Executor::Default()->ParallelFor(0, 4, [&](int64_t) {
    ++calls;
    return Status::OK();
  }));
  EXPECT_EQ(calls, 0);
  EXPECT_OK(Executor::Default()->ParallelFor(1, 4, [&](int64_t) {
    ++calls;
    return Status::OK();
  }));
  EXPECT_EQ(calls, 1);
}

TEST(ExecutorTest, ParallelForSingleThreadRunsOnCaller) {
  const auto caller = std::this_thread::get_id();
  std::vector<int64_t> order;
  Status st = Executor::Default()->ParallelFor(5, 1, [&](int64_t i) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);
    return Status::OK();
  });
  ASSERT_OK(st);
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

TEST(ExecutorTest, ParallelForReturnsTheLowestFailingIndex) {
  // Index 7 fails fast, index 3 fails slowly: the sequential answer (3) must win.
  for (int round = 0; round < 20; ++round) {
    Status st = Executor::Default()->ParallelFor(50, 4, [&](int64_t i) {
      if (i == 3) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return Status::IOError("three");
      }
      if (i == 7) return Status::Invalid("seven");
      return Status::OK();
    });
    ASSERT_TRUE(st.IsIOError()) << st.ToString();
    EXPECT_EQ(st.message(), "three");
  }
}

TEST(ExecutorTest, ParallelForStopsStartingAfterAFailure) {
  std::atomic<int64_t> started{0};
  Status st = Executor::Default()->ParallelFor(10000, 2, [&](int64_t i) {
    started.fetch_add(1);
    if (i == 0) return Status::Invalid("first");
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    return Status::OK();
  });
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_LT(started.load(), 10000);
}

TEST(ExecutorTest, ParallelForUsesUpToThreadsAtOnce) {
  auto exec = Executor::Make(1).ValueOrDie();
  std::atomic<int> running{0};
  std::atomic<int> peak{0};
  Status st = exec->ParallelFor(40, 3, [&](int64_t) {
    int now = running.fetch_add(1) + 1;
    int seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    running.fetch_sub(1);
    return Status::OK();
  });
  ASSERT_OK(st);
  EXPECT_LE(peak.load(), 3);
  EXPECT_GE(exec->capacity(), 2);  // grown for the two helpers of the caller
}

TEST(ExecutorTest, NestedParallelForDoesNotDeadlock) {
  auto exec = Executor::Make(1).ValueOrDie();
  std::atomic<int> inner_calls{0};
  Status st = exec->ParallelFor(4, 2, [&](int64_t) {
    return exec->ParallelFor(8, 2, [&](int64_t) {
      inner_calls.fetch_add(1);
      return Status::OK();
    });
  });
  ASSERT_OK(st);
  EXPECT_EQ(inner_calls.load(), 32);
}

TEST(OrderedMapTest, YieldsInIndexOrder) {
  for (int threads : {1, 2, 4}) {
    OrderedMap<int64_t> map(Executor::Default(), 100, threads, 2 * threads, [](int64_t i) {
      // Later indices finish first, so order must come from the map, not from timing.
      std::this_thread::sleep_for(std::chrono::microseconds((100 - i) * 10));
      return Result<int64_t>(i * i);
    });
    for (int64_t i = 0; i < 100; ++i) {
      auto next = map.Next();
      ASSERT_TRUE(next.has_value());
      ASSERT_TRUE(next->ok());
      EXPECT_EQ(**next, i * i);
    }
    EXPECT_FALSE(map.Next().has_value());
  }
}

TEST(OrderedMapTest, SingleThreadComputesOnTheConsumer) {
  const auto consumer = std::this_thread::get_id();
  int64_t calls = 0;
  OrderedMap<int64_t> map(Executor::Default(), 3, 1, 2, [&](int64_t i) {
    EXPECT_EQ(std::this_thread::get_id(), consumer);
    ++calls;
    return Result<int64_t>(i);
  });
  ASSERT_EQ(calls, 0);  // lazy: nothing before the first Next
  EXPECT_EQ(**map.Next(), 0);
  EXPECT_EQ(calls, 1);  // no read-ahead with one thread
}

TEST(OrderedMapTest, WindowBoundsTheReadAhead) {
  std::atomic<int64_t> highest{-1};
  OrderedMap<int64_t> map(Executor::Default(), 100, 4, 3, [&](int64_t i) {
    int64_t seen = highest.load();
    while (i > seen && !highest.compare_exchange_weak(seen, i)) {
    }
    return Result<int64_t>(i);
  });
  for (int64_t consumed = 0; consumed < 10; ++consumed) {
    ASSERT_EQ(**map.Next(), consumed);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    // After returning index `consumed`, indices up to consumed + window may have started.
    EXPECT_LE(highest.load(), consumed + 3);
  }
}

TEST(OrderedMapTest, ErrorEndsTheStream) {
  std::atomic<int64_t> calls{0};
  OrderedMap<int64_t> map(Executor::Default(), 1000, 2, 4, [&](int64_t i) -> Result<int64_t> {
    calls.fetch_add(1);
    if (i == 2) return Status::IOError("broken group");
    return i;
  });
  EXPECT_EQ(**map.Next(), 0);
  EXPECT_EQ(**map.Next(), 1);
  auto failed = map.Next();
  ASSERT_TRUE(failed.has_value());
  ASSERT_FALSE(failed->ok());
  EXPECT_EQ(failed->status().message(), "broken group");
  EXPECT_FALSE(map.Next().has_value());
  EXPECT_LT(calls.load(), 1000);
}

TEST(OrderedMapTest, DestroyingEarlyWaitsForRunningCalls) {
  auto alive = std::make_shared<std::atomic<int>>(0);
  {
    OrderedMap<int64_t> map(Executor::Default(), 100, 4, 8, [alive](int64_t i) {
      alive->fetch_add(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
      alive->fetch_sub(1);
      return Result<int64_t>(i);
    });
    EXPECT_EQ(**map.Next(), 0);
  }
  EXPECT_EQ(alive->load(), 0);  // no call of fn outlives the map
}

TEST(OrderedMapTest, ProgressesWhenThePoolIsBusy) {
  // Both pool threads are held by blocked tasks: the consumer must compute every index
  // itself instead of waiting for workers that cannot start.
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  auto exec = Executor::Make(2).ValueOrDie();  // destroyed (joined) before mu and cv
  for (int t = 0; t < 2; ++t) {
    ASSERT_OK(exec->Spawn([&] {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return release; });
    }));
  }
  {
    OrderedMap<int64_t> map(exec.get(), 5, 2, 2, [](int64_t i) { return Result<int64_t>(i); });
    for (int64_t i = 0; i < 5; ++i) EXPECT_EQ(**map.Next(), i);
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
}

}  // namespace
// What fn captured is released on the thread that stops the map, never on a pool thread:
// a capture may be a handle whose deleter needs the caller's context (a Python-owned table
// takes the GIL; on a pool thread during interpreter shutdown that aborted the process).
TEST(OrderedMapTest, CapturesAreReleasedOnTheStoppingThread) {
  auto exec = Executor::Make(1).ValueOrDie();
  struct Probe {
    std::atomic<std::thread::id>* released_on = nullptr;
    ~Probe() { released_on->store(std::this_thread::get_id()); }
  };
  std::atomic<std::thread::id> released_on{};
  std::atomic<bool> release{false};
  std::atomic<int> blocking{0};
  {
    auto probe = std::make_shared<Probe>();
    probe->released_on = &released_on;
    OrderedMap<int> map(exec.get(), 3, /*threads=*/2, /*window=*/2,
                        [probe](int64_t i) -> Result<int> { return static_cast<int>(i); });
    probe.reset();
    // Keep every pool thread busy (the map grew the pool to 2), so the map's worker tasks
    // stay queued and the consumer computes every item itself.
    for (int t = 0; t < exec->capacity(); ++t) {
      ASSERT_OK(exec->Spawn([&] {
        ++blocking;
        while (!release.load()) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      }));
    }
    while (blocking.load() < exec->capacity()) std::this_thread::yield();
    for (int i = 0; i < 3; ++i) {
      auto next = map.Next();
      ASSERT_TRUE(next.has_value());
      EXPECT_EQ(**next, i);
    }
    EXPECT_FALSE(map.Next().has_value());
  }  // the map is destroyed here, its worker tasks still queued
  EXPECT_EQ(released_on.load(), std::this_thread::get_id());
  release.store(true);
}

}  // namespace paimon_rowid
