// ProgressCounter (common/progress.h) for Python: the long jobs (compact, expire_snapshots,
// remove_orphan_files, create_global_index) take one, and the Python layer polls it from the
// thread that waits for the job (python/paimon_rowid/_internal/_progress.py).
#include "paimon_rowid/common/progress.h"

#include <nanobind/nanobind.h>

#include "common.h"

namespace paimon_rowid::python {

void RegisterProgress(nb::module_& m) {
  nb::class_<ProgressCounter>(m, "ProgressCounter",
                              "Units of work known (total) and finished (done) of a running "
                              "job; cancel() asks it to stop at its next check.")
      .def(nb::init<>())
      .def_prop_ro("total", &ProgressCounter::total)
      .def_prop_ro("done", &ProgressCounter::done)
      .def_prop_ro("cancelled", &ProgressCounter::cancelled)
      .def("cancel", &ProgressCounter::Cancel);
}

}  // namespace paimon_rowid::python
