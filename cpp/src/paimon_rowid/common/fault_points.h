// Named fault points for the crash-safety and race tests (the "sync point" idea of RocksDB,
// reduced to two actions). Production code marks a point in a multi-step protocol with
// `FaultPoint("after_snapshot")`; a test process arms one point with `ArmCrashPoint(...)`, and
// when execution reaches it the process kills itself with SIGKILL right there: no cleanup, no
// unwinding, exactly like a machine or OOM kill. Or it arms a hook with `ArmFaultHook(...)`:
// the first thread to reach the point runs it there, once (another writer's commit, an
// expiration: a race made deterministic).
//
// Nothing is read from the environment: a point fires only in a process that armed it through
// this API (the Python tests do it through `_native._arm_crash_point`). Unarmed, a point costs
// one atomic load.
#pragma once

#include <functional>
#include <string>

namespace paimon_rowid {

/// Arms the point named `point` for this process; an empty name disarms. Thread-safe. The
/// name is kept for the rest of the process (arming is for test processes, a handful of times).
void ArmCrashPoint(const std::string& point);

/// The name armed in this process, or "" when none is.
std::string ArmedCrashPoint();

/// Arms `hook` at the point named `point`: the first thread reaching it runs `hook` there,
/// once (the hook may itself pass the point: it is disarmed before it runs). An empty name
/// disarms. Thread-safe; independent of ArmCrashPoint.
void ArmFaultHook(const std::string& point, std::function<void()> hook);

/// Marks a fault point. Kills the process with SIGKILL when `point` is the armed crash point;
/// runs the armed hook when `point` is its point.
void FaultPoint(const char* point);

}  // namespace paimon_rowid
