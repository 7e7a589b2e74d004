# The old path of paimon_rowid._internal.exceptions, for type checkers: at run time
# paimon_rowid/__init__.py (_MOVED_MODULES) makes it that same module.
from ._internal.exceptions import (
    ERROR_CLASSES as ERROR_CLASSES,
)
from ._internal.exceptions import (
    AlreadyExistsException as AlreadyExistsException,
)
from ._internal.exceptions import (
    BadRequestException as BadRequestException,
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
    CommitIOError as CommitIOError,
)
from ._internal.exceptions import (
    DatabaseAlreadyExistException as DatabaseAlreadyExistException,
)
from ._internal.exceptions import (
    DatabaseNoPermissionException as DatabaseNoPermissionException,
)
from ._internal.exceptions import (
    DatabaseNotExistException as DatabaseNotExistException,
)
from ._internal.exceptions import (
    ForbiddenException as ForbiddenException,
)
from ._internal.exceptions import (
    IllegalArgumentError as IllegalArgumentError,
)
from ._internal.exceptions import (
    IllegalStateError as IllegalStateError,
)
from ._internal.exceptions import (
    NoSuchResourceException as NoSuchResourceException,
)
from ._internal.exceptions import (
    NotAuthorizedException as NotAuthorizedException,
)
from ._internal.exceptions import (
    NotImplementedException as NotImplementedException,
)
from ._internal.exceptions import (
    RESTException as RESTException,
)
from ._internal.exceptions import (
    ServiceFailureException as ServiceFailureException,
)
from ._internal.exceptions import (
    ServiceUnavailableException as ServiceUnavailableException,
)
from ._internal.exceptions import (
    TableAlreadyExistException as TableAlreadyExistException,
)
from ._internal.exceptions import (
    TableNoPermissionException as TableNoPermissionException,
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
