"""``Table``: a handle on one table (its schema in force and its options).

Wraps ``_native.Table``. Getting properties is O(1) after the first access (the schema JSON is
parsed once per handle); nothing here reads data or manifests except :meth:`latest_snapshot`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional

import pyarrow as pa

from .._internal._arrow import capsule_schema
from .._internal._lib import native
from ..schema import ROW_ID, SEQUENCE_NUMBER, DataField, TableSchema
from .read import ReadBuilder
from .write_builder import BatchWriteBuilder

if TYPE_CHECKING:  # pragma: no cover
    from .._native import Snapshot

__all__ = ["Table"]

ROW_TRACKING_ENABLED = "row-tracking.enabled"
DATA_EVOLUTION_ENABLED = "data-evolution.enabled"


def _is_true(value: Optional[str]) -> bool:
    return value is not None and value.strip().lower() == "true"


class Table:
    """A Paimon append table. Obtain it from ``Catalog.get_table``; ``copy`` derives a handle
    with other options (time travel via ``scan.snapshot-id`` / ``scan.tag-name``)."""

    def __init__(self, native_table: Any) -> None:
        self._native = native_table
        self._schema: Optional[TableSchema] = None
        self._options: Optional[Dict[str, str]] = None
        self._arrow_schema: Optional[pa.Schema] = None

    # -- identity and schema ------------------------------------------------------------------

    @property
    def identifier(self) -> str:
        """``"database.table"``."""
        return self._native.identifier

    @property
    def path(self) -> str:
        return self._native.path

    @property
    def table_schema(self) -> TableSchema:
        """The schema in force (under time travel, the travelled snapshot's schema)."""
        if self._schema is None:
            self._schema = TableSchema.from_json(self._native.schema_json())
        return self._schema

    def schema(self) -> TableSchema:
        """The schema in force (pypaimon's ``FileStoreTable.schema()``)."""
        return self.table_schema

    @property
    def fields(self) -> List[DataField]:
        return list(self.table_schema.fields)

    @property
    def field_names(self) -> List[str]:
        return [f.name for f in self.table_schema.fields]

    @property
    def partition_keys(self) -> List[str]:
        return list(self.table_schema.partition_keys)

    @property
    def primary_keys(self) -> List[str]:
        return list(self.table_schema.primary_keys)

    @property
    def options(self) -> Dict[str, str]:
        """The effective options (schema options overlaid by ``copy`` overrides)."""
        if self._options is None:
            self._options = dict(self._native.options())
        return dict(self._options)

    @property
    def file_io_options(self) -> Dict[str, str]:
        """The filesystem options the table's FileIO was made from (an object store's
        endpoint, region and keys, as the catalog was given them); empty for a local
        warehouse. What a pickled table carries to Ray workers, and what BLOB descriptor
        reads of this table need (``BlobDescriptor.read(catalog_options=table)``)."""
        return dict(self._native.file_io_options)

    @property
    def row_tracking_enabled(self) -> bool:
        return _is_true(self.options.get(ROW_TRACKING_ENABLED))

    @property
    def data_evolution_enabled(self) -> bool:
        return _is_true(self.options.get(DATA_EVOLUTION_ENABLED))

    def readable_fields(self) -> List[DataField]:
        """Table fields plus ``_ROW_ID`` and ``_SEQUENCE_NUMBER`` on row-tracking tables."""
        fields = self.fields
        if self.row_tracking_enabled:
            fields += [ROW_ID, SEQUENCE_NUMBER]
        return fields

    @property
    def arrow_schema(self) -> pa.Schema:
        """The Arrow schema of a full read of the table's fields (as the native reader
        produces it)."""
        if self._arrow_schema is None:
            self._arrow_schema = self.read_schema(self.field_names)
        return self._arrow_schema

    def read_schema(self, read_fields: List[str]) -> pa.Schema:
        """The Arrow schema a read of ``read_fields`` produces (native mapping, no I/O)."""
        return capsule_schema(native().read_schema(self._native, list(read_fields)))

    # -- derivation and snapshots -------------------------------------------------------------

    def copy(self, options: Mapping[str, Any]) -> Table:
        """A new handle with ``options`` overlaid; a value of None removes the key. Changing
        ``bucket`` raises ValueError. A time-travel key (``scan.snapshot-id`` /
        ``scan.tag-name``) makes the handle read that snapshot with its schema. Cheap: reads
        at most one schema file."""
        if not isinstance(options, Mapping):
            raise TypeError(f"options must be a dict, got {type(options).__name__}")
        overrides: Dict[str, Optional[str]] = {}
        for key, value in options.items():
            if not isinstance(key, str):
                raise TypeError(f"option keys must be strings, got {key!r}")
            if value is None:
                overrides[key] = None
            elif isinstance(value, bool):
                overrides[key] = "true" if value else "false"
            else:
                overrides[key] = str(value)
        return Table(self._native.copy(overrides))

    def latest_snapshot(self) -> Optional[Snapshot]:
        """The latest snapshot, or None. A read-only native object: pypaimon's attribute names
        (``id``, ``schema_id``, ``commit_kind``, ``total_record_count``, ``next_row_id``,
        ``properties`` ...); ``snapshot["nextRowId"]`` also answers the Java JSON key names.
        Reads the snapshot directory hints and one snapshot file."""
        return self._native.latest_snapshot()

    def resolve_snapshot(self) -> Optional[Snapshot]:
        """The snapshot a read of this handle uses (time travel or latest), or None."""
        return self._native.resolve_snapshot()

    def snapshot(self, snapshot_id: int) -> Snapshot:
        """Snapshot ``snapshot_id``; ValueError when it does not exist (or has expired)."""
        return self._native.snapshot(int(snapshot_id))

    # -- reading ------------------------------------------------------------------------------

    def create_tag(self, tag_name: str, snapshot_id: Optional[int] = None,
                   ignore_if_exists: bool = False, time_retained: Optional[str] = None) -> None:
        """Tags a snapshot (the latest when ``snapshot_id`` is None) as pypaimon does; the tag
        file is created atomically and never replaced. ``time_retained`` is not supported."""
        if time_retained is not None:
            raise NotImplementedError("tags with time_retained are not supported yet")
        self._native.create_tag(tag_name, snapshot_id, ignore_if_exists)

    def delete_tag(self, tag_name: str) -> bool:
        """Deletes a tag; False when it did not exist."""
        return self._native.delete_tag(tag_name)

    def list_tags(self) -> List[str]:
        return list(self._native.list_tags())

    def new_read_builder(self) -> ReadBuilder:
        return ReadBuilder(self)

    # -- writing ------------------------------------------------------------------------------

    def new_batch_write_builder(self) -> BatchWriteBuilder:
        """A builder of one batch write + commit (pypaimon's shape); see paimon_rowid.write."""
        return BatchWriteBuilder(self)

    def __repr__(self) -> str:
        return f"Table({self.identifier!r})"

