"""``RESTCatalog``: a catalog on a Paimon REST catalog server (pypaimon's
``pypaimon.catalog.rest``), made by ``CatalogFactory.create({"metastore": "rest", "uri": ...,
"warehouse": ..., "token.provider": "bear", "token": ...})`` (or ``"token.provider": "dlf"``
with the ``dlf.*`` keys: every request signed as DLF checks it). docs/rest-catalog.md.

Databases and tables live on the server; a table's files live where the server says, and its
commits go through the server (the server creates each snapshot or answers that a concurrent
commit took the id; the engine then rebuilds on the new latest). Every catalog call is one
HTTP request (listings one per page); reading and writing data make none, and a commit one.
Tags go through the server's tag endpoints (the catalog's calls and the table's), partitions
through its partitions endpoints (listed from the statistics each commit sends, created and
marked done there; dropped by a truncate commit through the server); a table whose server
vends data tokens reads and writes its files with them (refreshed before expiry).
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
    AlreadyExistsException,
    BadRequestException,
    CatalogException,
    IllegalArgumentError,
    IllegalStateError,
    NoSuchResourceException,
    NotImplementedException,
    RESTException,
    TableNotExistException,
    TagAlreadyExistException,
    TagNotExistException,
)
from ..schema.schema_change import SchemaChange, changes_json
from . import _catalog_partitions as partitions_
from .catalog_objects import GetTagResponse, PagedList, Partition
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

    # -- tags and partitions through the server's endpoints ----------------------------------

    def create_tag(self, identifier: Any, tag_name: str, snapshot_id: Optional[int] = None,
                   time_retained: Optional[str] = None, ignore_if_exists: bool = False) -> None:
        """Asks the server to tag ``snapshot_id`` (the latest when None); an existing tag
        raises TagAlreadyExistException unless ``ignore_if_exists``; TableNotExistException
        for a missing table, the server's refusal of a missing snapshot as it answers it."""
        try:
            self._native.create_tag(_identifier(identifier), tag_name, snapshot_id,
                                    time_retained)
        except AlreadyExistsException as e:
            if not ignore_if_exists:
                raise TagAlreadyExistException(tag_name) from e

    def delete_tag(self, identifier: Any, tag_name: str) -> None:
        """Asks the server to delete the tag; TagNotExistException when there is none."""
        try:
            self._native.delete_tag(_identifier(identifier), tag_name)
        except NoSuchResourceException as e:
            raise TagNotExistException(tag_name) from e

    def get_tag(self, identifier: Any, tag_name: str) -> GetTagResponse:
        """The server's tag (``GetTagResponse``: the snapshot as a ``Snapshot``, the creation
        time in epoch ms, the retention as the server spells it); TagNotExistException."""
        try:
            snapshot, create_time, retained = self._native.get_tag(_identifier(identifier),
                                                                   tag_name)
        except NoSuchResourceException as e:
            raise TagNotExistException(tag_name) from e
        return GetTagResponse(tag_name=tag_name, snapshot=snapshot, tag_create_time=create_time,
                              tag_time_retained=retained)

    def list_tags_paged(self, identifier: Any, max_results: Optional[int] = None,
                        page_token: Optional[str] = None,
                        tag_name_prefix: Optional[str] = None) -> PagedList:
        """The server's tag names, sorted, filtered by prefix; ``max_results`` a page, the
        page token the previous page's last name (as the filesystem catalog's). The prefix
        is applied here: Java 1.4.2's RESTCatalogServer answers no tag for any
        ``tagNamePrefix``."""
        tags: List[str] = sorted(self._native.list_tags(_identifier(identifier), ""))
        if tag_name_prefix:
            tags = [t for t in tags if t.startswith(tag_name_prefix)]
        if page_token:
            tags = [t for t in tags if t > page_token]
        if max_results is not None and max_results > 0 and len(tags) > max_results:
            return PagedList(elements=tags[:max_results], next_page_token=tags[max_results - 1])
        return PagedList(elements=tags, next_page_token=None)

    def list_partitions_paged(self, identifier: Any, max_results: Optional[int] = None,
                              page_token: Optional[str] = None,
                              partition_name_pattern: Optional[str] = None) -> PagedList:
        """The partitions the server knows (from the statistics commits send it), sorted by
        "k=v,..." name, paged and filtered as the filesystem catalog's; a server without the
        endpoint (501) answers from the table's files instead, as pypaimon does."""
        try:
            raw = self._native.list_partitions(_identifier(identifier))
        except NotImplementedException:
            return super().list_partitions_paged(identifier, max_results, page_token,
                                                 partition_name_pattern)
        return partitions_.page([Partition(**p) for p in raw], max_results, page_token,
                                partition_name_pattern)

    def create_partitions(self, identifier: Any, partitions: Sequence[Mapping[str, Any]],
                          ignore_if_exists: bool = True) -> None:
        """Registers the partitions on the server (its createPartitions call, one request; no
        table data is touched), as pypaimon's REST catalog. TableNotExistException,
        TableNoPermissionException; ``IllegalStateError("Some partitions of table db.t already
        exist: ...")`` when some exist and not ``ignore_if_exists`` (the server then creates
        none); ``IllegalArgumentError`` for a spec the server refuses; NotImplementedException
        from a server without the call (Java 1.4.2's test server answers 501, or 404 for a
        table whose partitions it keeps: pypaimon reports that 404 as
        TableNotExistException, we as NotImplementedException since the table exists)."""
        table_id = _identifier(identifier)
        payload = partitions_.specs(partitions)
        try:
            self._native.create_partitions(table_id, payload, bool(ignore_if_exists))
        except AlreadyExistsException as e:
            raise IllegalStateError(
                f"Some partitions of table {table_id} already exist: {e}") from e
        except BadRequestException as e:
            raise IllegalArgumentError(str(e)) from e

    def mark_done_partitions(self, identifier: Any,
                             partitions: Sequence[Mapping[str, Any]]) -> None:
        """Tells the server the partitions are complete (its markDonePartitions call, one
        request), as Java's ``RESTCatalog.markDonePartitions``: a server that does not keep
        the table's partitions (501) is not an error. TableNotExistException,
        TableNoPermissionException. pypaimon 2.1.0 has no such call."""
        self._native.mark_done_partitions(_identifier(identifier),
                                          partitions_.specs(partitions))

    def load_snapshot(self, identifier: Any) -> Any:
        """The latest snapshot of the table (read from its files, as the server names them)."""
        return self.get_table(identifier).latest_snapshot()


def create_rest_catalog(native_module: Any, options: Dict[str, str]) -> RESTCatalog:
    """Asks the server's config endpoint once; ValueError without ``uri`` or ``warehouse``."""
    return RESTCatalog(native_module.RestCatalog.make(options))
