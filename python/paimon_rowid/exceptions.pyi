# The old path of paimon_rowid._internal.exceptions, for type checkers: at run time
# paimon_rowid/__init__.py (_MOVED_MODULES) makes it that same module.
from ._internal.exceptions import (
    ERROR_CLASSES as ERROR_CLASSES,
)
from ._internal.exceptions import (
    BaseSnapshotExpiredException as BaseSnapshotExpiredException,
)
from ._internal.exceptions import (
    CatalogException as CatalogException,
)
from ._internal.exceptions import (
    ColumnAlreadyExistException as ColumnAlreadyExistException,
)
from ._internal.exceptions import (
    ColumnNotExistException as ColumnNotExistException,
)
from ._internal.exceptions import (
    CommitConflictException as CommitConflictException,
)
from ._internal.exceptions import (
    DatabaseAlreadyExistException as DatabaseAlreadyExistException,
)
from ._internal.exceptions import (
    DatabaseNotExistException as DatabaseNotExistException,
)
from ._internal.exceptions import (
    TableAlreadyExistException as TableAlreadyExistException,
)
from ._internal.exceptions import (
    TableNotExistException as TableNotExistException,
)
from ._internal.exceptions import (
    TagAlreadyExistException as TagAlreadyExistException,
)
from ._internal.exceptions import (
    TagNotExistException as TagNotExistException,
)
