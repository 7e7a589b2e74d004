# The old path of paimon_rowid.jobs.maintenance, for type checkers: at run time
# paimon_rowid/__init__.py (_MOVED_MODULES) makes it that same module.
from .jobs.maintenance import (
    expire_snapshots as expire_snapshots,
)
from .jobs.maintenance import (
    remove_orphan_files as remove_orphan_files,
)
