# The old path of paimon_rowid.jobs.row_id_ranges, for type checkers: at run time
# paimon_rowid/__init__.py (_MOVED_MODULES) makes it that same module.
from .jobs.row_id_ranges import (
    PROPERTY_PREFIX as PROPERTY_PREFIX,
)
from .jobs.row_id_ranges import (
    completed_ranges as completed_ranges,
)
from .jobs.row_id_ranges import (
    plan_row_id_ranges as plan_row_id_ranges,
)
from .jobs.row_id_ranges import (
    process_row_id_ranges as process_row_id_ranges,
)
