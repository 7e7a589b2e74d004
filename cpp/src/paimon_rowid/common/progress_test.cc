#include "paimon_rowid/common/progress.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {

TEST(ProgressCounterTest, CountsFromManyThreadsAndCancels) {
  ProgressCounter counter;
  EXPECT_EQ(counter.total(), 0);
  EXPECT_EQ(counter.done(), 0);
  counter.AddTotal(4000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&counter] {
      for (int i = 0; i < 1000; ++i) counter.Add();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(counter.done(), 4000);
  EXPECT_EQ(counter.total(), 4000);
  ASSERT_OK(counter.CheckCancelled("job"));
  counter.Cancel();
  EXPECT_TRUE(counter.cancelled());
  auto st = counter.CheckCancelled("compact");
  EXPECT_TRUE(st.IsCancelled());
  EXPECT_EQ(st.message(), "compact was cancelled");
}

TEST(ProgressCounterTest, HelpersIgnoreANullCounter) {
  ProgressTotal(nullptr, 5);
  ProgressDone(nullptr, 5);
  ASSERT_OK(ProgressCheck(nullptr, "job"));
  ProgressCounter counter;
  ProgressTotal(&counter, 5);
  ProgressDone(&counter, 2);
  EXPECT_EQ(counter.total(), 5);
  EXPECT_EQ(counter.done(), 2);
}

}  // namespace paimon_rowid
