# The old path of paimon_rowid.table.write, for type checkers: at run time
# paimon_rowid/__init__.py (_MOVED_MODULES) makes it that same module.
from .table.write import (
    BATCH_COMMIT_IDENTIFIER as BATCH_COMMIT_IDENTIFIER,
)
from .table.write import (
    BatchTableCommit as BatchTableCommit,
)
from .table.write import (
    BatchTableWrite as BatchTableWrite,
)
from .table.write import (
    CommitMessage as CommitMessage,
)
