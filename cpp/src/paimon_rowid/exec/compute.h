// Arrow compute set-up shared by every layer that runs compute kernels (format/ decodes
// with them, read/ casts and filters, write/ and commit/ collect statistics, rowid/ takes).
#pragma once

#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

/// Registers Arrow's compute kernels (min_max, cast, take, filter, ...) once per process and
/// returns the outcome of that one registration on every call. Thread-safe; every factory
/// whose objects run kernels calls it, so no caller has to remember to.
Status EnsureComputeInitialized();

}  // namespace paimon_rowid
