"""``RESTCatalog``: a catalog on a Paimon REST catalog server (pypaimon's
``pypaimon.catalog.rest``), made by ``CatalogFactory.create({"metastore": "rest", "uri": ...,
"warehouse": ..., "token.provider": "bear", "token": ...})``. docs/rest-catalog.md.

Databases and tables live on the server; a table's files live where the server says, and its
commits go through the server (the server creates each snapshot or answers that a concurrent
commit took the id; the engine then rebuilds on the new latest). Every catalog call is one
HTTP request (listings one per page); reading and writing data make none, and a commit one.
The server's errors are raised as pypaimon raises them: a named database or table that is
missing, present or forbidden as ``DatabaseNotExistException``, ``TableNotExistException``,
``DatabaseAlreadyExistException``, ``TableAlreadyExistException``,
``DatabaseNoPermissionException``, ``TableNoPermissionException``; anything else as a
``RESTException`` subclass named after its HTTP status (``NotAuthorizedException`` for a bad
token). A server that cannot be reached raises ``OSError`` naming the URI, at once.
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence

from .._internal.exceptions import (
    CatalogException,
    RESTException,
    TableNotExistException,
)
from ..schema.schema_change import SchemaChange, changes_json
from .filesystem_catalog import Catalog, Database, _identifier

__all__ = ["RESTCatalog"]


class RESTCatalog(Catalog):
    """A catalog whose databases and tables a REST server keeps. Thread-safe."""

    @property
    def uri(self) -> str:
        return self._native.uri

    @property
    def options(self) -> Dict[str, str]:
        """The user's options merged with the server's defaults and overrides."""
        return dict(self._native.options)

    def create_database(self, name: str, ignore_if_exists: bool,
                        properties: Optional[Mapping[str, Any]] = None) -> None:
        """Creates the database on the server with ``properties`` as its options."""
        props = {str(k): str(v) for k, v in (properties or {}).items()}
        self._native.create_database(name, bool(ignore_if_exists), props)

    def get_database(self, name: str) -> Database:
        """The database with the options the server keeps (DatabaseNotExistException)."""
        return Database(name, dict(self._native.get_database(name)))

    def alter_database(self, name: str, changes: Sequence[Any]) -> None:
        """Sets and removes database options: pypaimon's ``PropertyChange`` objects (a
        ``property`` with a ``value`` sets it, without one removes it)."""
        updates: Dict[str, str] = {}
        removals: List[str] = []
        for change in changes:
            if hasattr(change, "value"):
                updates[str(change.property)] = str(change.value)
            else:
                removals.append(str(change.property))
        self._native.alter_database(name, updates, removals)

    def alter_table(self, identifier: Any, changes: Sequence[SchemaChange],
                    ignore_if_not_exists: bool = False) -> None:
        """Sends the changes to the server, which applies them as one new schema.
        TableNotExistException when the table is missing; a refused change raises
        ``RuntimeError("Failed to alter table db.t: <reason>")`` whose ``__cause__`` is the
        reason (ColumnNotExistException, ColumnAlreadyExistException, BadRequestException),
        as the filesystem catalog raises it; authentication and permission errors as they
        are."""
        table_id = _identifier(identifier)
        payload = json.dumps(changes_json(changes))
        try:
            self._native.alter_table(table_id, payload, bool(ignore_if_not_exists))
        except (TableNotExistException, RESTException) as e:
            if type(e).__name__ in ("BadRequestException", "NotImplementedException"):
                raise RuntimeError(f"Failed to alter table {table_id}: {e}") from e
            raise
        except CatalogException as e:
            if "NoPermission" in type(e).__name__:
                raise
            raise RuntimeError(f"Failed to alter table {table_id}: {e}") from e

    def load_snapshot(self, identifier: Any) -> Any:
        """The latest snapshot of the table (read from its files, as the server names them)."""
        return self.get_table(identifier).latest_snapshot()


def create_rest_catalog(native_module: Any, options: Dict[str, str]) -> RESTCatalog:
    """Asks the server's config endpoint once; ValueError without ``uri`` or ``warehouse``."""
    return RESTCatalog(native_module.RestCatalog.make(options))
