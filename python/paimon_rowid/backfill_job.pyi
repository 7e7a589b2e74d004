# The old path of paimon_rowid.jobs.backfill_job, for type checkers: at run time
# paimon_rowid/__init__.py (_MOVED_MODULES) makes it that same module.
from .jobs.backfill_job import (
    BackfillError as BackfillError,
)
from .jobs.backfill_job import (
    BackfillProgress as BackfillProgress,
)
from .jobs.backfill_job import (
    BackfillResult as BackfillResult,
)
from .jobs.backfill_job import (
    BackfillStatus as BackfillStatus,
)
from .jobs.backfill_job import (
    RangeStatus as RangeStatus,
)
from .jobs.backfill_job import (
    backfill as backfill,
)
from .jobs.backfill_job import (
    backfill_status as backfill_status,
)
