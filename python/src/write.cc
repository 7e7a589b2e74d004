// Write-side bindings (filled in by the writing issue).
#include "common.h"

namespace paimon_rowid::python {

void RegisterWrite(nb::module_& m) {}

}  // namespace paimon_rowid::python
