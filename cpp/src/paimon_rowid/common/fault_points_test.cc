#include "paimon_rowid/common/fault_points.h"

#include <gtest/gtest.h>

#include <csignal>

namespace paimon_rowid {
namespace {

TEST(FaultPoints, UnarmedAndOtherPointsDoNothing) {
  ArmCrashPoint("");
  FaultPoint("after_snapshot");
  EXPECT_EQ(ArmedCrashPoint(), "");
  ArmCrashPoint("after_latest");
  EXPECT_EQ(ArmedCrashPoint(), "after_latest");
  FaultPoint("after_snapshot");  // a different point: returns
  ArmCrashPoint("");
  FaultPoint("after_latest");  // disarmed again: returns
  EXPECT_EQ(ArmedCrashPoint(), "");
}

TEST(FaultPointsDeathTest, ArmedPointKillsTheProcessWithSigkill) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ArmCrashPoint("after_manifest");
        FaultPoint("before_manifest");
        FaultPoint("after_manifest");
        std::exit(0);  // not reached
      },
      testing::KilledBySignal(SIGKILL), "");
  EXPECT_EQ(ArmedCrashPoint(), "");  // arming in the child left this process untouched
}

}  // namespace
}  // namespace paimon_rowid
