// Named fault points for the crash-safety tests (the "sync point" idea of RocksDB, reduced to
// one action). Production code marks a point in a multi-step protocol with
// `FaultPoint("after_snapshot")`; a test process arms one point with `ArmCrashPoint(...)`, and
// when execution reaches it the process kills itself with SIGKILL right there: no cleanup, no
// unwinding, exactly like a machine or OOM kill.
//
// Nothing is read from the environment: a point fires only in a process that armed it through
// this API (the Python tests do it through `_native._arm_crash_point`). Unarmed, a point costs
// one atomic load.
#pragma once

#include <string>

namespace paimon_rowid {

/// Arms the point named `point` for this process; an empty name disarms. Thread-safe. The
/// name is kept for the rest of the process (arming is for test processes, a handful of times).
void ArmCrashPoint(const std::string& point);

/// The name armed in this process, or "" when none is.
std::string ArmedCrashPoint();

/// Marks a fault point. Kills the process with SIGKILL when `point` is the armed one.
void FaultPoint(const char* point);

}  // namespace paimon_rowid
