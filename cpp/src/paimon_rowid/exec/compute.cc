#include "paimon_rowid/exec/compute.h"

#include "arrow/compute/initialize.h"

namespace paimon_rowid {

Status EnsureComputeInitialized() {
  // A function-local static: initialized once, thread-safely, on first use.
  static const Status status = arrow::compute::Initialize();
  return status;
}

}  // namespace paimon_rowid
