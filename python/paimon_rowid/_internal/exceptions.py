"""Exception classes raised by paimon_rowid.

Names and bases follow pypaimon (``pypaimon.catalog.catalog_exception``): catalog errors derive
from ``CatalogException`` (an ``Exception``), so code catching pypaimon's names keeps working
after the import change. pypaimon raises commit conflicts as ``RuntimeError``; our
``CommitConflictException`` subclasses ``RuntimeError`` so ``except RuntimeError`` still works.

The native module raises these classes (registered once, when the native module is loaded) with
the message as the only argument. Every other engine error arrives as a builtin:
ValueError / TypeError / KeyError / OSError / NotImplementedError / RuntimeError.
"""
from __future__ import annotations

__all__ = [
    "CatalogException",
    "DatabaseNotExistException",
    "DatabaseAlreadyExistException",
    "TableNotExistException",
    "TableAlreadyExistException",
    "CommitConflictException",
    "CommitIOError",
    "ColumnNotExistException",
    "ColumnAlreadyExistException",
    "BaseSnapshotExpiredException",
    "TagNotExistException",
    "TagAlreadyExistException",
    "IllegalArgumentError",
    "IllegalStateError",
    "DatabaseNoPermissionException",
    "TableNoPermissionException",
    "RESTException",
    "BadRequestException",
    "NotAuthorizedException",
    "ForbiddenException",
    "NoSuchResourceException",
    "AlreadyExistsException",
    "ServiceFailureException",
    "NotImplementedException",
    "ServiceUnavailableException",
]


class CatalogException(Exception):
    """Base class of catalog errors (as in pypaimon)."""


class DatabaseNotExistException(CatalogException):
    """The database does not exist."""


class DatabaseAlreadyExistException(CatalogException):
    """The database already exists (and ``ignore_if_exists`` was false)."""


class TableNotExistException(CatalogException):
    """The table does not exist (no ``schema/schema-N`` under its directory)."""


class TableAlreadyExistException(CatalogException):
    """The table already exists (and ``ignore_if_exists`` was false)."""


class ColumnNotExistException(CatalogException):
    """``alter_table`` names a column the table does not have ("Column x does not exist")."""


class ColumnAlreadyExistException(CatalogException):
    """``alter_table`` adds or renames to a name the table has ("Column x already exists")."""


class TagNotExistException(CatalogException):
    """The catalog's ``delete_tag`` / ``get_tag`` name a tag the table does not have
    ("Tag x does not exist", as pypaimon)."""

    def __init__(self, tag: str) -> None:
        self.tag = tag
        super().__init__(f"Tag {tag} does not exist")


class TagAlreadyExistException(CatalogException):
    """The catalog's ``create_tag`` names an existing tag ("Tag x already exists")."""

    def __init__(self, tag: str) -> None:
        self.tag = tag
        super().__init__(f"Tag {tag} already exists")


class IllegalArgumentError(CatalogException):
    """A catalog call's argument the server refused (pypaimon's name; REST 400 on
    ``create_partitions``)."""


class IllegalStateError(CatalogException):
    """A catalog call the server refused in the state it is in (pypaimon's name;
    ``create_partitions`` of partitions that exist, ``ignore_if_exists=False``)."""


class DatabaseNoPermissionException(CatalogException):
    """A REST catalog server refused access to the database (HTTP 403)."""


class TableNoPermissionException(CatalogException):
    """A REST catalog server refused access to the table (HTTP 403)."""


class RESTException(Exception):
    """A REST catalog server's error answer (pypaimon's ``pypaimon.api.rest_exception``
    names; docs/rest-catalog.md): the subclasses below are its HTTP status codes."""


class BadRequestException(RESTException):
    """400: the server refused the request as malformed or invalid."""


class NotAuthorizedException(RESTException):
    """401: the token is missing, wrong or expired ("Not authorized: ...")."""


class ForbiddenException(RESTException):
    """403 on something other than a named database or table ("Forbidden: ...")."""


class NoSuchResourceException(RESTException):
    """404 on something other than a named database, table or column."""


class AlreadyExistsException(RESTException):
    """409 on something other than a named database, table or column."""


class ServiceFailureException(RESTException):
    """500: the server failed ("Server error: ...")."""


class NotImplementedException(RESTException):
    """501: the server does not implement the call."""


class ServiceUnavailableException(RESTException):
    """503, still after retries ("Service unavailable: ...")."""


class CommitConflictException(RuntimeError):
    """A commit lost against a concurrent commit it conflicts with (same rows and columns,
    or files rewritten under it). Nothing of the failed commit stays visible; re-run it."""


class CommitIOError(OSError, RuntimeError):
    """A commit the file system or object store refused (a revoked or expired key, say): no
    snapshot was made. Raised by every commit (batch commits, update_by_row_id, compact,
    merge_into, the Ray jobs' commits): they share one committer. A ``RuntimeError`` as
    pypaimon raises it ("Failed to prepare snapshot: ...") and an ``OSError`` as every other
    failed file request here; the message is "Failed to commit: " and the store's. The files
    the messages name stay where they are (the refused key cannot delete them): orphans for
    ``remove_orphan_files``."""


class BaseSnapshotExpiredException(CommitConflictException):
    """A running update's base snapshot was expired under it (a file of the base, such as a
    replaced deletion vector, is gone). The update moves onto the latest snapshot by itself;
    a caller sees this only when it kept happening through every retry."""


# Error kinds used by the native layer -> Python classes.
ERROR_CLASSES = {
    "TableNotExist": TableNotExistException,
    "TableAlreadyExist": TableAlreadyExistException,
    "DatabaseNotExist": DatabaseNotExistException,
    "DatabaseAlreadyExist": DatabaseAlreadyExistException,
    "CommitConflict": CommitConflictException,
    "RowIdConflict": CommitConflictException,
    "ColumnNotExist": ColumnNotExistException,
    "ColumnAlreadyExist": ColumnAlreadyExistException,
    "BaseExpired": BaseSnapshotExpiredException,
    "DatabaseNoPermission": DatabaseNoPermissionException,
    "TableNoPermission": TableNoPermissionException,
    "CommitIO": CommitIOError,
    "RestBadRequest": BadRequestException,
    "RestNotAuthorized": NotAuthorizedException,
    "RestForbidden": ForbiddenException,
    "RestNoSuchResource": NoSuchResourceException,
    "RestAlreadyExists": AlreadyExistsException,
    "RestServiceFailure": ServiceFailureException,
    "RestNotImplemented": NotImplementedException,
    "RestServiceUnavailable": ServiceUnavailableException,
    "RestError": RESTException,
}
