# The old path of paimon_rowid.jobs.range_join, for type checkers: at run time
# paimon_rowid/__init__.py (_MOVED_MODULES) makes it that same module.
from .jobs.range_join import (
    OnSpec as OnSpec,
)
from .jobs.range_join import (
    range_join as range_join,
)
