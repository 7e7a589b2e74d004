"""``Catalog``: the filesystem catalog (databases are ``<db>.db`` directories of the
warehouse, tables directories holding ``schema/schema-N``); the base of the REST catalog
(``rest_catalog.RESTCatalog``). ``catalog.CatalogFactory`` makes either.

Catalog calls list or stat a directory or read one schema file; none reads table data.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence

from .._internal.exceptions import TableNotExistException
from ..schema import Schema
from ..schema.schema_change import SchemaChange, changes_json
from ..table.table import Table
from . import _catalog_partitions as partitions_
from . import _catalog_tags as tags
from .catalog_objects import GetTagResponse, PagedList

__all__ = ["Catalog", "Database"]


def _identifier(identifier: Any) -> str:
    """Accepts ``"db.table"`` or an Identifier-like object (``get_full_name()`` or
    ``database`` + ``object`` attributes). The native catalog validates the name."""
    if isinstance(identifier, str):
        return identifier
    if hasattr(identifier, "get_full_name"):
        return identifier.get_full_name()
    if hasattr(identifier, "database") and hasattr(identifier, "object"):
        return f"{identifier.database}.{identifier.object}"
    raise TypeError(f"identifier must be a 'database.table' string, got "
                    f"{type(identifier).__name__}")


@dataclass
class Database:
    """A database of the filesystem catalog (pypaimon's ``Database``): it stores no options
    or comment."""

    name: str
    options: Dict[str, str] = field(default_factory=dict)
    comment: Optional[str] = None


class Catalog:
    """A catalog over a warehouse directory. Thread-safe for concurrent reads."""

    def __init__(self, native_catalog: Any) -> None:
        self._native = native_catalog

    @property
    def warehouse(self) -> str:
        return self._native.warehouse

    def list_databases(self) -> List[str]:
        """Sorted database names (one directory listing)."""
        return list(self._native.list_databases())

    def list_tables(self, database_name: str) -> List[str]:
        """Sorted table names of a database; DatabaseNotExistException if it is missing."""
        return list(self._native.list_tables(database_name))

    def create_database(self, name: str, ignore_if_exists: bool,
                        properties: Optional[Mapping[str, Any]] = None) -> None:
        """Creates the database directory. The filesystem catalog stores no properties, and
        rejects a ``location`` property (as pypaimon does)."""
        if properties and "location" in properties:
            raise ValueError("Cannot specify location for a database when using fileSystem "
                             "catalog.")
        self._native.create_database(name, bool(ignore_if_exists))

    def get_database(self, name: str) -> Database:
        """The database (DatabaseNotExistException when it is missing). One listing."""
        self._native.list_tables(name)
        return Database(name, {})

    def alter_database(self, name: str, changes: Sequence[Any]) -> None:
        """The filesystem catalog stores no database properties: always refused, as
        pypaimon refuses it."""
        raise NotImplementedError("alter_database is not supported by this catalog.")

    def drop_database(self, name: str, ignore_if_not_exists: bool = False,
                      cascade: bool = False) -> None:
        self._native.drop_database(name, bool(ignore_if_not_exists), bool(cascade))

    def get_table(self, identifier: Any) -> Table:
        """Loads the table's latest schema; TableNotExistException if there is none."""
        return Table(self._native.get_table(_identifier(identifier)))

    def create_table(self, identifier: Any, schema: Schema, ignore_if_exists: bool) -> None:
        """Writes ``schema/schema-0`` of a new table (the database must exist)."""
        if not isinstance(schema, Schema):
            raise TypeError(f"schema must be a paimon_rowid.Schema, got {type(schema).__name__}")
        self._native.create_table(_identifier(identifier), schema.to_table_schema_json(),
                                  bool(ignore_if_exists))

    def drop_table(self, identifier: Any, ignore_if_not_exists: bool = False) -> None:
        self._native.drop_table(_identifier(identifier), bool(ignore_if_not_exists))

    def rename_table(self, source_identifier: Any, target_identifier: Any) -> None:
        """Renames a table, also into another database, with one directory rename (as
        pypaimon). TableNotExistException (source), DatabaseNotExistException (target
        database), TableAlreadyExistException (target); NotImplementedError on an object
        store, which has no atomic directory rename. Handles of the old name stop working."""
        self._native.rename_table(_identifier(source_identifier),
                                  _identifier(target_identifier))

    def alter_table(self, identifier: Any, changes: Sequence[SchemaChange],
                    ignore_if_not_exists: bool = False) -> None:
        """Applies ``changes`` (``paimon_rowid.schema.schema_change.SchemaChange``) in order and
        writes them as one new ``schema/schema-N`` (all or nothing). A concurrent alter that
        took the same N first is not lost: the changes are applied again on its schema, and
        refused if that schema refuses them. Table handles already open keep their schema;
        ``get_table`` again to see the new one.

        Errors as pypaimon raises them: TableNotExistException when the table is missing
        (nothing with ``ignore_if_not_exists``); any refused change raises
        ``RuntimeError("Failed to alter table db.t: <reason>")`` whose ``__cause__`` is the
        reason (ColumnNotExistException, ColumnAlreadyExistException, ValueError,
        NotImplementedError); nothing is written then. Cost: a few small file reads and one
        schema file write."""
        table_id = _identifier(identifier)
        payload = json.dumps(changes_json(changes))
        try:
            self._native.alter_table(table_id, payload, bool(ignore_if_not_exists))
        except TableNotExistException:
            raise
        except Exception as e:
            raise RuntimeError(f"Failed to alter table {table_id}: {e}") from e

    # -- partitions, snapshots and tags (pypaimon's filesystem catalog; docs/tags.md) ----------

    def list_partitions_paged(self, identifier: Any, max_results: Optional[int] = None,
                              page_token: Optional[str] = None,
                              partition_name_pattern: Optional[str] = None) -> PagedList:
        """The latest snapshot's partitions (``catalog_objects.Partition``: spec, record,
        file and byte counts, newest file time, buckets), sorted by "k=v,..." name;
        ``partition_name_pattern`` with ``*`` wildcards; the page token is the next start
        index. Reads the live manifests once."""
        return partitions_.list_partitions_paged(self.get_table(identifier), max_results,
                                                 page_token, partition_name_pattern)

    def drop_partitions(self, identifier: Any, partitions: Sequence[Mapping[str, Any]]) -> None:
        """Deletes the partitions' rows as one OVERWRITE snapshot (``truncate_partitions``).
        ValueError "Partitions list cannot be empty." or for a key that is not a partition
        key; nothing is committed then."""
        partitions_.drop_partitions(self.get_table(identifier), partitions)

    def create_partitions(self, identifier: Any, partitions: Sequence[Mapping[str, Any]],
                          ignore_if_exists: bool = True) -> None:
        """Refused, as pypaimon's filesystem catalog refuses it: partitions exist by their
        files (write rows into one to make it); a REST catalog registers them."""
        raise NotImplementedError("create_partitions is not supported by this catalog. "
                                  "Use REST catalog for partition creation.")

    def mark_done_partitions(self, identifier: Any,
                             partitions: Sequence[Mapping[str, Any]]) -> None:
        """Java's ``Catalog.markDonePartitions``: the filesystem catalog keeps no partition
        state, so nothing is recorded (as Java's filesystem catalog); TableNotExistException
        for a missing table. A REST catalog tells its server."""
        self.get_table(identifier)

    def load_snapshot(self, identifier: Any) -> Any:
        """Refused, as pypaimon's filesystem catalog refuses it (a REST catalog call); use
        ``get_table(...).latest_snapshot()``."""
        raise NotImplementedError("Filesystem catalog does not support load_snapshot")

    def create_tag(self, identifier: Any, tag_name: str, snapshot_id: Optional[int] = None,
                   time_retained: Optional[str] = None, ignore_if_exists: bool = False) -> None:
        """``Table.create_tag``; an existing tag raises TagAlreadyExistException (unless
        ``ignore_if_exists``), the table's other refusals ValueError."""
        tags.create_tag(self.get_table(identifier), tag_name, snapshot_id, time_retained,
                        ignore_if_exists)

    def delete_tag(self, identifier: Any, tag_name: str) -> None:
        """Deletes a tag; TagNotExistException when there is none."""
        tags.delete_tag(self.get_table(identifier), tag_name)

    def get_tag(self, identifier: Any, tag_name: str) -> GetTagResponse:
        """The tag (``GetTagResponse``); TagNotExistException when there is none."""
        return tags.get_tag(self.get_table(identifier), tag_name)

    def list_tags_paged(self, identifier: Any, max_results: Optional[int] = None,
                        page_token: Optional[str] = None,
                        tag_name_prefix: Optional[str] = None) -> PagedList:
        """Tag names sorted, filtered by prefix, ``max_results`` a page; the page token is
        the previous page's last name (as pypaimon)."""
        return tags.list_tags_paged(self.get_table(identifier), max_results, page_token,
                                    tag_name_prefix)
