# The old path of paimon_rowid.jobs.row_id_jobs, for type checkers: at run time
# paimon_rowid/__init__.py (_MOVED_MODULES) makes it that same module.
from .jobs.row_id_jobs import (
    UPDATE_OPTION_PREFIX as UPDATE_OPTION_PREFIX,
)
from .jobs.row_id_jobs import (
    read_by_row_id as read_by_row_id,
)
from .jobs.row_id_jobs import (
    update_and_commit as update_and_commit,
)
from .jobs.row_id_jobs import (
    update_by_row_id as update_by_row_id,
)
